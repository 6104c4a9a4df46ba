// Copyright 2026 The FX for C++ Authors.
#include "exported_program/torch_save.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "exported_program/zip_file.h"

namespace fx {
namespace exported {
namespace {

// Python's pickle opcodes (protocol 2).
constexpr char kProto = '\x80';
constexpr char kEmptyDict = '}';
constexpr char kEmptyList = ']';
constexpr char kMark = '(';
constexpr char kSetItems = 'u';
constexpr char kAppends = 'e';
constexpr char kTuple = 't';
constexpr char kEmptyTuple = ')';
constexpr char kTuple3 = '\x87';
constexpr char kReduce = 'R';
constexpr char kGlobal = 'c';
constexpr char kBinPersId = 'Q';
constexpr char kBinUnicode = 'X';
constexpr char kBinInt1 = 'K';
constexpr char kBinInt = 'J';
constexpr char kLong1 = '\x8a';
constexpr char kBinFloat = 'G';
constexpr char kNone = 'N';
constexpr char kNewTrue = '\x88';
constexpr char kNewFalse = '\x89';
constexpr char kStop = '.';

// torch's typed storage class for a dtype, as torch.save names it.
const char* storage_class(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return "FloatStorage";
    case c10::kDouble: return "DoubleStorage";
    case c10::kHalf: return "HalfStorage";
    case c10::kBFloat16: return "BFloat16Storage";
    case c10::kLong: return "LongStorage";
    case c10::kInt: return "IntStorage";
    case c10::kShort: return "ShortStorage";
    case c10::kChar: return "CharStorage";
    case c10::kByte: return "ByteStorage";
    case c10::kBool: return "BoolStorage";
    case c10::kComplexFloat: return "ComplexFloatStorage";
    case c10::kComplexDouble: return "ComplexDoubleStorage";
    default: return nullptr;
  }
}

class Pickler {
 public:
  explicit Pickler(const absl::flat_hash_set<const c10::TensorImpl*>* parameters) : parameters_(parameters) {
    out_ += {kProto, '\x02'};
  }

  absl::Status value(const c10::IValue& v, const std::string& where, int depth = 0) {
    if (depth > 100) return absl::InvalidArgumentError(absl::StrCat(where, " is nested too deeply"));
    if (v.isNone()) {
      out_ += kNone;
    } else if (v.isBool()) {
      out_ += v.toBool() ? kNewTrue : kNewFalse;
    } else if (v.isInt()) {
      integer(v.toInt());
    } else if (v.isDouble()) {
      out_ += kBinFloat;
      uint64_t bits;
      const double d = v.toDouble();
      std::memcpy(&bits, &d, 8);
      for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);  // big-endian
    } else if (v.isString()) {
      string(v.toStringRef());
    } else if (v.isTensor()) {
      return tensor(v.toTensor(), where);
    } else if (v.isTuple()) {
      const auto& items = v.toTupleRef().elements();
      if (items.empty()) {
        out_ += kEmptyTuple;
        return absl::OkStatus();
      }
      out_ += kMark;
      for (size_t i = 0; i < items.size(); ++i) {
        if (absl::Status s = value(items[i], absl::StrCat(where, "[", i, "]"), depth + 1); !s.ok()) return s;
      }
      out_ += kTuple;
    } else if (v.isList()) {
      out_ += kEmptyList;
      const auto list = v.toListRef();
      if (!list.empty()) {
        out_ += kMark;
        for (size_t i = 0; i < list.size(); ++i) {
          if (absl::Status s = value(list[i], absl::StrCat(where, "[", i, "]"), depth + 1); !s.ok()) return s;
        }
        out_ += kAppends;
      }
    } else if (v.isGenericDict()) {
      out_ += kEmptyDict;
      const auto dict = v.toGenericDict();
      if (!dict.empty()) {
        out_ += kMark;
        for (const auto& kv : dict) {
          if (!kv.key().isString()) {
            return absl::InvalidArgumentError(absl::StrCat(where, " is a dict with a key that is not a string"));
          }
          string(kv.key().toStringRef());
          if (absl::Status s = value(kv.value(), absl::StrCat(where, "['", kv.key().toStringRef(), "']"), depth + 1);
              !s.ok()) {
            return s;
          }
        }
        out_ += kSetItems;
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(where, " is a ", v.tagKind(), ", which is not written"));
    }
    return absl::OkStatus();
  }

  // The zip torch.save writes: data.pkl, the storages, version, byteorder.
  absl::StatusOr<std::string> finish() {
    out_ += kStop;
    ZipWriter zip;
    zip.add("archive/data.pkl", std::move(out_));
    zip.add("archive/byteorder", "little");
    for (const Storage* s : order_) zip.add(absl::StrCat("archive/data/", s->key), s->bytes);
    zip.add("archive/version", "3\n");
    return zip.finish();
  }

 private:
  struct Storage {
    std::string key;
    c10::ScalarType dtype;
    std::string bytes;
  };

  absl::Status tensor(const at::Tensor& original, const std::string& where) {
    const bool is_parameter = parameters_ != nullptr && parameters_->contains(original.unsafeGetTensorImpl());
    at::Tensor t = original.device().is_cpu() ? original : original.cpu();
    if (t.layout() != c10::kStrided || t.is_quantized()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is not a dense tensor"));
    }
    const char* cls = storage_class(t.scalar_type());
    if (cls == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": dtype ", c10::toString(t.scalar_type()), " has no torch storage class"));
    }
    const void* id = t.storage().unsafeGetStorageImpl();
    auto found = storages_.find(id);
    if (found == storages_.end()) {
      const char* data = static_cast<const char*>(t.storage().data());
      Storage s{absl::StrCat(storages_.size()), t.scalar_type(), std::string(data, data + t.storage().nbytes())};
      found = storages_.emplace(id, std::move(s)).first;
      order_.push_back(&found->second);
    } else if (found->second.dtype != t.scalar_type()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": its storage is shared with a tensor of another dtype"));
    }
    const Storage& storage = found->second;
    if (is_parameter) global("torch._utils", "_rebuild_parameter");
    global("torch._utils", "_rebuild_tensor_v2");
    out_ += kMark;
    out_ += kMark;
    string("storage");
    global("torch", cls);
    string(storage.key);
    string("cpu");
    integer(static_cast<int64_t>(storage.bytes.size() / c10::elementSize(storage.dtype)));
    out_ += kTuple;
    out_ += kBinPersId;
    integer(t.storage_offset());
    int_tuple(t.sizes());
    int_tuple(t.strides());
    out_ += (!is_parameter && t.requires_grad()) ? kNewTrue : kNewFalse;
    empty_ordered_dict();
    out_ += kTuple;
    out_ += kReduce;
    if (is_parameter) {
      out_ += t.requires_grad() ? kNewTrue : kNewFalse;
      empty_ordered_dict();
      out_ += kTuple3;
      out_ += kReduce;
    }
    return absl::OkStatus();
  }

  void global(const std::string& module, const std::string& name) {
    out_ += kGlobal;
    absl::StrAppend(&out_, module, "\n", name, "\n");
  }
  void string(const std::string& s) {
    out_ += kBinUnicode;
    append_le(static_cast<uint32_t>(s.size()), 4);
    out_ += s;
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      out_ += kBinInt1;
      out_ += static_cast<char>(v);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += kBinInt;
      append_le(static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
    } else {
      out_ += kLong1;
      out_ += '\x08';
      append_le(static_cast<uint64_t>(v), 8);
    }
  }
  void int_tuple(at::IntArrayRef values) {
    if (values.empty()) {
      out_ += kEmptyTuple;
      return;
    }
    out_ += kMark;
    for (int64_t v : values) integer(v);
    out_ += kTuple;
  }
  // OrderedDict(): a tensor's (always empty) backward hooks.
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    out_ += kEmptyTuple;
    out_ += kReduce;
  }
  void append_le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }

  const absl::flat_hash_set<const c10::TensorImpl*>* parameters_;
  std::string out_;
  std::map<const void*, Storage> storages_;
  std::vector<const Storage*> order_;
};

}  // namespace

absl::StatusOr<std::string> torch_save(const c10::IValue& value,
                                       const absl::flat_hash_set<const c10::TensorImpl*>* parameters) {
  Pickler p(parameters);
  if (absl::Status s = p.value(value, "the value"); !s.ok()) return s;
  return p.finish();
}

}  // namespace exported
}  // namespace fx
