// Copyright 2026 The FX for C++ Authors.
//
// cse.h: common-subexpression elimination (torch.fx's CSEPass,
// torch/fx/passes/dialect/common/cse_pass.py), as a function and as pass
// "cse".
//
// Two nodes that compute the same pure operation on the same operands (same
// opcode, operator, type annotation, args and kwargs, after earlier merges)
// become one: the later one's users use the earlier one and it goes.
//
//   %a = aten::relu(%x)        %a = aten::relu(%x)
//   %b = aten::relu(%x)   =>   %c = aten::add.Tensor(%a, %a)
//   %c = aten::add.Tensor(%a, %b)
//
// Merged: call_function and call_method nodes whose target is an operator
// (any spelling: `aten::relu`, `torch.relu`, method `relu`, `operator.add`),
// `operator.getitem`, `getattr`, and get_attr nodes of the same attribute.
// Never merged:
//   * impure nodes (Node::is_impure: in-place operators, asserts, prints,
//     nodes a tracer marked) and operators whose schema mutates an argument
//     (`out=` overloads), or calls passing `out=`;
//   * random operators: every overload libtorch tags `nondeterministic_seeded`
//     (rand*, randn*, bernoulli, dropout, multinomial, normal, ...);
//   * call_module nodes (a module may hold state), leaf functions and targets
//     that name no operator libtorch has;
//   * a node whose operands may have been written between the two
//     occurrences, or whose value, or any value that may share its storage,
//     is written anywhere in the graph (two `clone`s later changed in place
//     differently are two tensors). When the graph writes to any value, every
//     result is taken to share storage with its operands and the inputs and
//     attributes with each other, which is conservative.
//
// Contracts: linear in the graph's size (one hash lookup per node; operator
// schemas are looked up once per distinct target); the graph must be
// topologically ordered (lint() passes); numbers compare bit for bit
// (0.0 and -0.0 differ; bool and int differ).
#ifndef FX_PASSES_CSE_CSE_H_
#define FX_PASSES_CSE_CSE_H_

#include <cstddef>

#include "core/export.h"
#include "core/graph.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// Merges identical pure nodes of `graph`; returns how many nodes went.
FX_API size_t eliminate_common_subexpressions(Graph& graph);

class FX_API CommonSubexpressionElimination : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "cse".
FX_API void register_cse(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_CSE_CSE_H_
