// Copyright 2026 The FX for C++ Authors.
#include "core/testing/seed_graphs.h"

namespace fx {
namespace testing {

void build_seed_my_module(Graph& g) {
  Node* x = g.placeholder("x");
  Node* w = g.get_attr("linear.weight");
  Node* add = g.call_function("operator.add", {x, w});
  Node* linear = g.call_module("linear", {add});
  Node* relu = g.call_method("relu", {linear});
  Node* sum = g.call_function("torch.sum", {relu}, {{"dim", -1}});
  Node* topk = g.call_function("torch.topk", {sum, 3});
  g.output(topk);
}

}  // namespace testing
}  // namespace fx
