// Copyright 2026 The FX for C++ Authors.
//
// trace_value.h: what a TorchScript value is while the tracer walks a graph.
// Internal to //tracer.
//
// The tracer runs TorchScript method graphs the way Python runs `forward`
// while torch.fx traces it: some values are known (module attributes,
// constants, sizes computed from them), others stand for tensors the graph
// computes (torch.fx's Proxies). A TraceValue is one of:
//
//   Known        an IValue known at trace time (`self.training`, 3, "nearest",
//                a tensor constant); `attribute` names the module attribute it
//                was read from, when it was;
//   Traced       a value of the graph being built: an Argument holding Nodes
//                (a node, or a tuple/list/dict of nodes and literals); `now`
//                is its value while tracing when that is known although the
//                graph computes it at run time (a parameter, its dtype, the
//                grad mode): a condition on it is decided by that value, and
//                the graph checks the condition still holds;
//   Module       a module of the hierarchy (`self.layer1`), which can be called
//                or have attributes read, but is not a value of the graph;
//   List         a mutable list built in the code (`out = []`, `out.append(x)`),
//                shared by every name bound to it, as Python lists are;
//   Dict         a mutable dict built in the code (`d = {}`, `d["a"] = x`),
//                with the same sharing, keys in insertion order;
//   Tuple        a tuple built in the code, elements kept as trace values
//                (a tuple of modules and lists unpacks back to them); `type`
//                is its NamedTuple type when it is one;
//   Object       an object of a TorchScript class made in the code (the
//                context manager of `with torch.no_grad():`), its attributes
//                as trace values, shared by every name bound to it;
//   NodeResult   result `index` of a node with several results (`values,
//                indices = x.max(1)`): becomes an `operator.getitem` node only
//                when used on its own.
//
// TraceValues are cheap to copy; List and Dict copies share their storage.
#ifndef FX_TRACER_TORCHSCRIPT_TRACE_VALUE_H_
#define FX_TRACER_TORCHSCRIPT_TRACE_VALUE_H_

#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/argument.h"
#include "core/node.h"
#include "tracer/module_info.h"
#include "tracer/module_ref.h"

namespace fx {
namespace tracer_internal {

class TraceValue;

struct Known {
  c10::IValue value;
  // The qualified name of the module attribute the value was read from
  // (tensors only; owned by the engine), or nullptr.
  const std::string* attribute = nullptr;
};

struct Traced {
  Argument argument;  // holds at least one Node
  c10::optional<c10::IValue> now;
};

struct ModuleValue {
  const ModuleInfo* module = nullptr;
};

struct ListValue {
  std::shared_ptr<std::vector<TraceValue>> items;
};

struct DictValue {
  // Keys are known values (strings, ints, ...); in insertion order.
  std::shared_ptr<std::vector<std::pair<c10::IValue, TraceValue>>> items;
};

struct TupleValue {
  std::shared_ptr<const std::vector<TraceValue>> items;
  c10::TupleTypePtr type;  // a NamedTuple's type, or nullptr
};

struct ObjectValue {
  c10::ClassTypePtr type;
  std::shared_ptr<std::vector<TraceValue>> slots;  // by attribute slot
};

struct NodeResult {
  Node* node = nullptr;
  int index = 0;
};

class TraceValue {
 public:
  // None (a known value).
  TraceValue() : value_(Known{}) {}

  static TraceValue known(c10::IValue value, const std::string* attribute = nullptr) {
    return TraceValue(Known{std::move(value), attribute});
  }
  static TraceValue traced(Argument argument, c10::optional<c10::IValue> now = c10::nullopt) {
    return TraceValue(Traced{std::move(argument), std::move(now)});
  }
  static TraceValue module(const ModuleInfo* module) { return TraceValue(ModuleValue{module}); }
  static TraceValue list(std::vector<TraceValue> items) {
    return TraceValue(ListValue{std::make_shared<std::vector<TraceValue>>(std::move(items))});
  }
  static TraceValue dict(std::vector<std::pair<c10::IValue, TraceValue>> items = {}) {
    return TraceValue(DictValue{
        std::make_shared<std::vector<std::pair<c10::IValue, TraceValue>>>(std::move(items))});
  }
  static TraceValue tuple(std::vector<TraceValue> items, c10::TupleTypePtr named = nullptr) {
    return TraceValue(TupleValue{std::make_shared<const std::vector<TraceValue>>(std::move(items)),
                                 std::move(named)});
  }
  static TraceValue object(c10::ClassTypePtr type) {
    const size_t slots = type->numAttributes();
    return TraceValue(ObjectValue{std::move(type), std::make_shared<std::vector<TraceValue>>(slots)});
  }
  static TraceValue result(Node* node, int index) { return TraceValue(NodeResult{node, index}); }

  bool is_known() const { return std::holds_alternative<Known>(value_); }
  bool is_traced() const { return std::holds_alternative<Traced>(value_); }
  bool is_module() const { return std::holds_alternative<ModuleValue>(value_); }
  bool is_list() const { return std::holds_alternative<ListValue>(value_); }
  bool is_dict() const { return std::holds_alternative<DictValue>(value_); }
  bool is_tuple() const { return std::holds_alternative<TupleValue>(value_); }
  bool is_result() const { return std::holds_alternative<NodeResult>(value_); }
  bool is_object() const { return std::holds_alternative<ObjectValue>(value_); }

  // Accessors; each requires the matching alternative.
  const Known& as_known() const { return std::get<Known>(value_); }
  const c10::IValue& known_value() const { return std::get<Known>(value_).value; }
  const Argument& traced_argument() const { return std::get<Traced>(value_).argument; }
  // The value while tracing of a traced value, when known (see Traced).
  const c10::optional<c10::IValue>& traced_now() const { return std::get<Traced>(value_).now; }
  const ModuleInfo* module_info() const { return std::get<ModuleValue>(value_).module; }
  std::vector<TraceValue>& list_items() const { return *std::get<ListValue>(value_).items; }
  std::vector<std::pair<c10::IValue, TraceValue>>& dict_items() const {
    return *std::get<DictValue>(value_).items;
  }
  const std::vector<TraceValue>& tuple_items() const { return *std::get<TupleValue>(value_).items; }
  // The NamedTuple type of a tuple, or nullptr.
  const c10::TupleTypePtr& tuple_type() const { return std::get<TupleValue>(value_).type; }
  const c10::ClassTypePtr& object_type() const { return std::get<ObjectValue>(value_).type; }
  std::vector<TraceValue>& object_slots() const { return *std::get<ObjectValue>(value_).slots; }
  const NodeResult& result_of() const { return std::get<NodeResult>(value_); }

  // True for a known None.
  bool is_none() const { return is_known() && known_value().isNone(); }
  // The same storage (lists and dicts), for `is`.
  bool same_container(const TraceValue& other) const;

 private:
  using Variant = std::variant<Known, Traced, ModuleValue, ListValue, DictValue, TupleValue,
                               NodeResult, ObjectValue>;
  template <typename T>
  explicit TraceValue(T value) : value_(std::move(value)) {}
  Variant value_;
};

inline bool TraceValue::same_container(const TraceValue& other) const {
  if (is_list() && other.is_list()) {
    return std::get<ListValue>(value_).items == std::get<ListValue>(other.value_).items;
  }
  if (is_dict() && other.is_dict()) {
    return std::get<DictValue>(value_).items == std::get<DictValue>(other.value_).items;
  }
  if (is_object() && other.is_object()) {
    return std::get<ObjectValue>(value_).slots == std::get<ObjectValue>(other.value_).slots;
  }
  return false;
}

}  // namespace tracer_internal
}  // namespace fx

#endif  // FX_TRACER_TORCHSCRIPT_TRACE_VALUE_H_
