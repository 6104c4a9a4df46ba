// Copyright 2026 The FX for C++ Authors.
#include "exported_program/torch_load.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>
#include <ATen/ops/empty.h>

#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "exported_program/zip_file.h"

namespace fx {
namespace exported {
namespace {

constexpr size_t kMaxDepth = 1000;
constexpr size_t kMaxStack = 1 << 20;

struct Item {
  enum class Kind { kValue, kMark, kGlobal, kStorage };
  Kind kind = Kind::kValue;
  c10::IValue value;
  std::string global;  // "torch._utils._rebuild_tensor_v2"
  at::Storage storage;
  c10::ScalarType dtype = c10::kByte;
};

// The identity of a list, dict or tuple (shared through the memo), or null.
const void* container_of(const c10::IValue& v) {
  return v.isList() || v.isGenericDict() || v.isTuple() ? v.internalToPointer() : nullptr;
}

std::optional<c10::ScalarType> storage_dtype(absl::string_view name) {
  static const std::pair<const char*, c10::ScalarType> kStorages[] = {
      {"torch.FloatStorage", c10::kFloat},     {"torch.DoubleStorage", c10::kDouble},
      {"torch.HalfStorage", c10::kHalf},       {"torch.BFloat16Storage", c10::kBFloat16},
      {"torch.LongStorage", c10::kLong},       {"torch.IntStorage", c10::kInt},
      {"torch.ShortStorage", c10::kShort},     {"torch.CharStorage", c10::kChar},
      {"torch.ByteStorage", c10::kByte},       {"torch.BoolStorage", c10::kBool},
      {"torch.ComplexFloatStorage", c10::kComplexFloat},
      {"torch.ComplexDoubleStorage", c10::kComplexDouble},
  };
  for (const auto& [n, t] : kStorages) {
    if (name == n) return t;
  }
  return std::nullopt;
}

bool allowed_global(absl::string_view name) {
  return name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_parameter" ||
         name == "torch._utils._rebuild_parameter_with_state" || name == "collections.OrderedDict" ||
         storage_dtype(name).has_value();
}

class Unpickler {
 public:
  Unpickler(absl::string_view data, const ZipReader& zip, std::string prefix, const std::string& what)
      : data_(data), zip_(zip), prefix_(std::move(prefix)), what_(what) {}

  absl::StatusOr<c10::IValue> run() {
    while (true) {
      if (pos_ >= data_.size()) return fail("the pickle ends before its STOP");
      const unsigned char op = static_cast<unsigned char>(data_[pos_++]);
      if (op == '.') break;
      if (absl::Status s = step(op); !s.ok()) return s;
      if (stack_.size() > kMaxStack) return fail("the pickle's stack grows past a million items");
    }
    if (stack_.size() != 1 || stack_.back().kind != Item::Kind::kValue) return fail("the pickle does not end with one value");
    return stack_.back().value;
  }

 private:
  absl::Status fail(absl::string_view why) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", what_, ": ", why));
  }
  absl::Status need(uint64_t n) const {
    return n <= data_.size() - pos_ ? absl::OkStatus() : fail("the pickle is truncated");
  }
  uint64_t read_le(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += n;
    return v;
  }
  void push(c10::IValue v) {
    Item item;
    item.value = std::move(v);
    stack_.push_back(std::move(item));
  }
  // A new container, `depth` levels deep.
  void push_container(c10::IValue v, size_t depth) {
    remember(v, depth);
    push(std::move(v));
  }
  // Containers are known by their address: each is kept alive until the
  // end, so that no later one takes the address of one that was dropped.
  void remember(const c10::IValue& container, size_t depth) {
    depths_[container_of(container)] = depth;
    alive_.push_back(container);
  }
  absl::StatusOr<Item> pop() {
    if (stack_.empty()) return fail("the pickle pops an empty stack");
    Item item = std::move(stack_.back());
    stack_.pop_back();
    return item;
  }
  absl::StatusOr<c10::IValue> pop_value() {
    auto item = pop();
    if (!item.ok()) return item.status();
    if (item->kind != Item::Kind::kValue) return fail("the pickle uses a mark, a global or a storage as a value");
    return item->value;
  }
  // The items above the topmost mark, which is removed.
  absl::StatusOr<std::vector<Item>> pop_to_mark() {
    size_t mark = stack_.size();
    while (mark > 0 && stack_[mark - 1].kind != Item::Kind::kMark) --mark;
    if (mark == 0) return fail("the pickle has no mark to pop to");
    std::vector<Item> items(std::make_move_iterator(stack_.begin() + mark), std::make_move_iterator(stack_.end()));
    stack_.resize(mark - 1);
    --marks_;
    return items;
  }
  absl::StatusOr<std::string> read_string(size_t length_bytes) {
    if (absl::Status s = need(length_bytes); !s.ok()) return s;
    const uint64_t n = read_le(length_bytes);
    if (absl::Status s = need(n); !s.ok()) return s;
    std::string out(data_.substr(pos_, n));
    pos_ += n;
    return out;
  }
  absl::Status push_global(std::string name) {
    if (!allowed_global(name)) {
      return fail(absl::StrCat("the pickle names ", quote_for_message(name),
                               ", which is not a tensor, a parameter or a container (nothing else is read)"));
    }
    Item item;
    item.kind = Item::Kind::kGlobal;
    item.global = std::move(name);
    stack_.push_back(std::move(item));
    return absl::OkStatus();
  }
  // How deep containers nest in `v` (0 for what is no container). Kept per
  // container, not per stack item: the memo hands out the same list again,
  // and a list grows after it was memoised.
  size_t depth_of(const c10::IValue& v) const {
    auto found = depths_.find(container_of(v));
    return found == depths_.end() ? 0 : found->second;
  }
  absl::Status check_depth(size_t depth) const {
    return depth > kMaxDepth ? fail(absl::StrCat("the pickle nests containers deeper than ", kMaxDepth)) : absl::OkStatus();
  }
  // Puts `item` into `container` (a list or dict being filled): a container
  // is filled before it is placed in another (as Python's pickler writes
  // them), so one that was placed is never changed again, and none holds
  // itself. Else depths could not be known without walking the value, and a
  // list that contains itself sends every later walk round for ever.
  absl::Status place(const c10::IValue& item, const c10::IValue& container) {
    const void* inner = container_of(item);
    if (inner == nullptr) return absl::OkStatus();
    if (inner == container_of(container)) return fail("a list or dict that contains itself");
    placed_.insert(inner);
    const size_t depth = depth_of(item) + 1;
    size_t& outer = depths_[container_of(container)];
    outer = std::max(outer, depth);
    return check_depth(outer);
  }
  absl::Status check_unplaced(const c10::IValue& container) const {
    if (placed_.count(container_of(container)) != 0) {
      return fail(
          "a list or dict changed after it was placed in another value (which Python's pickler never writes: "
          "it can make a value contain itself, or hide how deep it nests)");
    }
    return absl::OkStatus();
  }

  // Tuples hold values only: a storage type (the global inside a storage's
  // persistent id) and a storage (the first argument of _rebuild_tensor_v2)
  // are held as marker tuples that persistent_load and call() resolve
  // by their identity (markers_), so that no value a pickle builds can pass
  // for one.
  absl::Status make_tuple(std::vector<Item> items) {
    std::vector<c10::IValue> values;
    size_t depth = 0;
    for (Item& i : items) {
      if (i.kind == Item::Kind::kStorage || i.kind == Item::Kind::kGlobal) {
        if (i.kind == Item::Kind::kGlobal && !storage_dtype(i.global)) {
          return fail(absl::StrCat(quote_for_message(i.global), " inside a tuple"));
        }
        // (Not empty: libtorch may share one empty tuple among all.)
        values.emplace_back(c10::ivalue::Tuple::create({static_cast<int64_t>(markers_.size())}));
        remember(values.back(), 1);
        markers_.emplace(values.back().internalToPointer(), std::move(i));
        continue;
      }
      if (i.kind != Item::Kind::kValue) return fail("a tuple of a mark");
      if (const void* inner = container_of(i.value)) placed_.insert(inner);
      depth = std::max(depth, depth_of(i.value));
      values.push_back(std::move(i.value));
    }
    if (absl::Status s = check_depth(depth + 1); !s.ok()) return s;
    push_container(c10::ivalue::Tuple::create(std::move(values)), depth + 1);
    return absl::OkStatus();
  }

  // What the marker tuple `v` stands for (a storage, or a storage type as a
  // global), or null.
  const Item* marker(const c10::IValue& v, Item::Kind kind) const {
    if (!v.isTuple()) return nullptr;
    auto found = markers_.find(v.internalToPointer());
    return found == markers_.end() || found->second.kind != kind ? nullptr : &found->second;
  }

  absl::StatusOr<at::Storage> storage_argument(const c10::IValue& v, c10::ScalarType* dtype) {
    const Item* storage = marker(v, Item::Kind::kStorage);
    if (storage == nullptr) return fail("_rebuild_tensor_v2 without a storage");
    *dtype = storage->dtype;
    return storage->storage;
  }

  // A tuple of ints (a tensor's sizes or strides), or nothing.
  static std::optional<std::vector<int64_t>> ints(const c10::IValue& v) {
    if (!v.isTuple()) return std::nullopt;
    std::vector<int64_t> out;
    for (const c10::IValue& e : v.toTupleRef().elements()) {
      if (!e.isInt()) return std::nullopt;
      out.push_back(e.toInt());
    }
    return out;
  }
  // Whether a tensor of `dtype` may require grad (autograd's rule, which
  // libtorch enforces by throwing).
  absl::Status check_requires_grad(c10::ScalarType dtype) const {
    if (c10::isFloatingType(dtype) || c10::isComplexType(dtype)) return absl::OkStatus();
    return fail(absl::StrCat("a tensor of dtype ", c10::toString(dtype),
                             " that requires grad (only floating-point and complex tensors can)"));
  }

  absl::StatusOr<c10::IValue> call(const std::string& global, const c10::IValue& args) {
    if (!args.isTuple()) return fail(absl::StrCat(global, " called without a tuple of arguments"));
    const auto& a = args.toTupleRef().elements();
    if (global == "collections.OrderedDict") {
      c10::IValue dict(c10::impl::GenericDict(c10::AnyType::get(), c10::AnyType::get()));
      remember(dict, 1);
      return dict;
    }
    if (global == "torch._utils._rebuild_tensor_v2") {
      if (a.size() < 5) return fail("_rebuild_tensor_v2 with too few arguments");
      c10::ScalarType dtype;
      auto storage = storage_argument(a[0], &dtype);
      if (!storage.ok()) return storage.status();
      if (!a[1].isInt()) return fail("a tensor's offset that is not an int");
      const int64_t offset = a[1].toInt();
      const std::optional<std::vector<int64_t>> sizes_read = ints(a[2]);
      const std::optional<std::vector<int64_t>> strides_read = ints(a[3]);
      if (!sizes_read || !strides_read) return fail("a tensor's sizes or strides that are not a tuple of ints");
      const std::vector<int64_t>& sizes = *sizes_read;
      const std::vector<int64_t>& strides = *strides_read;
      if (sizes.size() != strides.size()) return fail("a tensor with more sizes than strides");
      // Its last element must lie within the storage.
      int64_t last = offset;
      bool empty = false;
      bool bad = offset < 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        int64_t reach = 0;
        bad = bad || sizes[i] < 0 || strides[i] < 0 ||
              __builtin_mul_overflow(sizes[i] == 0 ? 0 : sizes[i] - 1, strides[i], &reach) ||
              __builtin_add_overflow(last, reach, &last);
        empty = empty || sizes[i] == 0;
      }
      const int64_t numel = static_cast<int64_t>(storage->nbytes() / c10::elementSize(dtype));
      if (bad || (!empty && last >= numel)) return fail("a tensor reaches past its storage");
      const bool requires_grad = a[4].isBool() && a[4].toBool();
      if (requires_grad) {
        if (absl::Status s = check_requires_grad(dtype); !s.ok()) return s;
      }
      at::Tensor t = at::empty({0}, at::TensorOptions().dtype(dtype));
      t.set_(*storage, offset, sizes, strides);
      if (requires_grad) t.set_requires_grad(true);
      return c10::IValue(t);
    }
    if (global == "torch._utils._rebuild_parameter" || global == "torch._utils._rebuild_parameter_with_state") {
      if (a.size() < 2 || !a[0].isTensor()) return fail("a parameter that does not wrap a tensor");
      at::Tensor t = a[0].toTensor();
      if (a[1].isBool() && a[1].toBool()) {
        if (absl::Status s = check_requires_grad(t.scalar_type()); !s.ok()) return s;
      }
      if (a[1].isBool()) t.set_requires_grad(a[1].toBool());
      return c10::IValue(t);
    }
    return fail(absl::StrCat(quote_for_message(global), " cannot be called"));
  }

  absl::StatusOr<Item> persistent_load(const c10::IValue& pid) {
    if (!pid.isTuple() || pid.toTupleRef().elements().size() < 5 || !pid.toTupleRef().elements()[0].isString() ||
        pid.toTupleRef().elements()[0].toStringRef() != "storage") {
      return fail("a persistent id that is not a storage");
    }
    const auto& e = pid.toTupleRef().elements();
    if (!e[2].isString() || !e[4].isInt()) return fail("a malformed storage id");
    const std::string& key = e[2].toStringRef();
    // The storage type: a global this reader resolved, never a value of the
    // pickle's own making (a forged dtype number would reach libtorch's
    // quantizer asserts).
    const Item* type = marker(e[1], Item::Kind::kGlobal);
    const std::optional<c10::ScalarType> storage_type =
        type == nullptr ? std::nullopt : storage_dtype(type->global);
    if (!storage_type) return fail("a storage id without its storage type");
    const c10::ScalarType dtype = *storage_type;
    auto found = storages_.find(key);
    if (found == storages_.end()) {
      const std::string record = absl::StrCat(prefix_, "data/", key);
      auto bytes = zip_.read(record);
      if (!bytes.ok()) return fail(bytes.status().message());
      const int64_t numel = e[4].toInt();
      const uint64_t item_size = c10::elementSize(dtype);
      if (numel < 0 || static_cast<uint64_t>(numel) > bytes->size() / item_size) {
        return fail(absl::StrCat("storage ", quote_for_message(key), " has ", bytes->size(), " bytes, and its tensor needs ",
                                 numel, " elements of ", item_size));
      }
      const uint64_t expected = static_cast<uint64_t>(numel) * item_size;
      at::Tensor buffer = at::empty({static_cast<int64_t>(expected)}, at::kByte);
      if (expected > 0) std::memcpy(buffer.data_ptr(), bytes->data(), expected);
      found = storages_.emplace(key, buffer.storage()).first;
    }
    Item item;
    item.kind = Item::Kind::kStorage;
    item.storage = found->second;
    item.dtype = dtype;
    return item;
  }
  absl::Status step(unsigned char op) {
    switch (op) {
      case 0x80:  // PROTO
        if (absl::Status s = need(1); !s.ok()) return s;
        ++pos_;
        return absl::OkStatus();
      case 0x95:  // FRAME
        if (absl::Status s = need(8); !s.ok()) return s;
        pos_ += 8;
        return absl::OkStatus();
      case '}':
        push_container(c10::impl::GenericDict(c10::AnyType::get(), c10::AnyType::get()), 1);
        return absl::OkStatus();
      case ']':
        push_container(c10::impl::GenericList(c10::AnyType::get()), 1);
        return absl::OkStatus();
      case ')':
        push_container(c10::ivalue::Tuple::create({}), 1);
        return absl::OkStatus();
      case '(': {
        if (++marks_ > kMaxDepth) return fail(absl::StrCat("the pickle nests marks deeper than ", kMaxDepth));
        Item mark;
        mark.kind = Item::Kind::kMark;
        stack_.push_back(std::move(mark));
        return absl::OkStatus();
      }
      case 't': {
        auto items = pop_to_mark();
        if (!items.ok()) return items.status();
        return make_tuple(std::move(*items));
      }
      case 0x85:  // TUPLE1
      case 0x86:  // TUPLE2
      case 0x87: {  // TUPLE3
        const size_t n = op - 0x84;
        if (stack_.size() < n) return fail("a tuple of more items than the stack holds");
        std::vector<Item> items(std::make_move_iterator(stack_.end() - n), std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        return make_tuple(std::move(items));
      }
      case 'a':    // APPEND
      case 'e': {  // APPENDS
        std::vector<Item> items;
        if (op == 'a') {
          auto item = pop();
          if (!item.ok()) return item.status();
          items.push_back(std::move(*item));
        } else {
          auto popped = pop_to_mark();
          if (!popped.ok()) return popped.status();
          items = std::move(*popped);
        }
        if (stack_.empty() || stack_.back().kind != Item::Kind::kValue || !stack_.back().value.isList()) {
          return fail("APPEND to something that is not a list");
        }
        const c10::IValue& target = stack_.back().value;
        if (absl::Status s = check_unplaced(target); !s.ok()) return s;
        auto list = target.toList();
        for (Item& i : items) {
          if (i.kind != Item::Kind::kValue) return fail("a list of something other than values");
          if (absl::Status s = place(i.value, target); !s.ok()) return s;
          list.push_back(std::move(i.value));
        }
        return absl::OkStatus();
      }
      case 's':    // SETITEM
      case 'u': {  // SETITEMS
        std::vector<Item> items;
        if (op == 's') {
          auto value = pop();
          auto key = pop();
          if (!value.ok() || !key.ok()) return fail("SETITEM on a short stack");
          items.push_back(std::move(*key));
          items.push_back(std::move(*value));
        } else {
          auto popped = pop_to_mark();
          if (!popped.ok()) return popped.status();
          items = std::move(*popped);
        }
        if (items.size() % 2 != 0) return fail("SETITEMS with a key without a value");
        if (stack_.empty() || stack_.back().kind != Item::Kind::kValue || !stack_.back().value.isGenericDict()) {
          return fail("SETITEM on something that is not a dict");
        }
        const c10::IValue& target = stack_.back().value;
        if (absl::Status s = check_unplaced(target); !s.ok()) return s;
        auto dict = target.toGenericDict();
        for (size_t i = 0; i < items.size(); i += 2) {
          if (items[i].kind != Item::Kind::kValue || items[i + 1].kind != Item::Kind::kValue) {
            return fail("a dict of something other than values");
          }
          const c10::IValue& key = items[i].value;
          if (!key.isString() && !key.isInt()) return fail("a dict key that is neither a string nor an int");
          if (absl::Status s = place(items[i + 1].value, target); !s.ok()) return s;
          dict.insert_or_assign(key, items[i + 1].value);
        }
        return absl::OkStatus();
      }
      case 'K':
        if (absl::Status s = need(1); !s.ok()) return s;
        push(static_cast<int64_t>(read_le(1)));
        return absl::OkStatus();
      case 'M':
        if (absl::Status s = need(2); !s.ok()) return s;
        push(static_cast<int64_t>(read_le(2)));
        return absl::OkStatus();
      case 'J':
        if (absl::Status s = need(4); !s.ok()) return s;
        push(static_cast<int64_t>(static_cast<int32_t>(read_le(4))));
        return absl::OkStatus();
      case 0x8a: {  // LONG1
        if (absl::Status s = need(1); !s.ok()) return s;
        const size_t n = read_le(1);
        if (n > 8) return fail("an integer wider than 64 bits");
        if (absl::Status s = need(n); !s.ok()) return s;
        uint64_t v = read_le(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
        push(static_cast<int64_t>(v));
        return absl::OkStatus();
      }
      case 'G': {  // BINFLOAT, big-endian
        if (absl::Status s = need(8); !s.ok()) return s;
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(data_[pos_ + i]);
        pos_ += 8;
        double d;
        std::memcpy(&d, &bits, 8);
        push(d);
        return absl::OkStatus();
      }
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        auto s = read_string(op == 'X' ? 4 : op == 0x8c ? 1 : 8);
        if (!s.ok()) return s.status();
        push(*std::move(s));
        return absl::OkStatus();
      }
      case 'N':
        push(c10::IValue());
        return absl::OkStatus();
      case 0x88:
        push(true);
        return absl::OkStatus();
      case 0x89:
        push(false);
        return absl::OkStatus();
      case 'q':     // BINPUT
      case 'r':     // LONG_BINPUT
      case 0x94: {  // MEMOIZE
        size_t index = memo_.size();
        if (op != 0x94) {
          if (absl::Status s = need(op == 'q' ? 1 : 4); !s.ok()) return s;
          index = read_le(op == 'q' ? 1 : 4);
        }
        if (stack_.empty()) return fail("a memo of an empty stack");
        if (stack_.back().kind == Item::Kind::kMark) return fail("a memo of a mark");
        memo_[index] = stack_.back();
        return absl::OkStatus();
      }
      case 'h':    // BINGET
      case 'j': {  // LONG_BINGET
        if (absl::Status s = need(op == 'h' ? 1 : 4); !s.ok()) return s;
        auto found = memo_.find(read_le(op == 'h' ? 1 : 4));
        if (found == memo_.end()) return fail("a memo that was never stored");
        stack_.push_back(found->second);
        return absl::OkStatus();
      }
      case 'c': {  // GLOBAL "module\nname\n"
        const size_t a = data_.find('\n', pos_);
        const size_t b = a == absl::string_view::npos ? a : data_.find('\n', a + 1);
        if (b == absl::string_view::npos) return fail("a truncated GLOBAL");
        std::string name = absl::StrCat(data_.substr(pos_, a - pos_), ".", data_.substr(a + 1, b - a - 1));
        pos_ = b + 1;
        return push_global(std::move(name));
      }
      case 0x93: {  // STACK_GLOBAL
        auto name = pop_value();
        auto module = pop_value();
        if (!name.ok() || !module.ok() || !name->isString() || !module->isString()) return fail("a malformed STACK_GLOBAL");
        return push_global(absl::StrCat(module->toStringRef(), ".", name->toStringRef()));
      }
      case 'R': {  // REDUCE
        auto args = pop_value();
        if (!args.ok()) return args.status();
        auto callable = pop();
        if (!callable.ok()) return callable.status();
        if (callable->kind != Item::Kind::kGlobal) return fail("REDUCE of something that is not a global");
        auto result = call(callable->global, *args);
        if (!result.ok()) return result.status();
        push(*std::move(result));
        return absl::OkStatus();
      }
      case 'Q': {  // BINPERSID
        auto pid = pop();
        if (!pid.ok()) return pid.status();
        if (pid->kind != Item::Kind::kValue) return fail("a persistent id that is not a tuple");
        auto item = persistent_load(pid->value);
        if (!item.ok()) return item.status();
        stack_.push_back(*std::move(item));
        return absl::OkStatus();
      }
      default:
        return fail(absl::StrCat("the pickle uses opcode 0x", absl::Hex(op), ", which is not read here"));
    }
  }

 private:
  absl::string_view data_;
  size_t pos_ = 0;
  const ZipReader& zip_;
  std::string prefix_;
  const std::string& what_;
  std::vector<Item> stack_;
  std::map<uint64_t, Item> memo_;
  std::map<std::string, at::Storage> storages_;
  // Marker tuples (make_tuple) -> the storage or storage type each stands for.
  absl::flat_hash_map<const void*, Item> markers_;
  // Containers -> how deep containers nest in them; containers placed in another.
  absl::flat_hash_map<const void*, size_t> depths_;
  absl::flat_hash_set<const void*> placed_;
  std::vector<c10::IValue> alive_;
  size_t marks_ = 0;
};

}  // namespace

absl::StatusOr<c10::IValue> torch_load(absl::string_view bytes, const std::string& what) {
  auto zip = ZipReader::open(bytes, what);
  if (!zip.ok()) return zip.status();
  // torch.save's zip: one top folder ("archive/", or the file's stem), with
  // data.pkl and data/<storage key>.
  std::string prefix;
  for (const std::string& name : zip->names()) {
    if (absl::EndsWith(name, "/data.pkl") && name.find('/') == name.size() - 9) prefix = name.substr(0, name.size() - 8);
  }
  if (prefix.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is not a file torch.save wrote (no data.pkl)"));
  auto pickle = zip->read(prefix + "data.pkl");
  if (!pickle.ok()) return pickle.status();
  if (zip->contains(prefix + "byteorder")) {
    auto order = zip->read(prefix + "byteorder");
    if (order.ok() && absl::StripAsciiWhitespace(*order) != "little") {
      return absl::InvalidArgumentError(absl::StrCat(what, " was saved big-endian; FX for C++ reads little-endian files"));
    }
  }
  return Unpickler(*pickle, *zip, prefix, what).run();
}

}  // namespace exported
}  // namespace fx
