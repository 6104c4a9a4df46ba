// Copyright 2026 The FX for C++ Authors.
#include "tracer/torchscript/alias_tracker.h"

#include "core/graph.h"
#include "gtest/gtest.h"

namespace fx {
namespace tracer_internal {
namespace {

class AliasTrackerTest : public ::testing::Test {
 protected:
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.get_attr("w");
  Node* relu = g.call_function("aten::relu", {x});
  Node* conv = g.call_module("conv", {x});
  AliasTracker aliases;
};

TEST_F(AliasTrackerTest, FreshResultsMayBeFunctionalized) {
  EXPECT_TRUE(aliases.may_functionalize(relu));
  EXPECT_TRUE(aliases.may_functionalize(conv));
}

TEST_F(AliasTrackerTest, InputsParametersAndExternalValuesMayNot) {
  EXPECT_FALSE(aliases.may_functionalize(x));  // the caller sees its input change
  EXPECT_FALSE(aliases.may_functionalize(w));  // a parameter
  aliases.mark_external(relu);                 // a caller's value, when inlining
  EXPECT_FALSE(aliases.may_functionalize(relu));
  EXPECT_TRUE(aliases.is_external(relu));
}

TEST_F(AliasTrackerTest, ViewsAndTheirBasesMayNot) {
  Node* v = g.call_function("aten::view", {relu, -1});
  Node* v2 = g.call_function("aten::select", {v, 0, 0});
  aliases.record_view(v, relu);
  aliases.record_view(v2, v);  // a view of a view shares the root base
  EXPECT_FALSE(aliases.may_functionalize(v));
  EXPECT_FALSE(aliases.may_functionalize(relu));
  EXPECT_EQ(aliases.base_of(v2), relu);
  EXPECT_TRUE(aliases.has_views(relu));
}

TEST_F(AliasTrackerTest, ElementsOfAViewAreViewsOfItsBase) {
  Node* chunks = g.call_function("aten::chunk", {relu, 2});
  aliases.record_view(chunks, relu);
  Node* first = g.call_function("operator.getitem", {chunks, 0});
  aliases.record_element(first, chunks);
  EXPECT_EQ(aliases.base_of(first), relu);
  Node* other = g.call_function("aten::topk", {relu, 2});
  Node* values = g.call_function("operator.getitem", {other, 0});
  aliases.record_element(values, other);  // topk's results are fresh
  EXPECT_FALSE(aliases.is_view(values));
}

TEST_F(AliasTrackerTest, UpdatesAreReadThroughCurrent) {
  Node* add = g.call_function("aten::add.Tensor", {relu, x});
  Node* mul = g.call_function("aten::mul.Tensor", {add, 2});
  aliases.record_update(relu, add);
  aliases.record_update(add, mul);
  EXPECT_EQ(aliases.current(relu), mul);
  EXPECT_EQ(aliases.current(x), x);
  EXPECT_EQ(aliases.current(Argument::Tuple({relu, 1, x})), Argument::Tuple({mul, 1, x}));
}

}  // namespace
}  // namespace tracer_internal
}  // namespace fx
