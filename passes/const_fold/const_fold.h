// Copyright 2026 The FX for C++ Authors.
//
// const_fold.h: constant folding (torch.fx's
// torch.fx.experimental.const_fold.split_const_subgraphs + run_folding, in
// one step).
//
// A node is constant when it is a pure operator call whose inputs are all
// constant: parameters, buffers and attributes read by get_attr that nothing
// in the graph may change, literals, and other constant nodes. The constant
// nodes whose values the rest of the graph reads are computed once, when the
// pass runs, and each is replaced by a get_attr of a new attribute holding
// its value; the constant nodes then unused are removed (the get_attr nodes
// they read are left to dce). The new attributes are named as torch.fx names
// its folded attribute, `_FX_CONST_FOLDED_ATTRS`, made unique the same way
// (`_FX_CONST_FOLDED_ATTRS_1`, ...): torch.fx keeps several results in one
// ParameterList of that name, here each result is an attribute of its own,
// which TorchScript and torch.export files can hold.
//
//   %w_t = call_function[target=aten::t](args = (%fc_weight,))
//   %y = call_function[target=aten::mm](args = (%x, %w_t))
// becomes
//   %_fx_const_folded_attrs = get_attr[target=_FX_CONST_FOLDED_ATTRS]
//   %y = call_function[target=aten::mm](args = (%x, %_fx_const_folded_attrs))
//
// Purity is read from libtorch's own operator registry, not from a list of
// names (PRs 166592 and 166609 fixed torch.fx folding impure and random
// operators): only call_function nodes of a registered operator
// (`aten::t`, `aten::add.Tensor`) and operator.getitem of such a node fold,
// and only when
//   * the schema mutates nothing (no in-place or out= operators: is_mutable),
//   * the operator is not tagged nondeterministic_seeded (rand, dropout,
//     bernoulli: a fold would freeze one draw), takes no Generator,
//   * the node is not impure (Node::is_impure: assertions, side effects);
// and a get_attr is a constant only when nothing may write it, directly or
// through a view of it (passes/support/value_writes.h's writer_of, the
// analysis every pass shares: an impure node, an operator whose schema
// writes that argument, an in-place method or leaf function, a module
// call), and no called module holds its storage. A folded value that the graph may write
// (through an in-place operator or a view) is not folded either: the
// attribute would carry one run's writes into the next. Results that are
// not tensors (sizes, numbers) are left in the graph.
#ifndef FX_PASSES_CONST_FOLD_CONST_FOLD_H_
#define FX_PASSES_CONST_FOLD_CONST_FOLD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What fold_constants did.
struct FX_API ConstFoldReport {
  // The attributes made, in graph order of the nodes they replace.
  std::vector<std::string> attributes;
  // The nodes computed at fold time and removed, by name.
  std::vector<std::string> folded_nodes;
};

// Folds the constant nodes of `module` (see the file comment). Errors name
// the node whose computation failed.
FX_API absl::StatusOr<ConstFoldReport> fold_constants(GraphModule& module);

class FX_API ConstantFolding : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "const_fold".
FX_API void register_const_fold(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_CONST_FOLD_CONST_FOLD_H_
