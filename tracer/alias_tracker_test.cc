// Copyright 2026 The FX for C++ Authors.
#include "tracer/alias_tracker.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/operator.h>

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

// The operators whose results may be an input (or a view of one) although
// their schemas say nothing: each exists in libtorch, and no functional
// overload of it that returns a tensor has an alias annotation (which would
// make the entry needless).
TEST(MayShareAnInputTest, ListsOperatorsWithoutAliasAnnotations) {
  std::vector<std::string> listed;
  for (const auto& op : torch::jit::getAllOperators()) {
    const c10::FunctionSchema& schema = op->schema();
    if (!may_share_an_input(schema.name())) continue;
    listed.push_back(schema.name());
    if (schema.is_mutable()) continue;  // `out=` overloads: their annotation names `out`
    for (const c10::Argument& ret : schema.returns()) {
      if (ret.type()->kind() == c10::TypeKind::TensorType) {
        EXPECT_EQ(ret.alias_info(), nullptr) << schema;
      }
    }
  }
  for (const char* name : {"aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d",
                           "aten::sum_to_size", "aten::type_as", "aten::einsum",
                           "aten::broadcast_tensors", "aten::meshgrid", "aten::dropout",
                           "aten::_cast_Float", "aten::conj_physical", "aten::dequantize"}) {
    EXPECT_TRUE(may_share_an_input(name)) << name;
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end())
        << name << " is not an operator of this libtorch";
  }
  EXPECT_FALSE(may_share_an_input("aten::relu"));
  EXPECT_FALSE(may_share_an_input("aten::view"));  // its schema says Tensor(a)
}

// Why they are listed: what they return on inputs that need no change.
TEST(MayShareAnInputTest, TheyReturnTheirInputWhenNothingIsToBeDone) {
  const at::Tensor h = at::randn({2, 4});
  EXPECT_TRUE(at::atleast_2d(h).is_same(h));
  EXPECT_TRUE(h.type_as(h).is_same(h));
  EXPECT_TRUE(h.sum_to_size(h.sizes()).is_same(h));
  EXPECT_TRUE(at::dropout(h, 0.5, /*train=*/false).is_same(h));
  EXPECT_TRUE(at::conj_physical(h).is_same(h));
  EXPECT_TRUE(at::broadcast_tensors({h, h})[0].is_same(h));
  EXPECT_TRUE(at::einsum("ij->ji", {h}).is_alias_of(h));
  EXPECT_TRUE(at::atleast_3d(h).is_alias_of(h));
}

}  // namespace
}  // namespace tracer_internal
}  // namespace fx
