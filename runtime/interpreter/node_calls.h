// Copyright 2026 The FX for C++ Authors.
//
// node_calls.h: what running one node means, shared by the two executors.
//
// The Interpreter (interpreter.h: overridable, node by node) and the
// ExecutionPlan (execution_plan.h: compiled, fast) must agree on every node's
// meaning, so both read it from here:
//
//   NodeTarget target = *lookup_target(gm, node);    // once per node
//   if (target.builtin != Builtin::kNone) ... run_builtin(node, target.builtin, args);
//   ResolvedCall call = *resolve_call(node, args, kwargs);  // Python-level targets
//   c10::IValue out = *call_operator(node, call, args, kwargs);
//
// Contracts:
//   * `lookup_target` does the work that needs no argument values: the exact
//     operator of an `ns::op.overload` target, the leaf functions the tracer
//     recorded, the submodule's forward (or its overloads), a get_attr's value.
//   * TorchScript code (leaf functions, submodules' forwards) is held
//     opaquely: runtime/torchscript/script_calls.h finds and calls it, and
//     this header includes no TorchScript header.
//   * `resolve_call` picks, from the first call's argument values, the aten
//     overload a Python-level target (`operator.add`, `torch.exp`, call_method
//     `view`) means, as Python would; the result depends only on the argument
//     types, so callers cache it per input signature.
//   * Every error names the node and its target (`node_error`).
#ifndef FX_RUNTIME_INTERPRETER_NODE_CALLS_H_
#define FX_RUNTIME_INTERPRETER_NODE_CALLS_H_

#include <memory>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/node.h"
#include "runtime/graph_module.h"
#include "runtime/operator_binding.h"

namespace fx {

class ExecutionPlan;
struct PlanOptions;
// TorchScript code a node calls (runtime/torchscript/script_calls.h): opaque here.
struct ScriptCallee;

// call_function targets run natively rather than by an operator.
enum class Builtin {
  kNone,
  kGetItem,
  kNot,
  kPos,
  kGetAttr,
  kAssert,
  kAssertIsNone,
  kAssertIsNotNone,
  // aten::_assert_tensor_metadata (torch.export records one before each
  // `.to(dtype)`), checked here as libtorch 2.x checks it, so that programs of
  // any torch run on every libtorch (1.13's has no `device` or `layout`).
  kAssertTensorMetadata,
};

// The builtin `target` names, or kNone.
FX_API Builtin builtin_for(absl::string_view target);

// For an operator target the runtime runs as a builtin
// (aten::_assert_tensor_metadata), its schema as libtorch 2.x declares it,
// whatever this libtorch's says: the .pt2 reader and writer name its
// arguments by it. nullptr for any other target.
FX_API const c10::FunctionSchema* builtin_schema(absl::string_view target);

// Runs a builtin on evaluated arguments; only kAssertTensorMetadata takes
// keyword arguments.
FX_API absl::StatusOr<c10::IValue> run_builtin(const Node& node, Builtin builtin,
                                               std::vector<c10::IValue>& args,
                                               const IValueKwargs& kwargs = {});

// A Python number as the 0-dim "wrapped number" tensor torch makes of it.
FX_API c10::IValue wrap_number(const c10::IValue& number);

// "node 'add_1' (aten::add.Tensor): <message>".
FX_API absl::Status node_error(const Node& node, absl::string_view message);

// Checks a caller's input against a placeholder's TorchScript type, when the
// tracer recorded one (meta `_torchscript_type`) or the node is annotated
// `torch.Tensor`. `index` is the input's position, for the message.
FX_API absl::Status check_input_type(const Node& node, size_t index, const c10::IValue& value);

// What a node's target is, as far as it can be known without argument values.
struct FX_API NodeTarget {
  Builtin builtin = Builtin::kNone;
  // An `ns::op.overload` target: its operator.
  bool exact = false;
  BoundOperator op;
  // call_function of a TorchScript function (a leaf function) and
  // call_module of a submodule with TorchScript code: the function or the
  // forward, or the overloads to choose from by the arguments
  // (script_calls.h's choose_script_call); null for other targets.
  std::shared_ptr<const ScriptCallee> script;
  // call_module of a graph submodule (GraphModule::graph_submodule): the
  // module, and the plan that runs it (compiled by the executor, for its
  // device: `compile_graph_submodule`).
  const GraphModule* graph_module = nullptr;
  std::shared_ptr<const ExecutionPlan> graph_module_plan;
  // get_attr: the value, read once; or, for an attribute a module's code may
  // rebind when called (script_module.h's code_may_assign), the module that
  // holds it and its name, to read at each run (read_attribute).
  c10::IValue attr;
  std::shared_ptr<const Module> attr_owner;
  std::string attr_name;
};

// The value of get_attr `node`'s target now: `target.attr`, or what its
// owner holds now. Errors name the node.
FX_API absl::StatusOr<c10::IValue> read_attribute(const Node& node, const NodeTarget& target);

// Looks up `node`'s target in `gm`. Errors name the node and what is missing.
FX_API absl::StatusOr<NodeTarget> lookup_target(const GraphModule& gm, const Node& node);

// Compiles the plan of a call_module node's graph submodule, when it calls
// one, into `target.graph_module_plan`. Errors name the node.
FX_API absl::Status compile_graph_submodule(const Node& node, NodeTarget& target,
                                            const PlanOptions& options);

// Runs a graph submodule's plan on a call_module node's arguments (no
// keyword arguments: a GraphModule's inputs are positional).
FX_API absl::StatusOr<c10::IValue> call_graph_module(const Node& node, const ExecutionPlan& plan,
                                                     std::vector<c10::IValue> args,
                                                     const IValueKwargs& kwargs);

// An operator chosen for a call_function or call_method node, and how the
// node's arguments map onto it.
struct FX_API ResolvedCall {
  BoundOperator op;
  bool swap_operands = false;  // `2 + x` runs as add(x, 2)
  bool wrap_first = false;     // `2 - x` runs as sub(tensor(2), x)
  // An exact overload given Python numbers where it takes tensors
  // (`aten::add.Tensor(x, 1)`, as torch.export's graphs hold them): each
  // such number becomes a 0-dim wrapped-number tensor, as torch's Python
  // binding makes it (so it promotes as a scalar).
  bool wrap_numbers = false;
};

// The operator a Python-level target means for these argument values.
FX_API absl::StatusOr<ResolvedCall> resolve_call(const Node& node,
                                                 const std::vector<c10::IValue>& args,
                                                 const IValueKwargs& kwargs);

// Whether a number passed to `param` is wrapped when `call.wrap_numbers`.
FX_API bool takes_wrapped_number(const c10::Argument& param);

// `args` rearranged as `call` says (operands swapped, a number wrapped).
FX_API void adjust_arguments(const ResolvedCall& call, std::vector<c10::IValue>& args);

// The node's value from an operator's stack after it ran: its one return, a
// tuple of several, or None.
FX_API c10::IValue take_returns(const c10::FunctionSchema& schema, torch::jit::Stack& stack);

// Binds and runs `call` on the arguments; the node's value. `called_with`,
// when given, receives the operator's stack (schema order) as it was passed.
FX_API absl::StatusOr<c10::IValue> call_operator(const Node& node, const ResolvedCall& call,
                                                 std::vector<c10::IValue> args,
                                                 const IValueKwargs& kwargs,
                                                 torch::jit::Stack* called_with = nullptr);

}  // namespace fx

#endif  // FX_RUNTIME_INTERPRETER_NODE_CALLS_H_
