// Copyright 2026 The FX for C++ Authors.
#include "passes/support/operator_effects.h"

#include <string>
#include <vector>

#include "passes/support/operator_targets.h"
#include "runtime/operator_aliasing.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

bool returns_an_alias(const c10::FunctionSchema& schema) {
  if (schema.is_mutable()) return true;  // in place or out=: returns what it wrote
  for (const c10::Argument& ret : schema.returns()) {
    if (ret.alias_info() != nullptr) return true;  // a view: Tensor(a), Tensor(a)[]
  }
  return false;
}

// An out= overload (`linear.out`): a call binds to it only when it passes
// the written keyword argument.
bool is_out_overload_not_called(const c10::FunctionSchema& schema, const Node& node) {
  for (const c10::Argument& a : schema.arguments()) {
    if (a.kwarg_only() && a.alias_info() != nullptr && a.alias_info()->isWrite() &&
        node.kwarg(a.name()) == nullptr) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool result_may_alias_operands(const Node& node) {
  if (node.op() == Op::kOutput) return false;
  if (node.op() != Op::kCallFunction && node.op() != Op::kCallMethod) return true;
  if (!names_aten_operator(node.op(), node.target())) return true;
  const std::string base = operator_base_name(node.op(), node.target());
  if (may_share_an_input(base)) return true;
  if (node.op() == Op::kCallFunction && !operator_overload(node.op(), node.target()).empty()) {
    auto exact = find_operator(node.target());
    return !exact.ok() || returns_an_alias(*exact->schema);
  }
  std::vector<BoundOperator> overloads = find_overloads(base);
  if (overloads.empty()) return true;
  for (const BoundOperator& o : overloads) {
    if (is_out_overload_not_called(*o.schema, node)) continue;
    if (returns_an_alias(*o.schema)) return true;
  }
  return false;
}

}  // namespace fx
