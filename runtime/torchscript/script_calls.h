// Copyright 2026 The FX for C++ Authors.
//
// script_calls.h: calling TorchScript code from a graph: a leaf function
// (call_function of a TorchScript function the tracer did not enter) or a
// TorchScript submodule's forward (call_module), with the overload the
// arguments fit, their lists and tuples typed as the schema declares, and
// TorchScript's exceptions turned into errors naming the node. The
// Interpreter and the plan's first run call these; the plan's steps keep the
// choice.
//
//   auto fn = fx::choose_function(node, target.function_overloads, args, kwargs);
//   absl::StatusOr<c10::IValue> v = fx::call_function_body(node, **fn, args, kwargs);
//
// Contracts: errors name the node (node_calls.h's node_error); nothing
// throws.
#ifndef FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_
#define FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_

#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "core/node.h"
#include "runtime/operator_binding.h"

namespace fx {

// TorchScript checks a call's values against the declared types exactly: a
// list a caller gave or the graph built (List[Any]) is no `List[Tensor]`.
// Gives list and tuple values in `args` and `kwargs` the types `schema`
// declares where Python would accept them there (coerce_to_type); what does
// not fit is left for TorchScript to refuse. `first` is the schema parameter
// `args[0]` fills (1 past a method's self). Returns the kwargs, typed.
FX_API torch::jit::Kwargs coerce_to_schema(const c10::FunctionSchema& schema, size_t first,
                                           std::vector<c10::IValue>& args,
                                           const IValueKwargs& kwargs = {});

// The TorchScript overload of a leaf function, or of a submodule's forward,
// that accepts these arguments.
FX_API absl::StatusOr<torch::jit::Function*> choose_function(
    const Node& node, const std::vector<torch::jit::Function*>& overloads,
    const std::vector<c10::IValue>& args, const IValueKwargs& kwargs);
FX_API absl::StatusOr<torch::jit::Method> choose_method(
    const Node& node, const std::vector<torch::jit::Method>& overloads,
    const std::vector<c10::IValue>& args, const IValueKwargs& kwargs);

// Runs a TorchScript function or method, turning exceptions into node errors.
FX_API absl::StatusOr<c10::IValue> call_function_body(const Node& node,
                                                      torch::jit::Function& function,
                                                      std::vector<c10::IValue> args,
                                                      const IValueKwargs& kwargs);
FX_API absl::StatusOr<c10::IValue> call_method_body(const Node& node,
                                                    const torch::jit::Method& method,
                                                    std::vector<c10::IValue> args,
                                                    const IValueKwargs& kwargs);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLS_H_
