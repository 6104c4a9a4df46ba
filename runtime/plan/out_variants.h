// Copyright 2026 The FX for C++ Authors.
//
// out_variants.h: the `.out` overload of a functional operator.
//
// Most of aten's functional operators have an overload that writes the same
// result into a tensor the caller provides (`aten::add.Tensor` has
// `aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)`).
// The execution plan calls them to write intermediate values into a
// preallocated arena (Static Runtime's memory planning). They are found from
// the schemas the dispatcher registered, not from a hand-kept list:
//
//   std::optional<BoundOperator> out = fx::find_out_variant(add_tensor_schema);
//
// Contracts:
//   * Only a functional operator has one: not mutable, one Tensor return with
//     no alias annotation, no argument with an alias annotation; and one with
//     a kernel of its own. A composite operator (CompositeImplicitAutograd:
//     aten::tensordot, aten::matmul) allocates through the operators it calls
//     whatever its caller passes, so its `.out` overload would only add a copy.
//   * The out overload has the same arguments (names and types, in order) plus
//     exactly one more, a keyword-only `Tensor(a!)`, and returns one Tensor.
//   * Thread-safe; results are cached per operator.
#ifndef FX_RUNTIME_PLAN_OUT_VARIANTS_H_
#define FX_RUNTIME_PLAN_OUT_VARIANTS_H_

#include <optional>

#include <ATen/core/function_schema.h>

#include "core/export.h"
#include "runtime/operator_binding.h"

namespace fx {

FX_API std::optional<BoundOperator> find_out_variant(const c10::FunctionSchema& functional);

// True when `schema` is functional as above: its one Tensor result is new,
// by its schema (an implementation may still return an input: callers that
// must know check the values).
FX_API bool is_functional_schema(const c10::FunctionSchema& schema);

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_OUT_VARIANTS_H_
