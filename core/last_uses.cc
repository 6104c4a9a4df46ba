// Copyright 2026 The FX for C++ Authors.
#include "core/last_uses.h"

#include <algorithm>

namespace fx {

LastUses::LastUses(const Graph& graph) {
  graph.ensure_order();
  const uint64_t bound = graph.order_bound();
  std::vector<uint64_t> last_user(bound, 0);
  for (const Node* n : graph.nodes()) {
    uint64_t last = Graph::order_of(*n);  // unused values are never freed
    for (const Node* user : n->users()) last = std::max(last, Graph::order_of(*user));
    last_user[Graph::order_of(*n)] = last;
  }
  begin_.assign(bound + 1, 0);
  freed_.reserve(graph.size());
  for (const Node* n : graph.nodes()) {
    const uint64_t k = Graph::order_of(*n);
    begin_[k] = static_cast<uint32_t>(freed_.size());
    for (const Node* input : n->input_nodes()) {
      if (last_user[Graph::order_of(*input)] == k) freed_.push_back(input);
    }
    begin_[k + 1] = static_cast<uint32_t>(freed_.size());
  }
}

absl::Span<const Node* const> LastUses::freed_after(const Node& node) const {
  const uint64_t k = Graph::order_of(node);
  if (k + 1 >= begin_.size()) return {};
  return absl::MakeConstSpan(freed_).subspan(begin_[k], begin_[k + 1] - begin_[k]);
}

}  // namespace fx
