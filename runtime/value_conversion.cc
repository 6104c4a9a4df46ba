// Copyright 2026 The FX for C++ Authors.
#include "runtime/value_conversion.h"

#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/function_schema.h>
#include <ATen/ops/empty.h>
#include <c10/core/StorageImpl.h>

#include "absl/container/flat_hash_map.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace fx {
namespace {

std::string describe(const Argument& arg) {
  return std::string(kind_name(arg.kind()));
}

absl::Status mismatch(const Argument& arg, const c10::TypePtr& type) {
  return absl::InvalidArgumentError(absl::StrCat("expected a value of type ", type->repr_str(),
                                                 " but got a ", describe(arg)));
}

absl::StatusOr<c10::IValue> infer(const Argument& arg, const NodeValueFn& node_value);

// The type all values share, if they are ints, floats, bools, strings or
// tensors; Any otherwise.
c10::TypePtr shared_type(const std::vector<c10::IValue>& values) {
  auto all = [&](bool (c10::IValue::*is)() const) {
    return !values.empty() &&
           std::all_of(values.begin(), values.end(), [is](const c10::IValue& v) { return (v.*is)(); });
  };
  if (all(&c10::IValue::isInt)) return c10::IntType::get();
  if (all(&c10::IValue::isDouble)) return c10::FloatType::get();
  if (all(&c10::IValue::isBool)) return c10::BoolType::get();
  if (all(&c10::IValue::isString)) return c10::StringType::get();
  if (all(&c10::IValue::isTensor)) return c10::TensorType::get();
  return c10::AnyType::get();
}

// A tuple of `values` as `arg` (a tuple) has them: a NamedTuple of its class
// when it is one. `type` is the tuple's type when known; a NamedTuple's
// type is otherwise made from its class, fields and the values' types.
c10::IValue make_tuple(const Argument& arg, std::vector<c10::IValue> values,
                       const c10::TupleTypePtr& type = nullptr) {
  if (type != nullptr && type->name()) {
    return c10::ivalue::Tuple::createNamed(std::move(values), type);
  }
  if (!arg.is_named_tuple() || arg.tuple_fields().size() != values.size()) {
    return c10::ivalue::Tuple::create(std::move(values));
  }
  std::vector<c10::TypePtr> types;
  for (const c10::IValue& v : values) types.push_back(v.type());
  return c10::ivalue::Tuple::createNamed(
      std::move(values),
      c10::TupleType::createNamed(torchscript_class_name(arg.tuple_type_name()),
                                  arg.tuple_fields(), types));
}

absl::StatusOr<c10::IValue> infer_list(const std::vector<Argument>& items,
                                       const NodeValueFn& node_value) {
  std::vector<c10::IValue> values;
  values.reserve(items.size());
  for (const Argument& a : items) {
    auto v = infer(a, node_value);
    if (!v.ok()) return v.status();
    values.push_back(std::move(*v));
  }
  const c10::TypePtr element = shared_type(values);  // before `values` is moved
  return make_typed_list(element, std::move(values));
}

absl::StatusOr<c10::IValue> infer(const Argument& arg, const NodeValueFn& node_value) {
  switch (arg.kind()) {
    case Argument::Kind::kNone:
      return c10::IValue();
    case Argument::Kind::kBool:
      return c10::IValue(arg.to_bool());
    case Argument::Kind::kInt:
      return c10::IValue(arg.to_int());
    case Argument::Kind::kDouble:
      return c10::IValue(arg.to_double());
    case Argument::Kind::kString:
      return c10::IValue(arg.to_string());
    case Argument::Kind::kNode:
      if (!node_value) return absl::InternalError("node reference without a value source");
      return node_value(arg.to_node());
    case Argument::Kind::kList:
      return infer_list(arg.elements(), node_value);
    case Argument::Kind::kTuple: {
      std::vector<c10::IValue> values;
      for (const Argument& a : arg.elements()) {
        auto v = infer(a, node_value);
        if (!v.ok()) return v.status();
        values.push_back(std::move(*v));
      }
      return make_tuple(arg, std::move(values));
    }
    case Argument::Kind::kDict: {
      std::vector<c10::IValue> values;
      for (const auto& [k, a] : arg.dict_items()) {
        auto v = infer(a, node_value);
        if (!v.ok()) return v.status();
        values.push_back(std::move(*v));
      }
      c10::impl::GenericDict d(c10::StringType::get(), shared_type(values));
      for (size_t i = 0; i < values.size(); ++i) d.insert(arg.dict_items()[i].first, values[i]);
      return c10::IValue(d);
    }
    case Argument::Kind::kDtype:
      return c10::IValue(static_cast<int64_t>(arg.to_dtype()));
    case Argument::Kind::kDevice:
      return c10::IValue(arg.to_device());
    case Argument::Kind::kLayout:
      return c10::IValue(static_cast<int64_t>(arg.to_layout()));
    case Argument::Kind::kMemoryFormat:
      return c10::IValue(static_cast<int64_t>(arg.to_memory_format()));
  }
  return absl::InternalError("unknown argument kind");
}

absl::StatusOr<c10::IValue> typed_list(const std::vector<Argument>& items,
                                       const c10::TypePtr& element,
                                       const NodeValueFn& node_value) {
  std::vector<c10::IValue> values;
  values.reserve(items.size());
  for (const Argument& a : items) {
    auto v = argument_to_ivalue(a, element, node_value);
    if (!v.ok()) return v.status();
    values.push_back(std::move(*v));
  }
  return make_typed_list(element, std::move(values));
}

}  // namespace

absl::StatusOr<c10::IValue> argument_to_ivalue(const Argument& arg, const c10::TypePtr& type,
                                               const NodeValueFn& node_value) {
  if (!type || type->kind() == c10::TypeKind::AnyType) return infer(arg, node_value);
  if (type->kind() == c10::TypeKind::OptionalType) {
    if (arg.is_none()) return c10::IValue();
    return argument_to_ivalue(arg, without_optional(type), node_value);
  }
  if (arg.is_node()) {
    auto v = node_value ? node_value(arg.to_node())
                        : absl::StatusOr<c10::IValue>(absl::InternalError("no node values"));
    if (!v.ok()) return v.status();
    // Ints are accepted where floats or Scalars are expected, as in Python.
    if (type->kind() == c10::TypeKind::FloatType && v->isInt()) return c10::IValue(double(v->toInt()));
    return v;
  }
  switch (type->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::ScalarTypeType:
    case c10::TypeKind::LayoutType:
    case c10::TypeKind::MemoryFormatType:
      if (arg.is_int()) return c10::IValue(arg.to_int());
      if (arg.is_bool()) return c10::IValue(int64_t{arg.to_bool()});
      if (arg.is_dtype()) return c10::IValue(static_cast<int64_t>(arg.to_dtype()));
      if (arg.is_layout()) return c10::IValue(static_cast<int64_t>(arg.to_layout()));
      if (arg.is_memory_format()) return c10::IValue(static_cast<int64_t>(arg.to_memory_format()));
      return mismatch(arg, type);
    case c10::TypeKind::FloatType:
      if (arg.is_double()) return c10::IValue(arg.to_double());
      if (arg.is_int()) return c10::IValue(static_cast<double>(arg.to_int()));
      return mismatch(arg, type);
    case c10::TypeKind::NumberType:
      if (arg.is_int()) return c10::IValue(arg.to_int());
      if (arg.is_double()) return c10::IValue(arg.to_double());
      if (arg.is_bool()) return c10::IValue(arg.to_bool());
      return mismatch(arg, type);
    case c10::TypeKind::BoolType:
      if (arg.is_bool()) return c10::IValue(arg.to_bool());
      return mismatch(arg, type);
    case c10::TypeKind::StringType:
      if (arg.is_string()) return c10::IValue(arg.to_string());
      return mismatch(arg, type);
    case c10::TypeKind::DeviceObjType:
      if (arg.is_device()) return c10::IValue(arg.to_device());
      if (arg.is_string()) return c10::IValue(c10::Device(arg.to_string()));
      return mismatch(arg, type);
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
      if (arg.is_sequence()) return typed_list(arg.elements(), element, node_value);
      return mismatch(arg, type);
    }
    case c10::TypeKind::TupleType: {
      if (!arg.is_sequence()) return mismatch(arg, type);
      const auto tuple_type = type->cast<c10::TupleType>();
      const auto& elements = tuple_type->elements();
      if (elements.size() != arg.elements().size()) return mismatch(arg, type);
      std::vector<c10::IValue> values;
      for (size_t i = 0; i < elements.size(); ++i) {
        auto v = argument_to_ivalue(arg.elements()[i], elements[i], node_value);
        if (!v.ok()) return v.status();
        values.push_back(std::move(*v));
      }
      return make_tuple(arg, std::move(values), tuple_type);
    }
    case c10::TypeKind::DictType: {
      if (!arg.is_dict()) return mismatch(arg, type);
      const auto& dict_type = type->expectRef<c10::DictType>();
      c10::impl::GenericDict d(dict_type.getKeyType(), dict_type.getValueType());
      for (const auto& [k, a] : arg.dict_items()) {
        auto v = argument_to_ivalue(a, dict_type.getValueType(), node_value);
        if (!v.ok()) return v.status();
        d.insert(k, std::move(*v));
      }
      return c10::IValue(d);
    }
    default:
      return infer(arg, node_value);
  }
}

Argument int_as_literal(int64_t value, const c10::TypePtr& type) {
  const c10::TypePtr t = without_optional(type);
  if (t) {
    switch (t->kind()) {
      case c10::TypeKind::ScalarTypeType:
        return static_cast<c10::ScalarType>(value);
      case c10::TypeKind::LayoutType:
        return static_cast<c10::Layout>(value);
      case c10::TypeKind::MemoryFormatType:
        return static_cast<c10::MemoryFormat>(value);
      default:
        break;
    }
  }
  return value;
}

absl::StatusOr<Argument> ivalue_to_argument(const c10::IValue& value, const c10::TypePtr& type) {
  if (value.isNone()) return Argument();
  if (value.isBool()) return Argument(value.toBool());
  if (value.isInt()) return int_as_literal(value.toInt(), type);
  if (value.isDouble()) return Argument(value.toDouble());
  if (value.isString()) return Argument(value.toStringRef());
  if (value.isDevice()) return Argument(value.toDevice());
  auto element_type = [&](size_t i) -> c10::TypePtr {
    const c10::TypePtr t = without_optional(type);
    if (!t) return nullptr;
    if (t->kind() == c10::TypeKind::ListType) return t->expectRef<c10::ListType>().getElementType();
    if (t->kind() == c10::TypeKind::TupleType) {
      const auto& els = t->expectRef<c10::TupleType>().elements();
      return i < els.size() ? els[i] : nullptr;
    }
    return nullptr;
  };
  if (value.isList()) {
    std::vector<Argument> items;
    const c10::List<c10::IValue> list = value.toList();
    for (size_t i = 0; i < list.size(); ++i) {
      auto a = ivalue_to_argument(list.get(i), element_type(i));
      if (!a.ok()) return a.status();
      items.push_back(std::move(*a));
    }
    return Argument::List(std::move(items));
  }
  if (value.isTuple()) {
    std::vector<Argument> items;
    const auto& elements = value.toTupleRef().elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      auto a = ivalue_to_argument(elements[i], element_type(i));
      if (!a.ok()) return a.status();
      items.push_back(std::move(*a));
    }
    if (auto named = named_tuple_of(value.toTupleRef().type())) {
      return Argument::NamedTuple(named->first, named->second, std::move(items));
    }
    return Argument::Tuple(std::move(items));
  }
  if (value.isGenericDict()) {
    Kwargs items;
    for (const auto& entry : value.toGenericDict()) {
      if (!entry.key().isString()) {
        return absl::InvalidArgumentError("a dict literal needs string keys, got " +
                                          entry.key().tagKind());
      }
      auto a = ivalue_to_argument(entry.value());
      if (!a.ok()) return a.status();
      items.emplace_back(entry.key().toStringRef(), std::move(*a));
    }
    return Argument::Dict(std::move(items));
  }
  return absl::InvalidArgumentError(absl::StrCat("a value of type ", value.type()->repr_str(),
                                                 " cannot be a graph literal"));
}

c10::TypePtr without_optional(const c10::TypePtr& type) {
  if (type && type->kind() == c10::TypeKind::OptionalType) {
    return type->expectRef<c10::OptionalType>().getElementType();
  }
  return type;
}

std::vector<c10::IValue> sequence_elements(const c10::IValue& sequence) {
  if (sequence.isTuple()) return sequence.toTupleRef().elements().vec();
  return sequence.toListRef().vec();
}

c10::IValue make_typed_list(const c10::TypePtr& element, std::vector<c10::IValue> values) {
  switch (element->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: {
      c10::List<int64_t> l;
      for (auto& v : values) l.push_back(v.toInt());
      return l;
    }
    case c10::TypeKind::FloatType: {
      c10::List<double> l;
      for (auto& v : values) l.push_back(v.toDouble());
      return l;
    }
    case c10::TypeKind::BoolType: {
      c10::List<bool> l;
      for (auto& v : values) l.push_back(v.toBool());
      return l;
    }
    case c10::TypeKind::TensorType: {
      c10::List<at::Tensor> l;
      for (auto& v : values) l.push_back(v.toTensor());
      return l;
    }
    default: {
      c10::impl::GenericList l(element);
      for (auto& v : values) l.push_back(std::move(v));
      return l;
    }
  }
}

bool type_contains_tensor(const c10::TypePtr& type) {
  if (!type) return false;
  if (type->kind() == c10::TypeKind::TensorType) return true;
  for (const c10::TypePtr& t : type->containedTypes()) {
    if (type_contains_tensor(t)) return true;
  }
  return false;
}

const void* storage_identity(const at::Tensor& t) {
  return t.has_storage() ? static_cast<const void*>(t.storage().unsafeGetStorageImpl())
                         : static_cast<const void*>(t.unsafeGetTensorImpl());
}

namespace {

using StorageCopies = absl::flat_hash_map<const c10::StorageImpl*, c10::Storage>;

at::Tensor copy_tensor(const at::Tensor& t, StorageCopies& copies) {
  if (!t.defined()) return t;
  if (t.layout() != c10::kStrided || !t.has_storage() || t.is_quantized() || t.is_conj() ||
      t.is_neg()) {
    return t.clone();
  }
  const c10::Storage& storage = t.storage();
  auto it = copies.find(storage.unsafeGetStorageImpl());
  if (it == copies.end()) {
    const int64_t bytes = static_cast<int64_t>(storage.nbytes());
    at::Tensor all = at::empty({0}, t.options().dtype(at::kByte));
    all.set_(storage, 0, {bytes}, {1});
    it = copies.emplace(storage.unsafeGetStorageImpl(), all.clone().storage()).first;
  }
  at::Tensor copy = at::empty({0}, t.options());
  copy.set_(it->second, t.storage_offset(), t.sizes(), t.strides());
  if (t.requires_grad()) copy.requires_grad_(true);
  return copy;
}

}  // namespace

c10::IValue map_tensors(const c10::IValue& v, const std::function<at::Tensor(const at::Tensor&)>& fn) {
  if (v.isTensor()) return fn(v.toTensor());
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& e : v.toTupleRef().elements()) items.push_back(map_tensors(e, fn));
    // A NamedTuple stays one (its type names the class and the fields).
    if (v.toTupleRef().type()->name()) {
      return c10::ivalue::Tuple::createNamed(std::move(items), v.toTupleRef().type());
    }
    return c10::ivalue::Tuple::create(std::move(items));
  }
  if (v.isList()) {
    c10::impl::GenericList out(v.toList().elementType());
    for (const c10::IValue& e : v.toListRef()) out.push_back(map_tensors(e, fn));
    return out;
  }
  if (v.isGenericDict()) {
    const auto d = v.toGenericDict();
    c10::impl::GenericDict out(d.keyType(), d.valueType());
    for (const auto& kv : d) out.insert(kv.key(), map_tensors(kv.value(), fn));
    return out;
  }
  return v;
}

c10::IValue deep_copy(const c10::IValue& value) {
  StorageCopies copies;
  return map_tensors(value, [&](const at::Tensor& t) { return copy_tensor(t, copies); });
}

std::vector<c10::IValue> deep_copy(const std::vector<c10::IValue>& values) {
  StorageCopies copies;
  std::vector<c10::IValue> out;
  out.reserve(values.size());
  for (const c10::IValue& v : values) {
    out.push_back(map_tensors(v, [&](const at::Tensor& t) { return copy_tensor(t, copies); }));
  }
  return out;
}

std::string torchscript_class_name(absl::string_view python_name) {
  return absl::StrCat("__torch__.", python_name);
}

std::optional<std::pair<std::string, std::vector<std::string>>> named_tuple_of(
    const c10::TypePtr& type) {
  const auto* tuple = type != nullptr ? type->castRaw<c10::TupleType>() : nullptr;
  if (tuple == nullptr || !tuple->name() || !tuple->schema()) return std::nullopt;
  absl::string_view name = tuple->name()->qualifiedName();
  absl::ConsumePrefix(&name, "__torch__.");
  std::vector<std::string> fields;
  for (const auto& field : tuple->schema()->arguments()) fields.push_back(field.name());
  return std::make_pair(std::string(name), std::move(fields));
}

}  // namespace fx
