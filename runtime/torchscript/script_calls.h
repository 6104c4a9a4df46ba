// Copyright 2026 The FX for C++ Authors.
//
// script_calls.h: calling TorchScript code from a graph: a leaf function
// (call_function of a TorchScript function the tracer did not enter, or of
// the model's code by name) or a TorchScript submodule's forward
// (call_module), with the overload the arguments fit, their lists and tuples
// typed as the schema declares, and TorchScript's exceptions turned into
// errors naming the node. node_calls.h's lookup_target finds the callee
// (NodeTarget::script); the Interpreter and the plan's first run choose and
// call; the plan's steps keep the choice. This is the only place the
// runtime calls TorchScript code; this header, node_calls.h and the plan hold
// the callables opaquely (their definition is script_callables.h's), so that
// the runtime's files parse no TorchScript header.
//
//   auto call = fx::choose_script_call(node, *target.script, args, kwargs);
//   absl::StatusOr<c10::IValue> v = fx::call_script(node, **call, args, kwargs);
//
// Contracts: errors name the node (node_calls.h's node_error); nothing
// throws.
#ifndef FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_
#define FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/node.h"
#include "runtime/graph_module.h"
#include "runtime/operator_binding.h"

namespace fx {

// The schemas of the leaf functions the tracer recorded for call_function
// `target` (`torch.nn.functional.batch_norm`'s parameters as Python declares
// them), one per overload TorchScript compiled; empty when there are none.
FX_API std::vector<const c10::FunctionSchema*> leaf_function_schemas(const GraphModule& gm,
                                                                    absl::string_view target);

// Whether the TorchScript code of `root` or of a module between it and the
// attribute `qualified_name` ("mem.prev") assigns that attribute anew
// (script_module.h's attributes_code_assigns): a call of that module may
// rebind it, and the call stores the new value into the module tree
// (Module::store_code_written), so a graph reads it at each run.
FX_API bool code_may_assign(const Module& root, absl::string_view qualified_name);

// One TorchScript callable: a function, or a module's method bound to the
// module's object (script_callables.h).
struct ScriptCall;

// The TorchScript code a node's target runs: one callable, or the overloads
// TorchScript compiled (once per Python overload; a module's `forward__0`,
// `forward__1`, ...), to choose from by the arguments.
struct FX_API ScriptCallee {
  std::vector<std::shared_ptr<const ScriptCall>> overloads;  // at least one
};

// The TorchScript code `node` runs, when its target is TorchScript code:
// call_function of a leaf function the tracer recorded or of a function of
// the model's code (by name); call_module of a submodule, whose code runs on
// its slots as they are now (script_module.h's torchscript_object). Null for
// any other target. Errors name the node: a submodule without TorchScript
// code, a method that is missing.
FX_API absl::StatusOr<std::shared_ptr<const ScriptCallee>> find_script_callee(
    const GraphModule& gm, const Node& node);

// The callable of `callee` these arguments fit: its only one, unchecked, or
// the first overload that binds them.
FX_API absl::StatusOr<std::shared_ptr<const ScriptCall>> choose_script_call(
    const Node& node, const ScriptCallee& callee, const std::vector<c10::IValue>& args,
    const IValueKwargs& kwargs);

// Whether `call` is a method that may change its module's attributes
// (attributes_code_assigns): such calls run one at a time, and store what
// they changed into the module tree after each.
FX_API bool rebinds_module_state(const ScriptCall& call);

// Whether call_module `node` of `gm` runs code that may change its module's
// attributes (the method the node calls: meta `_method`, or forward and its
// overloads): a side effect, so the call is never dropped or merged.
FX_API bool module_call_changes_state(const GraphModule& gm, const Node& node);

// Whether `gm`'s graph, or a graph submodule's, has such a call: host work a
// CUDA graph's replay would not do.
FX_API bool calls_code_that_changes_state(const GraphModule& gm);

// Runs `call`, turning TorchScript's exceptions into node errors.
FX_API absl::StatusOr<c10::IValue> call_script(const Node& node, const ScriptCall& call,
                                               std::vector<c10::IValue> args,
                                               const IValueKwargs& kwargs);
// Runs the callable of `callee` these arguments fit (choose_script_call).
FX_API absl::StatusOr<c10::IValue> call_script(const Node& node, const ScriptCallee& callee,
                                               std::vector<c10::IValue> args,
                                               const IValueKwargs& kwargs);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_
