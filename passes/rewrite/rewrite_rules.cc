// Copyright 2026 The FX for C++ Authors.
#include "passes/rewrite/rewrite_rules.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/well_known.h"
#include "tracer/symbolic_trace.h"

namespace fx {
namespace {

// True when no node of `graph` may write to a value (in-place and out=
// operators, impure calls other than assertions).
bool writes_nothing(const Graph& graph) {
  for (Node* n : graph.nodes()) {
    if (n->op() == Op::kPlaceholder || n->op() == Op::kOutput) continue;
    if (n->target() == kAssertTarget) continue;
    if (n->is_impure() || n->kwarg("out") != nullptr) return false;
  }
  return true;
}

RewriteRule relu_relu() {
  RewriteRule rule{"relu_relu", "relu(relu(x)) -> relu(x)", {}, nullptr};
  rule.patterns.emplace_back(symbolic_trace([](Proxy x) { return x.relu().relu(); }, "x"),
                             symbolic_trace([](Proxy x) { return x.relu(); }, "x"));
  return rule;
}

RewriteRule transpose_transpose() {
  RewriteRule rule{"transpose_transpose",
                   "x.transpose(a, b).transpose(a, b) -> x, x.t().t() -> x", {}, nullptr};
  const int64_t dims[] = {0, 1, 2, 3, -1, -2};
  for (int64_t a : dims) {
    for (int64_t b : dims) {
      if (a == b) continue;
      for (bool swap : {false, true}) {
        int64_t c = swap ? b : a, d = swap ? a : b;
        rule.patterns.emplace_back(
            symbolic_trace([&](Proxy x) { return x.transpose(a, b).transpose(c, d); }, "x"),
            symbolic_trace([](Proxy x) { return x; }, "x"));
      }
    }
  }
  rule.patterns.emplace_back(symbolic_trace([](Proxy x) { return x.t().t(); }, "x"),
                             symbolic_trace([](Proxy x) { return x; }, "x"));
  return rule;
}

RewriteRule neg_neg() {
  RewriteRule rule{"neg_neg", "-(-x) -> x in graphs that write to no value", {}, nullptr};
  rule.patterns.emplace_back(symbolic_trace([](Proxy x) { return x.neg().neg(); }, "x"),
                             symbolic_trace([](Proxy x) { return x; }, "x"));
  rule.filter = [](const PatternMatch&, const Graph& graph, const Graph&) {
    return writes_nothing(graph);
  };
  return rule;
}

std::string known_rule_names() {
  std::vector<std::string> names;
  for (const RewriteRule& r : builtin_rewrite_rules()) names.push_back(r.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

const std::vector<RewriteRule>& builtin_rewrite_rules() {
  static const auto* rules = [] {
    auto* all = new std::vector<RewriteRule>();
    all->push_back(relu_relu());
    all->push_back(transpose_transpose());
    all->push_back(neg_neg());
    return all;
  }();
  return *rules;
}

absl::StatusOr<size_t> apply_rewrite_rule(const RewriteRule& rule, Graph& graph) {
  size_t replaced = 0;
  for (const auto& [pattern, replacement] : rule.patterns) {
    auto done = replace_pattern(graph, pattern.graph(), replacement.graph(), rule.filter);
    if (!done.ok()) {
      return absl::Status(done.status().code(),
                          absl::StrCat("rewrite rule '", rule.name, "': ", done.status().message()));
    }
    replaced += done->size();
  }
  return replaced;
}

absl::Status RewritePass::run(GraphModule& module, PassContext&) {
  std::vector<const RewriteRule*> chosen;
  for (const std::string& name : *rules) {
    const RewriteRule* found = nullptr;
    for (const RewriteRule& r : builtin_rewrite_rules()) {
      if (r.name == name) found = &r;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("rewrite: no rule named '", name,
                                                     "'; the rules are ", known_rule_names()));
    }
    chosen.push_back(found);
  }
  if (rules->empty()) {
    for (const RewriteRule& r : builtin_rewrite_rules()) chosen.push_back(&r);
  }
  for (const RewriteRule* rule : chosen) {
    auto replaced = apply_rewrite_rule(*rule, module.graph());
    if (!replaced.ok()) return replaced.status();
  }
  return absl::OkStatus();
}

void register_rewrite(PluginRegistrar& registrar) {
  registrar.add_pass<RewritePass>(
      "rewrite", absl::StrCat("replaces subgraphs by equivalent ones; rules: ", known_rule_names()));
}

}  // namespace fx
