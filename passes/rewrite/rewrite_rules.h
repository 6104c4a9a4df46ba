// Copyright 2026 The FX for C++ Authors.
//
// rewrite_rules.h: named rewrite rules (patterns, their replacements and
// filters) and pass "rewrite", which applies them.
//
//   fxrun --model=m.pt --passes='rewrite{rules=relu_relu,transpose_transpose},dce'
//
// The rules shipped, each exact for every input (tests/rewrite_rules_test
// runs graphs before and after):
//   relu_relu            relu(relu(x)) -> relu(x)
//   transpose_transpose  x.transpose(a, b).transpose(a, b) (either order of
//                        a, b; dims 0..3, -1, -2), x.t().t() -> x (the
//                        result was a view of x with x's strides; x is too)
//   neg_neg              -(-x) -> x, only in graphs that write to no value
//                        (the result, a new tensor before, is x itself after)
// Without `rules`, the pass applies them all, each to the graph left by the
// one before, in the order listed.
//
// Contracts: every rule's pattern and replacement are built once per pass
// instance; an unknown rule name fails, listing the known ones.
#ifndef FX_PASSES_REWRITE_REWRITE_RULES_H_
#define FX_PASSES_REWRITE_REWRITE_RULES_H_

#include <string>
#include <vector>

#include "core/export.h"
#include "passes/rewrite/replace_pattern.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// One way of rewriting: pattern graphs, each with its replacement (a rule may
// need several spellings of the same idea), and a filter.
struct FX_API RewriteRule {
  std::string name;
  std::string description;
  std::vector<std::pair<GraphModule, GraphModule>> patterns;
  MatchFilter filter;
};

// The rules shipped, in the order the pass applies them.
FX_API const std::vector<RewriteRule>& builtin_rewrite_rules();

// Applies `rule` to `graph`; returns the number of matches replaced.
FX_API absl::StatusOr<size_t> apply_rewrite_rule(const RewriteRule& rule, Graph& graph);

class FX_API RewritePass : public Pass {
 public:
  ListOption rules{*this, "rules", "the rewrite rules to apply, in order (default: all)"};
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "rewrite".
FX_API void register_rewrite(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_REWRITE_REWRITE_RULES_H_
