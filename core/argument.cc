// Copyright 2026 The FX for C++ Authors.
#include "core/argument.h"

#include <atomic>
#include <stdexcept>

#include "absl/strings/str_cat.h"

namespace fx {

// Immutable, reference-counted payloads: copying an Argument that holds a
// string or a container bumps a count instead of copying it.
struct Argument::Payload {
  std::atomic<int32_t> refs{1};
  std::string string;  // a string; a NamedTuple's class
  std::vector<Argument> items;
  std::vector<std::string> fields;  // a NamedTuple's
  Kwargs dict;
};

namespace {

bool holds_payload(Argument::Kind kind) {
  return kind == Argument::Kind::kString || kind == Argument::Kind::kList ||
         kind == Argument::Kind::kTuple || kind == Argument::Kind::kDict;
}

}  // namespace

Argument::Argument(const char* v) : Argument(std::string(v)) {}

Argument::Argument(std::string v) : Argument(with_payload(Kind::kString)) {
  payload_->string = std::move(v);
}

Argument::Argument(absl::string_view v) : Argument(std::string(v)) {}

Argument::Argument(const Argument& other)
    : kind_(other.kind_),
      small_(other.small_),
      device_index_(other.device_index_),
      bits_(other.bits_) {
  if (holds_payload(kind_)) payload_->refs.fetch_add(1, std::memory_order_relaxed);
}

Argument::Argument(Argument&& other) noexcept
    : kind_(other.kind_),
      small_(other.small_),
      device_index_(other.device_index_),
      bits_(other.bits_) {
  other.kind_ = Kind::kNone;
}

Argument& Argument::operator=(const Argument& other) {
  if (this != &other) {
    Argument copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Argument& Argument::operator=(Argument&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    small_ = other.small_;
    device_index_ = other.device_index_;
    bits_ = other.bits_;
    other.kind_ = Kind::kNone;
  }
  return *this;
}

Argument::~Argument() { release(); }

void Argument::release() {
  if (holds_payload(kind_) && payload_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete payload_;
  }
  kind_ = Kind::kNone;
}

Argument Argument::with_payload(Kind kind) {
  Argument a;
  a.kind_ = kind;
  a.payload_ = new Payload();
  return a;
}

Argument Argument::List(std::vector<Argument> items) {
  Argument a = with_payload(Kind::kList);
  a.payload_->items = std::move(items);
  return a;
}

Argument Argument::Tuple(std::vector<Argument> items) {
  Argument a = with_payload(Kind::kTuple);
  a.payload_->items = std::move(items);
  return a;
}

Argument Argument::NamedTuple(std::string type_name, std::vector<std::string> fields,
                              std::vector<Argument> items) {
  Argument a = Tuple(std::move(items));
  a.payload_->string = std::move(type_name);
  a.payload_->fields = std::move(fields);
  return a;
}

Argument Argument::Dict(Kwargs items) {
  Argument a = with_payload(Kind::kDict);
  a.payload_->dict = std::move(items);
  return a;
}

namespace {
[[noreturn]] void wrong_kind(Argument::Kind want, Argument::Kind have) {
  throw std::logic_error(absl::StrCat("fx::Argument holds a ", kind_name(have), ", not a ",
                                      kind_name(want)));
}
}  // namespace

void Argument::expect(Kind kind) const {
  if (kind_ != kind) wrong_kind(kind, kind_);
}

const std::string& Argument::to_string() const {
  expect(Kind::kString);
  return payload_->string;
}

const std::vector<Argument>& Argument::elements() const {
  if (kind_ != Kind::kList && kind_ != Kind::kTuple) wrong_kind(Kind::kList, kind_);
  return payload_->items;
}

bool Argument::is_named_tuple() const {
  return kind_ == Kind::kTuple && !payload_->string.empty();
}

const std::string& Argument::tuple_type_name() const {
  expect(Kind::kTuple);
  return payload_->string;
}

const std::vector<std::string>& Argument::tuple_fields() const {
  expect(Kind::kTuple);
  return payload_->fields;
}

Argument Argument::with_elements(std::vector<Argument> items) const {
  if (kind_ == Kind::kList) return List(std::move(items));
  if (is_named_tuple()) return NamedTuple(payload_->string, payload_->fields, std::move(items));
  expect(Kind::kTuple);
  return Tuple(std::move(items));
}

const Kwargs& Argument::dict_items() const {
  expect(Kind::kDict);
  return payload_->dict;
}

bool Argument::contains_node() const {
  bool found = false;
  for_each_node(*this, [&](Node*) { found = true; });
  return found;
}

bool Argument::operator==(const Argument& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNone:
      return true;
    case Kind::kBool:
      return bool_ == other.bool_;
    case Kind::kInt:
      return int_ == other.int_;
    case Kind::kDouble:
      return double_ == other.double_;
    case Kind::kNode:
      return node_ == other.node_;
    case Kind::kString:
      return payload_ == other.payload_ || payload_->string == other.payload_->string;
    case Kind::kList:
      return payload_ == other.payload_ || payload_->items == other.payload_->items;
    case Kind::kTuple:
      return payload_ == other.payload_ ||
             (payload_->items == other.payload_->items &&
              payload_->string == other.payload_->string &&
              payload_->fields == other.payload_->fields);
    case Kind::kDict:
      return payload_ == other.payload_ || payload_->dict == other.payload_->dict;
    case Kind::kDtype:
    case Kind::kLayout:
    case Kind::kMemoryFormat:
      return small_ == other.small_;
    case Kind::kDevice:
      return small_ == other.small_ && device_index_ == other.device_index_;
  }
  return false;
}

absl::string_view kind_name(Argument::Kind kind) {
  switch (kind) {
    case Argument::Kind::kNone:
      return "None";
    case Argument::Kind::kBool:
      return "bool";
    case Argument::Kind::kInt:
      return "int";
    case Argument::Kind::kDouble:
      return "float";
    case Argument::Kind::kString:
      return "str";
    case Argument::Kind::kNode:
      return "Node";
    case Argument::Kind::kList:
      return "list";
    case Argument::Kind::kTuple:
      return "tuple";
    case Argument::Kind::kDict:
      return "dict";
    case Argument::Kind::kDtype:
      return "dtype";
    case Argument::Kind::kDevice:
      return "device";
    case Argument::Kind::kLayout:
      return "layout";
    case Argument::Kind::kMemoryFormat:
      return "memory_format";
  }
  return "?";
}

const Argument* find_kwarg(const Kwargs& kwargs, absl::string_view key) {
  for (const auto& kv : kwargs) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

Argument map_arg(const Argument& arg, const NodeMapFn& fn) {
  switch (arg.kind()) {
    case Argument::Kind::kNode:
      return fn(arg.to_node());
    case Argument::Kind::kList:
    case Argument::Kind::kTuple:
    case Argument::Kind::kDict:
      // Containers without node references are shared, not copied.
      if (!arg.contains_node()) return arg;
      if (arg.is_dict()) return Argument::Dict(map_arg(arg.dict_items(), fn));
      return arg.with_elements(map_arg(arg.elements(), fn));
    default:
      return arg;
  }
}

Arguments map_arg(const Arguments& args, const NodeMapFn& fn) {
  Arguments out;
  out.reserve(args.size());
  for (const Argument& a : args) out.push_back(map_arg(a, fn));
  return out;
}

Kwargs map_arg(const Kwargs& kwargs, const NodeMapFn& fn) {
  Kwargs out;
  out.reserve(kwargs.size());
  for (const auto& kv : kwargs) out.emplace_back(kv.first, map_arg(kv.second, fn));
  return out;
}

}  // namespace fx
