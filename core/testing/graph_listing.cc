// Copyright 2026 The FX for C++ Authors.
#include "core/testing/graph_listing.h"

namespace fx {
namespace testing {

std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes()) out.push_back(n->name());
  return out;
}

std::vector<std::string> node_targets(const Graph& g, Op op) {
  std::vector<std::string> out;
  for (const Node* n : g.find_nodes(op)) out.push_back(n->target());
  return out;
}

int count_targets(const Graph& g, const std::string& target) {
  int count = 0;
  for (const Node* n : g.nodes()) count += n->target() == target;
  return count;
}

}  // namespace testing
}  // namespace fx
