// Copyright 2026 The FX for C++ Authors.
#include "passes/rewrite/replace_pattern.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/support/operator_targets.h"

namespace fx {
namespace {

// A pattern or replacement graph, checked and indexed.
struct PatternShape {
  std::vector<Node*> placeholders;
  std::vector<Node*> outputs;   // the values the output returns, in order
  std::vector<Node*> inner;     // the other nodes, in graph order
  Node* anchor = nullptr;       // the last output in graph order
  absl::flat_hash_map<const Node*, size_t> index;  // every node but the output
};

absl::StatusOr<std::vector<Node*>> returned_nodes(const Graph& g, absl::string_view what) {
  const Node* out = g.output_node();
  if (out == nullptr || out->args().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", what, " has no output node"));
  }
  const Argument& result = out->args()[0];
  std::vector<Node*> nodes;
  if (result.is_node()) {
    nodes.push_back(result.to_node());
  } else if (result.is_sequence()) {
    for (const Argument& e : result.elements()) {
      if (!e.is_node()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the ", what, " returns a constant; return only values it computes or takes"));
      }
      nodes.push_back(e.to_node());
    }
  }
  if (nodes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " returns no value; return a node or a tuple of nodes"));
  }
  return nodes;
}

absl::StatusOr<PatternShape> shape_of(const Graph& g, absl::string_view what, bool is_pattern) {
  PatternShape shape;
  auto outputs = returned_nodes(g, what);
  if (!outputs.ok()) return outputs.status();
  shape.outputs = *std::move(outputs);
  for (Node* n : g.nodes()) {
    if (n->op() == Op::kOutput) continue;
    shape.index[n] = shape.index.size();
    if (n->op() == Op::kPlaceholder) {
      shape.placeholders.push_back(n);
    } else {
      shape.inner.push_back(n);
    }
  }
  if (!is_pattern) return shape;
  if (shape.inner.empty()) {
    return absl::InvalidArgumentError(
        "the pattern has no operation (it returns its inputs); a pattern must compute something");
  }
  for (Node* o : shape.outputs) {
    if (o->op() == Op::kPlaceholder) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the pattern returns its input '", o->name(), "'; return only values it computes"));
    }
    if (shape.anchor == nullptr || shape.index[shape.anchor] < shape.index[o]) shape.anchor = o;
  }
  // Matching walks back from the anchor: every node must lead to it.
  absl::flat_hash_set<const Node*> reached;
  std::vector<Node*> stack = {shape.anchor};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (!reached.insert(n).second) continue;
    for (Node* i : n->input_nodes()) stack.push_back(i);
  }
  for (const auto& [n, i] : shape.index) {
    if (!reached.contains(n)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pattern node '", n->name(), "' does not lead to the pattern's last output '",
          shape.anchor->name(), "'; split the pattern, or make that output depend on it"));
    }
  }
  return shape;
}

class Matcher {
 public:
  Matcher(const Graph& pattern, const PatternShape& shape) : pattern_(pattern), shape_(shape) {
    bound_.resize(shape_.index.size());
  }

  // Tries `candidate` as the anchor; true with the bindings in bound_.
  bool match_at(Node* candidate) {
    std::fill(bound_.begin(), bound_.end(), nullptr);
    if (candidate->op() == Op::kPlaceholder || candidate->op() == Op::kOutput) return false;
    if (!match_node(shape_.anchor, candidate)) return false;
    return inner_values_stay_inside() && outputs_used_after(candidate);
  }

  PatternMatch make_match(Node* anchor) const {
    PatternMatch m;
    m.anchor = anchor;
    for (const auto& [p, i] : shape_.index) m.nodes_map[p] = bound_[i];
    for (Node* p : shape_.placeholders) m.placeholder_nodes.push_back(bound(p));
    for (Node* p : shape_.outputs) m.returning_nodes.push_back(bound(p));
    return m;
  }

  Node* bound(const Node* p) const { return bound_[shape_.index.at(p)]; }

 private:
  bool match_node(Node* p, Node* g) {
    Node*& slot = bound_[shape_.index.at(p)];
    if (slot != nullptr) return slot == g;
    // One to one: a graph node binds at most one pattern node.
    for (Node* b : bound_) {
      if (b == g) return false;
    }
    if (p->op() == Op::kPlaceholder) {
      slot = g;
      return true;
    }
    if (!same_operation(*p, *g)) return false;
    if (p->args().size() != g->args().size() || p->kwargs().size() != g->kwargs().size()) {
      return false;
    }
    slot = g;  // before the operands: a cycle back to g fails above
    for (size_t i = 0; i < p->args().size(); ++i) {
      if (!match_argument(p->args()[i], g->args()[i])) return false;
    }
    for (const auto& [key, value] : p->kwargs()) {
      const Argument* other = g->kwarg(key);
      if (other == nullptr || !match_argument(value, *other)) return false;
    }
    return true;
  }

  bool match_argument(const Argument& p, const Argument& g) {
    if (p.is_node()) return g.is_node() && match_node(p.to_node(), g.to_node());
    if (p.is_sequence()) {
      if (!g.is_sequence() || p.elements().size() != g.elements().size()) return false;
      for (size_t i = 0; i < p.elements().size(); ++i) {
        if (!match_argument(p.elements()[i], g.elements()[i])) return false;
      }
      return true;
    }
    if (p.is_dict()) {
      if (!g.is_dict() || p.dict_items().size() != g.dict_items().size()) return false;
      for (const auto& [key, value] : p.dict_items()) {
        const Argument* other = find_kwarg(g.dict_items(), key);
        if (other == nullptr || !match_argument(value, *other)) return false;
      }
      return true;
    }
    return !g.contains_node() && p == g;
  }

  bool same_operation(const Node& p, const Node& g) {
    switch (p.op()) {
      case Op::kGetAttr:
      case Op::kCallModule:
        return g.op() == p.op() && g.target() == p.target();
      case Op::kCallFunction:
      case Op::kCallMethod:
        break;
      default:
        return false;
    }
    if (g.op() != Op::kCallFunction && g.op() != Op::kCallMethod) return false;
    if (g.op() == p.op() && g.target() == p.target()) return true;
    if (!names_aten_operator(p.op(), p.target()) || !names_aten_operator(g.op(), g.target())) {
      return false;
    }
    if (base_name(p) != base_name(g)) return false;
    absl::string_view po = operator_overload(p.op(), p.target());
    absl::string_view go = operator_overload(g.op(), g.target());
    return po.empty() || go.empty() || po == go;
  }

  // operator_base_name, once per distinct (op, target) of either graph.
  const std::string& base_name(const Node& n) {
    auto [it, inserted] = base_names_.try_emplace(std::make_pair(n.op(), &n.target()));
    if (inserted) it->second = operator_base_name(n.op(), n.target());
    return it->second;
  }

  bool is_output(const Node* p) const {
    return std::find(shape_.outputs.begin(), shape_.outputs.end(), p) != shape_.outputs.end();
  }

  bool is_bound_inner(const Node* g) const {
    for (Node* p : shape_.inner) {
      if (bound(p) == g) return true;
    }
    return false;
  }

  // A value the pattern computes but does not return may not be used
  // outside the match: replacing the match would remove it.
  bool inner_values_stay_inside() const {
    for (Node* p : shape_.inner) {
      if (is_output(p)) continue;
      for (Node* user : bound(p)->users()) {
        if (!is_bound_inner(user)) return false;
      }
    }
    return true;
  }

  // The replacement goes just before the anchor: outputs other than the
  // anchor must not be used before it.
  bool outputs_used_after(Node* anchor) const {
    for (Node* p : shape_.outputs) {
      Node* g = bound(p);
      if (g == anchor) continue;
      for (Node* user : g->users()) {
        if (!is_bound_inner(user) && user->comes_before(*anchor)) return false;
      }
    }
    return true;
  }

  const Graph& pattern_;
  const PatternShape& shape_;
  std::vector<Node*> bound_;  // by pattern index
  // Node-based: base_name hands out references that must survive insertions.
  absl::node_hash_map<std::pair<Op, const std::string*>, std::string> base_names_;
};

absl::StatusOr<std::vector<PatternMatch>> find_matches(const Graph& graph, const Graph& pattern,
                                                       const PatternShape& shape,
                                                       const MatchFilter& filter) {
  Matcher matcher(pattern, shape);
  std::vector<PatternMatch> matches;
  absl::flat_hash_set<const Node*> claimed;  // inner nodes of kept matches
  for (Node* candidate : graph.nodes()) {
    if (!matcher.match_at(candidate)) continue;
    bool overlaps = false;
    for (Node* p : shape.inner) overlaps = overlaps || claimed.contains(matcher.bound(p));
    if (overlaps) continue;
    PatternMatch match = matcher.make_match(candidate);
    if (filter && !filter(match, graph, pattern)) continue;
    for (Node* p : shape.inner) claimed.insert(matcher.bound(p));
    matches.push_back(std::move(match));
  }
  return matches;
}

}  // namespace

absl::StatusOr<std::vector<PatternMatch>> find_pattern_matches(const Graph& graph,
                                                               const Graph& pattern,
                                                               const MatchFilter& filter) {
  auto shape = shape_of(pattern, "pattern", true);
  if (!shape.ok()) return shape.status();
  return find_matches(graph, pattern, *shape, filter);
}

absl::StatusOr<std::vector<ReplacedPattern>> replace_pattern(Graph& graph, const Graph& pattern,
                                                             const Graph& replacement,
                                                             const MatchFilter& filter) {
  auto shape = shape_of(pattern, "pattern", true);
  if (!shape.ok()) return shape.status();
  auto with = shape_of(replacement, "replacement", false);
  if (!with.ok()) return with.status();
  if (with->placeholders.size() != shape->placeholders.size() ||
      with->outputs.size() != shape->outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the replacement takes ", with->placeholders.size(), " inputs and returns ",
        with->outputs.size(), " values, the pattern ", shape->placeholders.size(), " and ",
        shape->outputs.size(), "; give them the same inputs and outputs"));
  }
  auto matches = find_matches(graph, pattern, *shape, filter);
  if (!matches.ok()) return matches.status();

  // What each replaced output became: a later match may take it as input.
  absl::flat_hash_map<Node*, Node*> replaced_by;
  auto current = [&](Node* n) {
    for (auto it = replaced_by.find(n); it != replaced_by.end(); it = replaced_by.find(n)) {
      n = it->second;
    }
    return n;
  };
  std::vector<ReplacedPattern> done;
  done.reserve(matches->size());
  for (PatternMatch& match : *matches) {
    NodeMap values;
    for (size_t i = 0; i < with->placeholders.size(); ++i) {
      values[with->placeholders[i]] = current(match.placeholder_nodes[i]);
    }
    {
      InsertionGuard guard = graph.inserting_before(match.anchor);
      graph.graph_copy(replacement, values);
    }
    ReplacedPattern replaced;
    for (Node* n : with->inner) replaced.replacements.push_back(values.at(n));
    for (size_t i = 0; i < shape->outputs.size(); ++i) {
      Node* old_value = match.returning_nodes[i];
      Node* new_value = values.at(with->outputs[i]);
      old_value->replace_all_uses_with(new_value);
      replaced_by[old_value] = new_value;
    }
    for (auto it = shape->inner.rbegin(); it != shape->inner.rend(); ++it) {
      Node* matched = match.nodes_map.at(*it);
      if (absl::Status s = graph.erase_node(matched); !s.ok()) {
        return absl::InternalError(absl::StrCat("replace_pattern could not remove matched node '",
                                                matched->name(), "': ", s.message()));
      }
    }
    replaced.anchor = match.anchor;
    replaced.nodes_map = std::move(match.nodes_map);
    done.push_back(std::move(replaced));
  }
  return done;
}

}  // namespace fx
