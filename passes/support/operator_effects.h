// Copyright 2026 The FX for C++ Authors.
//
// operator_effects.h: what a call may do to its operands' storage, as passes
// that move, merge or re-lay-out values must know (cse, mkldnn_layout).
//
//   fx::result_may_alias_operands(*graph.find_node("view"))   // true: a view
//   fx::result_may_alias_operands(*graph.find_node("relu"))   // false: fresh
//
// Contracts: looks operators up in libtorch's registry (no graph state);
// thread-safe. Conservative: what cannot be seen into (modules, Python
// functions, operators libtorch lacks) may alias.
#ifndef FX_PASSES_SUPPORT_OPERATOR_EFFECTS_H_
#define FX_PASSES_SUPPORT_OPERATOR_EFFECTS_H_

#include "core/export.h"
#include "core/node.h"

namespace fx {

// Whether the result of `node` may share storage with one of its operands: a
// view or in-place result (the schema's alias annotation, of the exact
// overload or, without one, of any), an operator that returns an input
// without saying so (runtime/operator_aliasing.h: type_as, eval dropout),
// and everything that is not an ATen operator (getitem of a list of views,
// Python functions, modules). The output node only reads: false.
FX_API bool result_may_alias_operands(const Node& node);

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_OPERATOR_EFFECTS_H_
