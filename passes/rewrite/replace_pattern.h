// Copyright 2026 The FX for C++ Authors.
//
// replace_pattern.h: torch.fx's subgraph rewriter
// (torch.fx.subgraph_rewriter.replace_pattern and its SubgraphMatcher) in
// C++, without its known failures.
//
// A pattern and its replacement are graphs with the same number of inputs
// (placeholders) and outputs, usually written as C++ callables over Proxies:
//
//   auto pattern = fx::symbolic_trace([](fx::Proxy x) { return x.relu().relu(); }, "x");
//   auto replacement = fx::symbolic_trace([](fx::Proxy x) { return x.relu(); }, "x");
//   absl::StatusOr<std::vector<fx::ReplacedPattern>> done =
//       fx::replace_pattern(gm, pattern.graph(), replacement.graph());
//
// Matching follows data dependence, not names: from each graph node that
// matches the pattern's last output (the anchor) back along the arguments, a
// pattern placeholder binding any graph value (each placeholder its own, one
// to one), other pattern nodes binding nodes of the same kind:
//   * the same operator at any spelling (operator_targets.h): a pattern from
//     Proxies (`torch.relu`, method `relu`, `operator.add`) matches a traced
//     TorchScript graph's `aten::relu` / `aten::add.Tensor` and a torch.export
//     program's; a pattern target with an overload (`aten::add.Tensor`)
//     matches only that overload where the graph names one;
//   * get_attr and call_module nodes by target;
//   * args and kwargs alike: literals equal, containers element by element,
//     the same number of args and the same kwarg names.
// A match is kept when
//   * its inner nodes (not outputs of the pattern) have no users outside it;
//   * it shares no node other than its inputs with a match kept before it
//     (graph order of anchors): overlapping matches are not both replaced;
//   * the filter, when given, accepts it.
// Each kept match is then replaced: the replacement's nodes are copied in
// before the anchor, its outputs take over the users of the pattern's outputs,
// and the matched nodes go. A match whose input is an output of an earlier
// replaced match (a `cat` feeding a `cat`) reads that match's replacement.
//
// Contracts:
//   * Linear in the graph's size for a fixed pattern: each node is tried as an
//     anchor once, in time proportional to the pattern.
//   * The pattern must be a graph whose every node is an input or leads to its
//     last output, with at least one operation; the replacement must have as
//     many inputs and outputs. Violations fail with InvalidArgument naming the
//     node, before anything changes.
//   * Names of new nodes come from the replacement's, made unique.
//   * The replacement's get_attr and call_module targets must exist in the
//     module being rewritten (nothing is copied into it).
#ifndef FX_PASSES_REWRITE_REPLACE_PATTERN_H_
#define FX_PASSES_REWRITE_REPLACE_PATTERN_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "core/graph.h"
#include "runtime/graph_module.h"

namespace fx {

// One match of a pattern in a graph (torch.fx's InternalMatch).
struct FX_API PatternMatch {
  // The graph node matched to the pattern's last output.
  Node* anchor = nullptr;
  // Pattern node -> graph node, placeholders included.
  NodeMap nodes_map;
  // The graph values bound to the pattern's placeholders, in order.
  std::vector<Node*> placeholder_nodes;
  // The graph nodes matched to the pattern's outputs, in order.
  std::vector<Node*> returning_nodes;
};

// A match and what replaced it (torch.fx's ReplacedPatterns). The matched
// nodes are erased from the graph once replaced (Node::erased()).
struct FX_API ReplacedPattern {
  Node* anchor = nullptr;
  NodeMap nodes_map;
  // The nodes the replacement added, in graph order (none when the
  // replacement returns its inputs).
  std::vector<Node*> replacements;
};

// Decides whether a match may be replaced; sees the graph before any
// replacement (torch.fx's match_filters).
using MatchFilter =
    std::function<bool(const PatternMatch& match, const Graph& graph, const Graph& pattern)>;

// The matches of `pattern` in `graph` that replace_pattern would replace, in
// graph order of their anchors, without changing anything.
FX_API absl::StatusOr<std::vector<PatternMatch>> find_pattern_matches(
    const Graph& graph, const Graph& pattern, const MatchFilter& filter = nullptr);

// Replaces every kept match of `pattern` in `graph` by `replacement`.
FX_API absl::StatusOr<std::vector<ReplacedPattern>> replace_pattern(
    Graph& graph, const Graph& pattern, const Graph& replacement,
    const MatchFilter& filter = nullptr);
inline absl::StatusOr<std::vector<ReplacedPattern>> replace_pattern(
    GraphModule& gm, const Graph& pattern, const Graph& replacement,
    const MatchFilter& filter = nullptr) {
  return replace_pattern(gm.graph(), pattern, replacement, filter);
}
inline absl::StatusOr<std::vector<ReplacedPattern>> replace_pattern(
    GraphModule& gm, const GraphModule& pattern, const GraphModule& replacement,
    const MatchFilter& filter = nullptr) {
  return replace_pattern(gm.graph(), pattern.graph(), replacement.graph(), filter);
}

}  // namespace fx

#endif  // FX_PASSES_REWRITE_REPLACE_PATTERN_H_
