// Copyright 2026 The FX for C++ Authors.
//
// graph_listing.h: a graph's nodes as lists of strings, for test expectations
// such as EXPECT_THAT(node_names(g), ElementsAre("x", "add", "output")).
#ifndef FX_CORE_TESTING_GRAPH_LISTING_H_
#define FX_CORE_TESTING_GRAPH_LISTING_H_

#include <string>
#include <vector>

#include "core/graph.h"

namespace fx {
namespace testing {

// The names of the graph's nodes, in order.
std::vector<std::string> node_names(const Graph& g);

// The targets of the nodes with opcode `op`, in graph order.
std::vector<std::string> node_targets(const Graph& g, Op op);

// How many nodes have `target` as their target.
int count_targets(const Graph& g, const std::string& target);

}  // namespace testing
}  // namespace fx

#endif  // FX_CORE_TESTING_GRAPH_LISTING_H_
