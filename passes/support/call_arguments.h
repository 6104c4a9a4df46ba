// Copyright 2026 The FX for C++ Authors.
//
// call_arguments.h: a call's argument by schema position or keyword, for
// passes that read the operands of calls written either way
// (`aten::linear(x, w, b)`, `F.linear(x, weight=w)`).
//
//   const fx::Argument* weight = fx::argument_at(node, 1, "weight");
//
// Contract: reads the node only; nullptr when the argument is neither given
// at `index` nor as the keyword `name` (its default applies).
#ifndef FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_
#define FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_

#include <cstddef>

#include "absl/strings/string_view.h"
#include "core/node.h"

namespace fx {

inline const Argument* argument_at(const Node& n, size_t index, absl::string_view name) {
  if (index < n.args().size()) return &n.args()[index];
  return n.kwarg(name);
}

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_
