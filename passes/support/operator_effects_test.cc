// Copyright 2026 The FX for C++ Authors.
#include "passes/support/operator_effects.h"

#include <memory>

#include "core/graph.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

TEST(OperatorEffectsTest, ViewsInPlaceResultsAndUnseenCallsMayAliasTheirOperands) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* mul = g->call_function("aten::mul.Tensor", {x, y});
  Node* add = g->call_function("aten::add.Tensor", {x, y});
  Node* dim = g->call_function("aten::dim", {x});
  Node* view = g->call_function("aten::view", {x, Argument::List({-1})});
  Node* relu_ = g->call_function("aten::relu_", {mul});
  Node* type_as = g->call_function("aten::type_as", {x, y});  // returns x when the types agree
  Node* method_view = g->call_method("view", {x, -1});         // no overload: any of view's
  Node* module = g->call_module("block", {x});
  Node* python = g->call_function("torch.nn.functional.relu", {x});
  Node* out = g->output(Argument::Tuple({mul, add, dim, view, relu_, type_as, method_view,
                                         module, python}));
  for (const Node* n : {mul, add, dim, out}) {
    EXPECT_FALSE(result_may_alias_operands(*n)) << n->name();
  }
  for (const Node* n : {view, relu_, type_as, method_view, module, python}) {
    EXPECT_TRUE(result_may_alias_operands(*n)) << n->name();
  }
}

// aten::linear without an overload names linear and linear.out; a call
// without `out=` binds to the first, which makes a new tensor.
TEST(OperatorEffectsTest, OutOverloadsCountOnlyWhenOutIsPassed) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w = g->placeholder("w");
  Node* into = g->placeholder("into");
  Node* linear = g->call_function("aten::linear", {x, w});
  Node* linear_out = g->call_function("aten::linear", {x, w}, {{"out", into}});
  g->output(Argument::Tuple({linear, linear_out}));
  EXPECT_FALSE(result_may_alias_operands(*linear));
  EXPECT_TRUE(result_may_alias_operands(*linear_out));
}

}  // namespace
}  // namespace fx
