// Copyright 2026 The FX for C++ Authors.
//
// Between trace values and graph arguments. A value escapes into the graph
// when an operator, a leaf or the output takes it: known tensors become
// get_attr nodes (the module attribute they were read from, or a new tensor
// constant), lists become Argument lists, one result of a multi-result node
// becomes its `operator.getitem` node; every node is read at its newest version
// (AliasTracker::current).
#include "absl/strings/str_cat.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "tracer/torchscript/trace_engine.h"
#include "core/well_known.h"

namespace fx {
namespace tracer_internal {

void split_call_arguments(const std::vector<c10::Argument>& params, size_t first, bool vararg,
                          const std::vector<Argument>& values, Arguments* args, Kwargs* kwargs) {
  auto equals_default = [&](size_t i) {
    const size_t p = first + i;
    if (p >= params.size() || !params[p].default_value()) return false;
    auto d = ivalue_to_argument(*params[p].default_value(), params[p].real_type());
    return d.ok() && *d == values[i];
  };
  size_t positional = 0;
  while (first + positional < params.size() && !params[first + positional].kwarg_only()) {
    ++positional;
  }
  if (vararg) positional = values.size();
  size_t keep = std::min(positional, values.size());
  while (keep > 0 && equals_default(keep - 1)) --keep;
  for (size_t i = 0; i < keep; ++i) args->push_back(values[i]);
  for (size_t i = positional; i < values.size() && first + i < params.size(); ++i) {
    if (!equals_default(i)) kwargs->emplace_back(params[first + i].name(), values[i]);
  }
}

c10::optional<c10::IValue> TraceEngine::as_known(const TraceValue& v,
                                                 const c10::TypePtr& type) const {
  if (v.is_known()) return v.known_value();
  if (v.is_tuple()) {
    const auto* tuple_type = type ? type->castRaw<c10::TupleType>() : nullptr;
    std::vector<c10::IValue> items;
    const auto& elements = v.tuple_items();
    for (size_t i = 0; i < elements.size(); ++i) {
      auto c = as_known(elements[i], tuple_type != nullptr && i < tuple_type->elements().size()
                                         ? tuple_type->elements()[i]
                                         : nullptr);
      if (!c) return c10::nullopt;
      items.push_back(std::move(*c));
    }
    if (v.tuple_type() != nullptr) {
      return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(items), v.tuple_type()));
    }
    return c10::IValue(c10::ivalue::Tuple::create(std::move(items)));
  }
  if (v.is_dict()) {
    const auto* dict_type = type ? type->castRaw<c10::DictType>() : nullptr;
    if (dict_type == nullptr) return c10::nullopt;
    c10::impl::GenericDict dict(dict_type->getKeyType(), dict_type->getValueType());
    for (const auto& [key, value] : v.dict_items()) {
      auto c = as_known(value, dict_type->getValueType());
      if (!c) return c10::nullopt;
      dict.insert_or_assign(key, std::move(*c));
    }
    return c10::IValue(dict);
  }
  if (!v.is_list()) return c10::nullopt;
  c10::TypePtr element = c10::AnyType::get();
  if (type && type->kind() == c10::TypeKind::ListType) {
    element = type->expectRef<c10::ListType>().getElementType();
  }
  std::vector<c10::IValue> items;
  for (const TraceValue& item : v.list_items()) {
    auto c = as_known(item, element);
    if (!c) return c10::nullopt;
    items.push_back(std::move(*c));
  }
  c10::impl::GenericList generic(element);
  for (auto& i : items) generic.push_back(std::move(i));
  auto typed = coerce_to_type(c10::IValue(generic), type ? type : c10::ListType::ofTensors());
  if (typed.ok()) return *typed;
  return c10::IValue(generic);
}

Node* TraceEngine::result_node(Node* node, int index) {
  node = aliases_.current(node);
  auto key = std::make_pair(node, index);
  auto it = results_.find(key);
  if (it != results_.end()) return it->second;
  Node* item = tracer_.create_proxy(Op::kCallFunction, kGetItemTarget, {node, index}, {});
  // An element of a list of views (aten::chunk) is a view of the same base.
  aliases_.record_element(item, node);
  results_.emplace(key, item);
  return item;
}

absl::StatusOr<Argument> TraceEngine::known_to_argument(const c10::IValue& v,
                                                        const c10::TypePtr& type,
                                                        const std::string* attribute) {
  if (v.isTensor()) {
    if (attribute != nullptr) return Argument(parameter_node(*attribute));
    return Argument(tensor_constant_node(v.toTensor()));
  }
  if ((v.isList() || v.isTuple()) && type_contains_tensor(v.type())) {
    std::vector<Argument> items;
    for (const c10::IValue& e : sequence_elements(v)) {
      auto a = known_to_argument(e, nullptr, nullptr);
      if (!a.ok()) return a.status();
      items.push_back(std::move(*a));
    }
    if (!v.isTuple()) return Argument::List(std::move(items));
    if (auto named = named_tuple_of(v.toTupleRef().type())) {
      return Argument::NamedTuple(named->first, named->second, std::move(items));
    }
    return Argument::Tuple(std::move(items));
  }
  return ivalue_to_argument(v, type);
}

c10::optional<Argument> TraceEngine::python_number_constant(const TraceValue& v,
                                                            const c10::FunctionSchema& schema,
                                                            size_t param) const {
  if (!v.is_known() || v.as_known().attribute != nullptr) return c10::nullopt;
  const auto& params = schema.arguments();
  if (param >= params.size() || params[param].name() != "other" || schema.overload_name() != "Tensor") {
    return c10::nullopt;
  }
  const std::string& name = schema.name();
  if (name != "aten::add" && name != "aten::sub" && name != "aten::mul" && name != "aten::div") {
    return c10::nullopt;
  }
  const c10::IValue& value = v.known_value();
  if (!value.isTensor()) return c10::nullopt;
  const at::Tensor& t = value.toTensor();
  if (!t.defined() || t.dim() != 0 || !t.device().is_cpu() || t.requires_grad() ||
      t.layout() != c10::kStrided) {
    return c10::nullopt;
  }
  // The dtypes a Python number becomes: float, int, bool.
  switch (t.scalar_type()) {
    case c10::ScalarType::Double: return Argument(t.item<double>());
    case c10::ScalarType::Long: return Argument(t.item<int64_t>());
    case c10::ScalarType::Bool: return Argument(t.item<bool>());
    default: return c10::nullopt;
  }
}

absl::StatusOr<Argument> TraceEngine::to_argument(const TraceValue& v, const c10::TypePtr& type) {
  if (v.is_traced()) return aliases_.current(v.traced_argument());
  if (v.is_result()) return Argument(result_node(v.result_of().node, v.result_of().index));
  if (v.is_known()) return known_to_argument(v.known_value(), type, v.as_known().attribute);
  if (v.is_module()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module '", v.module_info()->qualname, "' (", v.module_info()->cls->type_name,
        ") is used as a value; only calling modules can be traced"));
  }
  if (v.is_list()) {
    c10::TypePtr element;
    if (type && type->kind() == c10::TypeKind::ListType) {
      element = type->expectRef<c10::ListType>().getElementType();
    }
    std::vector<Argument> items;
    for (const TraceValue& item : v.list_items()) {
      auto a = to_argument(item, element);
      if (!a.ok()) return a.status();
      items.push_back(std::move(*a));
    }
    return Argument::List(std::move(items));
  }
  if (v.is_tuple()) return tuple_to_argument(v.tuple_items(), v.tuple_type() ? v.tuple_type() : type);
  if (v.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an object of TorchScript class ", v.object_type()->repr_str(),
        " is used as a value; only its methods and attributes can be traced"));
  }
  // A dict: string keys (a graph's dicts are Python's keyword-style dicts).
  const auto* dict_type = type ? type->castRaw<c10::DictType>() : nullptr;
  Kwargs items;
  for (const auto& [key, value] : v.dict_items()) {
    if (!key.isString()) {
      return absl::InvalidArgumentError(
          "a dict with keys that are not strings cannot be a value of the graph");
    }
    auto a = to_argument(value, dict_type != nullptr ? dict_type->getValueType() : nullptr);
    if (!a.ok()) return a.status();
    items.emplace_back(key.toStringRef(), std::move(*a));
  }
  return Argument::Dict(std::move(items));
}

TraceValue TraceEngine::from_argument(const Argument& a, const c10::TypePtr& type) {
  if (!a.contains_node()) {
    auto v = argument_to_ivalue(a, type);
    if (v.ok()) return TraceValue::known(std::move(*v));
    auto inferred = argument_to_ivalue(a, nullptr);
    return TraceValue::known(inferred.ok() ? std::move(*inferred) : c10::IValue());
  }
  // Containers of graph values (a caller's list of tensors, a backbone's dict
  // of features) become containers of the trace, so the code can take them
  // apart with known lengths and keys.
  const c10::TypePtr t = without_optional(type);
  auto element_type = [&](size_t i) -> c10::TypePtr {
    if (!t) return nullptr;
    if (t->kind() == c10::TypeKind::ListType) return t->expectRef<c10::ListType>().getElementType();
    if (t->kind() == c10::TypeKind::TupleType) {
      const auto& elements = t->expectRef<c10::TupleType>().elements();
      return i < elements.size() ? elements[i] : nullptr;
    }
    if (t->kind() == c10::TypeKind::DictType) return t->expectRef<c10::DictType>().getValueType();
    return nullptr;
  };
  if (a.is_sequence()) {
    std::vector<TraceValue> items;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      items.push_back(from_argument(a.elements()[i], element_type(i)));
    }
    if (a.is_list()) return TraceValue::list(std::move(items));
    auto named = t ? t->cast<c10::TupleType>() : nullptr;
    return TraceValue::tuple(std::move(items), named && named->name() ? named : nullptr);
  }
  if (a.is_dict()) {
    std::vector<std::pair<c10::IValue, TraceValue>> items;
    for (const auto& [key, value] : a.dict_items()) {
      items.emplace_back(c10::IValue(key), from_argument(value, element_type(0)));
    }
    return TraceValue::dict(std::move(items));
  }
  return TraceValue::traced(a);
}

}  // namespace tracer_internal
}  // namespace fx
