// Copyright 2026 The FX for C++ Authors.
//
// operator_targets.h: what operator a call_function or call_method node
// means, whatever level its target is spelled at, for passes that compare or
// classify nodes (cse, rewrite).
//
// The same operation reaches a graph under several spellings: a TorchScript
// trace records `aten::relu` and `aten::add.Tensor`, a torch.export program
// `aten::relu` (read from `torch.ops.aten.relu.default`), C++ code traced
// through Proxies `torch.relu`, call_method `relu` or `operator.add`:
//
//   fx::operator_base_name(Op::kCallFunction, "torch.relu")                // "aten::relu"
//   fx::operator_base_name(Op::kCallFunction, "torch.nn.functional.relu")  // itself: a Python
//                                                                           // function
//   fx::operator_base_name(Op::kCallMethod, "relu")                        // "aten::relu"
//   fx::operator_base_name(Op::kCallFunction, "operator.add")              // "aten::add"
//   fx::operator_base_name(Op::kCallFunction, "aten::add.Tensor")          // "aten::add"
//   fx::operator_overload(Op::kCallFunction, "aten::add.Tensor")           // "Tensor"
//
// Contracts: pure functions of the strings (no operator registry lookup);
// thread-safe. A target that names no operator (a leaf function
// `__torch__.clip`, `operator.getitem`, `getattr`) maps to itself.
#ifndef FX_PASSES_SUPPORT_OPERATOR_TARGETS_H_
#define FX_PASSES_SUPPORT_OPERATOR_TARGETS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/node.h"

namespace fx {

// The qualified operator name without overload (`aten::relu`) a call_function
// or call_method target means; the target itself when it names no operator.
// Python operators map to the first aten operator of their table entry
// (core/python_operators.def); those the runtime computes natively (getitem,
// pos, not_) keep their name.
FX_API std::string operator_base_name(Op op, absl::string_view target);

// The overload an `ns::name.overload` call_function target names; "" for any
// other target (which leaves the overload to the arguments).
FX_API absl::string_view operator_overload(Op op, absl::string_view target);

// True when the target names an operator by its schema (`ns::name` or
// `ns::name.overload`, call_function), or a torch function or tensor method
// that operator_base_name maps to `aten::<name>`.
FX_API bool names_aten_operator(Op op, absl::string_view target);

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_OPERATOR_TARGETS_H_
