// Copyright 2026 The FX for C++ Authors.
#include "distributed/batch_independence.h"

#include <memory>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>

#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "distributed/microbatches.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// The message of checking `gm` at a batch of `rows` rows of `features`,
// cut in two ("" when accepted).
std::string refusal(const GraphModule& gm, std::vector<int64_t> shape, int count = 2) {
  absl::Status s = check_outputs_follow_the_batch(gm, {at::rand(shape)}, count);
  return s.ok() ? "" : std::string(s.message());
}

// Issue 53: a contrastive head's Gram matrix x @ x.t() follows the batch in
// dim 0 ([4, 4] whole, [2, 2] per micro-batch): fxrun gave [4, 2], exit 0.
TEST(BatchIndependenceTest, AGramMatrixAcrossTheBatchIsRefused) {
  for (const char* target : {"aten::matmul", "operator.matmul", "torch.matmul", "aten::mm"}) {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* t = g->call_method("t", {x});
    Node* gram = g->call_function(target, {x, t});
    g->output(Argument::Tuple({g->call_function("aten::relu", {x}), gram}));
    GraphModule gm(empty_module("Contrastive"), std::move(g));
    for (int64_t rows : {4, 3}) {
      const std::string message = refusal(gm, {rows, 3});
      EXPECT_THAT(message, HasSubstr(absl::StrCat("output 1 mixes samples of the batch: node '",
                                                  gram->name(), "' (", target, ") multiplies the batch "
                                                  "dimension of 'x' (its dim 0) with the batch "
                                                  "dimension of 't' (its dim 1)")))
          << target << " " << rows;
      EXPECT_THAT(message, HasSubstr("run with --microbatches=1"));
    }
    EXPECT_TRUE(check_outputs_follow_the_batch(gm, {at::rand({4, 3})}, 1).ok());
  }
}

// Reductions over the batch: a mean over dim 0 (centering by the batch's
// statistics) and a sum over every dim.
TEST(BatchIndependenceTest, AReductionOverTheBatchIsRefused) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* mean = g->call_function("aten::mean.dim", {x, Argument::List({0}), true});
  g->output(g->call_function("aten::sub.Tensor", {x, mean}));
  GraphModule centered(empty_module("Centered"), std::move(g));
  EXPECT_THAT(refusal(centered, {4, 3}),
              HasSubstr("the output mixes samples of the batch: node 'mean' (aten::mean.dim) "
                        "averages over the batch dimension of 'x' (its dim 0)"));

  auto g2 = std::make_unique<Graph>();
  Node* x2 = g2->placeholder("x");
  Node* sum = g2->call_method("sum", {x2});
  g2->output(g2->call_function("operator.truediv", {x2, sum}));
  GraphModule normalised(empty_module("Normalised"), std::move(g2));
  EXPECT_THAT(refusal(normalised, {4, 3}),
              HasSubstr("(method sum) sums over every dimension of 'x', the batch's "
                        "(dim 0) included"));

  // Over the features: kept apart.
  auto g3 = std::make_unique<Graph>();
  Node* x3 = g3->placeholder("x");
  Node* row_mean = g3->call_function("aten::mean.dim", {x3, Argument::List({-1}), true});
  g3->output(g3->call_function("aten::sub.Tensor", {x3, row_mean}));
  GraphModule per_row(empty_module("PerRow"), std::move(g3));
  EXPECT_EQ(refusal(per_row, {4, 3}), "");
}

// A view that puts other samples' values in a row: [4, 2] -> [2, 4] -> t().
TEST(BatchIndependenceTest, AReshapeThatMergesTheBatchIsRefused) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* view = g->call_method("view", {x, 2, -1});
  g->output(g->call_method("t", {view}));
  GraphModule gm(empty_module("Scrambled"), std::move(g));
  EXPECT_THAT(refusal(gm, {4, 2}),
              HasSubstr("the output mixes samples of the batch: node 'view' (method view) reshapes "
                        "'x' (float[4, 2], the batch in dim 0) into float[2, 4]"));

  auto g2 = std::make_unique<Graph>();
  Node* x2 = g2->placeholder("x");
  g2->output(g2->call_function("aten::flatten.using_ints", {x2}));
  GraphModule flat(empty_module("Flat"), std::move(g2));
  absl::Status s = check_samples_kept_apart(flat, {at::rand({4, 2})}, 2);
  EXPECT_THAT(std::string(s.message()), HasSubstr("node 'flatten' (aten::flatten.using_ints) reshapes 'x'"));

  // view(x.size(0), -1): the batch kept as a dim of its own.
  auto g3 = std::make_unique<Graph>();
  Node* x3 = g3->placeholder("x");
  Node* rows = g3->call_method("size", {x3, 0});
  g3->output(g3->call_method("view", {x3, rows, -1}));
  GraphModule kept(empty_module("Kept"), std::move(g3));
  EXPECT_EQ(refusal(kept, {4, 2, 3}), "");
}

// Indexing across the batch: x - x[0]; flipping the batch.
TEST(BatchIndependenceTest, IndexingAcrossTheBatchIsRefused) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* first = g->call_function("aten::select.int", {x, 0, 0});
  g->output(g->call_function("aten::sub.Tensor", {x, first}));
  GraphModule gm(empty_module("FirstRow"), std::move(g));
  EXPECT_THAT(refusal(gm, {4, 3}),
              HasSubstr("node 'select' (aten::select.int) indexes across the batch dimension of 'x' "
                        "(its dim 0)"));

  auto g2 = std::make_unique<Graph>();
  Node* x2 = g2->placeholder("x");
  g2->output(g2->call_function("aten::flip", {x2, Argument::List({0})}));
  GraphModule flipped(empty_module("Flipped"), std::move(g2));
  EXPECT_THAT(refusal(flipped, {4, 3}), HasSubstr("node 'flip' (aten::flip) reverses the batch dimension"));

  // A column of every row: kept apart.
  auto g3 = std::make_unique<Graph>();
  Node* x3 = g3->placeholder("x");
  g3->output(g3->call_function("aten::select.int", {x3, 1, 0}));
  GraphModule column(empty_module("Column"), std::move(g3));
  EXPECT_EQ(refusal(column, {4, 3}), "");
}

// Batch norm normalises with the batch's statistics in training mode.
TEST(BatchIndependenceTest, BatchNormInTrainingModeIsRefused) {
  for (bool training : {true, false}) {
    auto root = empty_module("Norm");
    ASSERT_TRUE(root->register_parameter("weight", at::ones({3})).ok());
    ASSERT_TRUE(root->register_parameter("bias", at::zeros({3})).ok());
    ASSERT_TRUE(root->register_buffer("mean", at::zeros({3})).ok());
    ASSERT_TRUE(root->register_buffer("var", at::ones({3})).ok());
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("aten::batch_norm",
                               {x, g->get_attr("weight"), g->get_attr("bias"), g->get_attr("mean"),
                                g->get_attr("var"), training, 0.1, 1e-5, false}));
    GraphModule gm(root, std::move(g));
    const std::string message = refusal(gm, {4, 3, 5});
    if (training) {
      EXPECT_THAT(message, HasSubstr("node 'batch_norm' (aten::batch_norm) normalises with statistics "
                                     "of the whole batch (batch norm in training mode)"));
    } else {
      EXPECT_EQ(message, "");
    }
  }
}

// Concatenating along the batch, or using its size as a value.
TEST(BatchIndependenceTest, CatAlongTheBatchAndTheBatchSizeAsAValueAreRefused) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("aten::cat", {Argument::List({x, x}), 0}));
  GraphModule gm(empty_module("Doubled"), std::move(g));
  absl::Status s = check_samples_kept_apart(gm, {at::rand({4, 3})}, 2);
  EXPECT_THAT(std::string(s.message()), HasSubstr("node 'cat' (aten::cat) concatenates along the batch dimension"));

  auto g2 = std::make_unique<Graph>();
  Node* x2 = g2->placeholder("x");
  Node* rows = g2->call_method("size", {x2, 0});
  g2->output(g2->call_function("operator.truediv", {x2, rows}));
  GraphModule by_rows(empty_module("ByRows"), std::move(g2));
  EXPECT_THAT(refusal(by_rows, {4, 3}), HasSubstr("uses the batch size as a value"));
}

// What keeps samples apart: an MLP, a small conv net, x @ W, attention.
TEST(BatchIndependenceTest, ModelsThatKeepSamplesApartAreAccepted) {
  auto root = empty_module("Net");
  ASSERT_TRUE(root->register_parameter("w1", at::randn({8, 3})).ok());
  ASSERT_TRUE(root->register_parameter("b1", at::randn({8})).ok());
  ASSERT_TRUE(root->register_parameter("w2", at::randn({2, 8})).ok());
  ASSERT_TRUE(root->register_parameter("proj", at::randn({3, 5})).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* h = g->call_function("aten::linear", {x, g->get_attr("w1"), g->get_attr("b1")});
  h = g->call_method("relu", {h});
  h = g->call_function("torch._C._nn.linear", {h, g->get_attr("w2")});
  Node* probabilities = g->call_function("aten::softmax.int", {h, 1});
  Node* projected = g->call_function("operator.matmul", {x, g->get_attr("proj")});
  g->output(Argument::Tuple({probabilities, projected}));
  GraphModule mlp(root, std::move(g));
  EXPECT_EQ(refusal(mlp, {4, 3}), "");
  EXPECT_EQ(refusal(mlp, {3, 3}), "");

  auto conv_root = empty_module("ConvNet");
  ASSERT_TRUE(conv_root->register_parameter("conv_w", at::randn({4, 3, 3, 3})).ok());
  ASSERT_TRUE(conv_root->register_parameter("conv_b", at::randn({4})).ok());
  ASSERT_TRUE(conv_root->register_buffer("mean", at::zeros({4})).ok());
  ASSERT_TRUE(conv_root->register_buffer("var", at::ones({4})).ok());
  ASSERT_TRUE(conv_root->register_parameter("fc_w", at::randn({10, 16})).ok());
  auto cg = std::make_unique<Graph>();
  Node* image = cg->placeholder("x");
  Node* c = cg->call_function("aten::conv2d", {image, cg->get_attr("conv_w"), cg->get_attr("conv_b"),
                                                Argument::List({1, 1}), Argument::List({1, 1})});
  c = cg->call_function("aten::batch_norm", {c, Argument(), Argument(), cg->get_attr("mean"),
                                              cg->get_attr("var"), false, 0.1, 1e-5, false});
  c = cg->call_function("aten::relu", {c});
  c = cg->call_function("aten::max_pool2d", {c, Argument::List({4, 4})});
  c = cg->call_function("aten::flatten.using_ints", {c, 1});
  cg->output(cg->call_function("aten::linear", {c, cg->get_attr("fc_w")}));
  GraphModule conv_net(conv_root, std::move(cg));
  EXPECT_EQ(refusal(conv_net, {4, 3, 8, 8}), "");

  // Attention: both operands batched along bmm's batch dim.
  auto ag = std::make_unique<Graph>();
  Node* q = ag->placeholder("q");
  Node* scores = ag->call_function("aten::matmul", {q, ag->call_method("transpose", {q, 1, 2})});
  Node* weights = ag->call_method("softmax", {scores, -1});
  ag->output(ag->call_function("aten::matmul", {weights, q}));
  GraphModule attention(empty_module("Attention"), std::move(ag));
  EXPECT_EQ(refusal(attention, {4, 5, 6}), "");
}

// A split module's stage is followed inside: the node is named there.
TEST(BatchIndependenceTest, GraphSubmodulesAreFollowedInside) {
  auto inner = std::make_unique<Graph>();
  Node* x = inner->placeholder("x");
  Node* gram = inner->call_function("aten::mm", {x, inner->call_method("t", {x})});
  inner->output(Argument::Tuple({inner->call_function("aten::relu", {x}), gram}));
  auto stage = std::make_shared<GraphModule>(empty_module("Stage"), std::move(inner));
  auto top = std::make_unique<Graph>();
  Node* input = top->placeholder("x");
  Node* call = top->call_module("submod_0", {input});
  top->output(Argument::Tuple({top->call_function("operator.getitem", {call, 0}),
                               top->call_function("operator.getitem", {call, 1})}));
  GraphModule split(empty_module("Split"), std::move(top));
  ASSERT_TRUE(split.add_graph_submodule("submod_0", stage).ok());
  EXPECT_THAT(refusal(split, {4, 3}),
              HasSubstr("output 1 mixes samples of the batch: node 'mm' (aten::mm) multiplies the "
                        "batch dimension of 'x' (its dim 0) with the batch dimension of 't'"));
}

}  // namespace
}  // namespace fx
