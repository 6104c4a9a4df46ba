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
#include "tracer/trace_engine.h"
#include "core/well_known.h"

namespace fx {
namespace tracer_internal {

c10::optional<c10::IValue> TraceEngine::as_known(const TraceValue& v,
                                                 const c10::TypePtr& type) const {
  if (v.is_known()) return v.known_value();
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
    return v.isTuple() ? Argument::Tuple(std::move(items)) : Argument::List(std::move(items));
  }
  return ivalue_to_argument(v, type);
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
  return absl::InternalError("a container kind the tracer does not convert yet");
}

TraceValue TraceEngine::from_argument(const Argument& a, const c10::TypePtr& type) {
  if (a.contains_node()) return TraceValue::traced(a);
  auto v = argument_to_ivalue(a, type);
  if (v.ok()) return TraceValue::known(std::move(*v));
  auto inferred = argument_to_ivalue(a, nullptr);
  return TraceValue::known(inferred.ok() ? std::move(*inferred) : c10::IValue());
}

}  // namespace tracer_internal
}  // namespace fx
