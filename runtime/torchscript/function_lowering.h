// Copyright 2026 The FX for C++ Authors.
//
// function_lowering.h: leaf TorchScript functions replaced, where their
// literal arguments decide every branch, by the operator calls they make.
//
// A leaf function (the tracer keeps `torch.functional.tensordot`, a user's
// `@torch.fx.wrap` function, ... as one call_function node) runs through its
// TorchScript body: the function executor, and branches on what kind of
// arguments it got. In real graphs those arguments are mostly literals:
//
//   tensordot = torch.functional.tensordot(einsum_1, reshape_9, dims = ([1, 2], [1, 0]))
//
// Partial evaluation of the body with the literals bound (TorchScript's own
// inlining, constant propagation and dead-code elimination) leaves one call:
//
//   tensordot = aten::tensordot(einsum_1, reshape_9, [1, 2], [1, 0])
//
// which the execution plan runs as an operator: its stack prebuilt, its
// result planned in the arena through its `.out` overload.
//
// Contracts:
//   * A node is lowered only when the result computes exactly what the body
//     computes: after binding the literals, the body is straight-line (no
//     branch or loop left), every remaining call is a registered operator with
//     a schema, none has side effects (raise, warn, print) or writes to a
//     non-tensor value, and the function's result is one of those calls'
//     results. Anything else keeps its call, unchanged.
//   * Tensor arguments must be nodes; a node bound to a parameter stays an
//     input of the lowered calls, whatever its value at run time.
//   * The lowered node keeps its name and meta (errors still name it); calls
//     the body makes before the last are new nodes inserted before it.
//   * With several TorchScript overloads for a target, a node is lowered only
//     when its literals fit exactly one.
#ifndef FX_RUNTIME_TORCHSCRIPT_FUNCTION_LOWERING_H_
#define FX_RUNTIME_TORCHSCRIPT_FUNCTION_LOWERING_H_

#include <cstddef>

#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {

// Lowers every leaf-function call of `gm`'s graph that can be (see above);
// returns how many. Never fails: a call that cannot be lowered stays a call.
FX_API size_t lower_leaf_functions(GraphModule& gm);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_FUNCTION_LOWERING_H_
