// Copyright 2026 The FX for C++ Authors.
#include "distributed/microbatches.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tensor_split.h>

#include "core/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MicrobatchesTest, UnevenBatchesAreCutAsTensorSplitDoes) {
  EXPECT_THAT(microbatch_sizes(10, 4), ElementsAre(3, 3, 2, 2));
  EXPECT_THAT(microbatch_sizes(8, 4), ElementsAre(2, 2, 2, 2));
  const at::Tensor x = at::arange(10).reshape({10, 1});
  auto parts = split_microbatches({x, c10::IValue(int64_t{7})}, 4);
  ASSERT_TRUE(parts.ok()) << parts.status();
  ASSERT_EQ(parts->size(), 4u);
  std::vector<at::Tensor> expected = at::tensor_split(x, 4, 0);
  for (int k = 0; k < 4; ++k) {
    EXPECT_TRUE(at::equal((*parts)[k][0].toTensor(), expected[k])) << k;
    EXPECT_EQ((*parts)[k][1].toInt(), 7);  // not a tensor: whole to every part
  }
}

TEST(MicrobatchesTest, ConcatenationGivesTheWholeBatchBack) {
  const at::Tensor x = at::rand({5, 3});
  auto parts = split_microbatches({x}, 3);
  ASSERT_TRUE(parts.ok());
  std::vector<c10::IValue> outputs;
  for (const auto& p : *parts) {
    const at::Tensor t = p[0].toTensor();
    outputs.push_back(c10::ivalue::Tuple::create({t * 2, t.sum(1)}));
  }
  auto whole = concat_microbatches(outputs, microbatch_sizes(5, 3));
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_TRUE(at::allclose(whole->toTupleRef().elements()[0].toTensor(), x * 2));
  EXPECT_TRUE(at::allclose(whole->toTupleRef().elements()[1].toTensor(), x.sum(1)));
}

TEST(MicrobatchesTest, AMissingMicrobatchIsAnError) {
  auto whole = concat_microbatches({at::rand({2}), at::rand({2})}, {2, 2, 2});
  ASSERT_FALSE(whole.ok());
  EXPECT_THAT(std::string(whole.status().message()), HasSubstr("2 micro-batch outputs of 3"));
}

TEST(MicrobatchesTest, WhatCannotBeCutOrJoinedIsRefused) {
  auto too_few = split_microbatches({at::rand({2, 3})}, 4);
  ASSERT_FALSE(too_few.ok());
  EXPECT_THAT(std::string(too_few.status().message()), HasSubstr("at least 4 rows"));
  // Issue 36: INT_MAX micro-batches made INT_MAX empty lists before the rows
  // were counted: "out of memory".
  auto far_too_many = split_microbatches({at::rand({6, 3})}, 2147483647);
  ASSERT_FALSE(far_too_many.ok());
  EXPECT_THAT(std::string(far_too_many.status().message()), HasSubstr("at least 2147483647 rows"));
  auto mixed = split_microbatches({at::rand({4, 3}), at::rand({6})}, 2);
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(std::string(mixed.status().message()), HasSubstr("input 0 has 4 rows where input 1 has 6"));
  auto scalar = split_microbatches({at::scalar_tensor(1.0)}, 2);
  ASSERT_FALSE(scalar.ok());
  auto none = split_microbatches({c10::IValue(int64_t{3})}, 2);
  ASSERT_FALSE(none.ok());
  auto zero = split_microbatches({at::rand({4})}, 0);
  ASSERT_FALSE(zero.ok());
  auto loss = concat_microbatches({at::scalar_tensor(1.0), at::scalar_tensor(2.0)}, {1, 1});
  ASSERT_FALSE(loss.ok());
  EXPECT_THAT(std::string(loss.status().message()), HasSubstr("0-dim tensor"));
  auto sizes = concat_microbatches({c10::IValue(int64_t{2}), c10::IValue(int64_t{3})}, {1, 1});
  ASSERT_FALSE(sizes.ok());
  EXPECT_THAT(std::string(sizes.status().message()), HasSubstr("differs between micro-batches"));
  // One micro-batch: as it is, whatever it holds.
  auto one = concat_microbatches({at::scalar_tensor(1.0)}, {1});
  ASSERT_TRUE(one.ok());
}

// Issue 35: a Gram matrix (features x features) of each micro-batch was
// concatenated into an output of another shape, exit 0.
TEST(MicrobatchesTest, AnOutputWhoseDimZeroIsNotTheBatchIsRefused) {
  const at::Tensor x = at::rand({8, 3});
  auto parts = split_microbatches({x}, 2);
  ASSERT_TRUE(parts.ok());
  std::vector<c10::IValue> grams;
  for (const auto& p : *parts) {
    const at::Tensor t = p[0].toTensor();
    grams.push_back(c10::ivalue::Tuple::create({t * 2, t.t().mm(t)}));
  }
  auto whole = concat_microbatches(grams, microbatch_sizes(8, 2));
  ASSERT_FALSE(whole.ok());
  EXPECT_THAT(std::string(whole.status().message()),
              HasSubstr("output 1 is float[3, 3] for micro-batch 0 of 4 rows: its dim 0 is not the batch"));

  // Before any run, on the meta device: also where dim 0 equals a
  // micro-batch's rows by chance (4 features, micro-batches of 4 rows).
  auto g = std::make_unique<Graph>();
  Node* in = g->placeholder("x");
  Node* gram = g->call_function("aten::mm", {g->call_function("aten::t", {in}), in});
  g->output(Argument::Tuple({g->call_function("aten::relu", {in}), gram}));
  GraphModule gm(empty_module("Gram"), std::move(g));
  auto refused = check_outputs_follow_the_batch(gm, {at::rand({8, 4})}, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("output 1 is float[4, 4] for the whole batch of 8 rows"));
  EXPECT_TRUE(check_outputs_follow_the_batch(gm, {at::rand({8, 4})}, 1).ok());
  auto g2 = std::make_unique<Graph>();
  Node* in2 = g2->placeholder("x");
  g2->output(g2->call_function("aten::relu", {in2}));
  GraphModule rows_only(empty_module("Rows"), std::move(g2));
  EXPECT_TRUE(check_outputs_follow_the_batch(rows_only, {at::rand({8, 4})}, 2).ok());
}

}  // namespace
}  // namespace fx
