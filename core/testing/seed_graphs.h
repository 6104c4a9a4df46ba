// Copyright 2026 The FX for C++ Authors.
//
// seed_graphs.h: the seeds' hand-built graphs, for tests of the core.
#ifndef FX_CORE_TESTING_SEED_GRAPHS_H_
#define FX_CORE_TESTING_SEED_GRAPHS_H_

#include "core/graph.h"

namespace fx {
namespace testing {

// Appends seed 004's MyModule graph, node for node as torch.fx records
//   torch.topk(torch.sum(self.linear(x + self.linear.weight).relu(), dim=-1), 3)
// so that `g` holds x, linear_weight, add, linear, relu, sum_1, topk, output.
void build_seed_my_module(Graph& g);

}  // namespace testing
}  // namespace fx

#endif  // FX_CORE_TESTING_SEED_GRAPHS_H_
