// Copyright 2026 The FX for C++ Authors.
//
// normalized_call.h: a call in the one spelling passes read, whatever level
// the graph spells it at: the ATen operator overload it computes, with its
// arguments by that overload's parameters (torch.fx's NormalizeArgs, for
// C++). The spellings it reads:
//
//   aten::batch_norm(x, w, b, m, v, False, 0.1, 1e-5, True)  an operator (any overload)
//   torch.batch_norm(...), torch._C._nn.linear(...)           torch's bindings of operators
//   x.relu()  (call_method), operator.add(x, y)              methods and Python operators
//   torch.nn.functional.batch_norm(x, m, v, w, b)            a leaf function traced from a
//                                                             .pt, by its TorchScript schema
//
//   std::optional<fx::NormalizedCall> c = fx::normalize_call(gm, node);
//   if (c && c->base_name() == "aten::batch_norm") { ... c->call.node_arg("running_mean") ... }
//
// Contracts: reads the graph, the module's leaf functions and the operator
// registry; changes nothing. Nothing (std::nullopt) unless the node computes
// exactly what the operator computes with those arguments:
//   * the overload is the only one the arguments fit (an int literal is no
//     dtype: `x.view(-1)` is not view.dtype), or of several the operator's
//     default overload where all of them take the values of unknown type as
//     the same types, as Python and the runtime choose it (a node with
//     tensor_meta is a tensor; one without may be anything, so `torch.add(a,
//     b)` of unknown values stays unnormalised: add.Tensor and add.int both
//     fit). Methods and Python operators are normalised only on a tensor with
//     tensor_meta (`operator.floordiv` of two sizes is an int's);
//   * a leaf function of torch.nn.functional maps to the operator of its name
//     only when its parameters are the operator's by name (`input` is the
//     operator's `self`), the parameters the operator lacks change nothing at
//     their defaults (`inplace=False`, `_stacklevel`, `return_indices=False`),
//     it returns what the operator returns (F.adaptive_max_pool2d returns one
//     tensor, aten's two) and it fits one overload alone. The leaf function's
//     defaults are what it passes for parameters not given (F.batch_norm's
//     momentum 0.1), and `cudnn_enabled`, which the functionals pass from
//     torch.backends.cudnn.enabled, is its default, True. Without its
//     TorchScript schema (a graph built in C++), a torch.nn.functional target
//     is read as the runtime runs it: the operator of its name. torch.functional's
//     functions (stft, which pads first; norm; split) are left alone.
#ifndef FX_PASSES_SUPPORT_NORMALIZED_CALL_H_
#define FX_PASSES_SUPPORT_NORMALIZED_CALL_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "core/export.h"
#include "core/graph.h"
#include "passes/support/call_arguments.h"
#include "runtime/graph_module.h"

namespace fx {

struct FX_API NormalizedCall {
  // The operator overload: `call.schema`'s name as graphs spell targets
  // ("aten::conv2d.padding", "aten::relu" for the default overload).
  std::string target;
  // Its arguments by parameter: the node's own Argument, or the value the
  // call passes without one (the operator's default, or the leaf function's).
  BoundCall call;

  // "aten::conv2d": the target without its overload.
  std::string base_name() const;
};

// `n` (call_function or call_method) as a call of one ATen operator
// overload, or nothing (see the file comment).
FX_API std::optional<NormalizedCall> normalize_call(const GraphModule& gm, const Node& n);

// Rewrites `n` into its normalised form: call_function of `call.target`,
// positional parameters as positional arguments (up to the last one not at
// the operator's default), keyword-only ones as keywords; the node keeps its
// name, users and meta. `call` must come from normalize_call(gm, n).
FX_API absl::Status rewrite_as_normalized(Node& n, const NormalizedCall& call);

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_NORMALIZED_CALL_H_
