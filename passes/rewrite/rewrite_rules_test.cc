// Copyright 2026 The FX for C++ Authors.
#include "passes/rewrite/rewrite_rules.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>

#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "tests/testing/values.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::node_names;

class RewriteRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"rewrite", "1", ""});
    register_rewrite(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` on `gm` and expects the same result on `inputs` after.
  void run_and_compare(absl::string_view pipeline, GraphModule& gm,
                       const std::vector<c10::IValue>& inputs) {
    auto before = gm(inputs);
    ASSERT_TRUE(before.ok()) << before.status();
    auto pm = PassManager::create(pipeline, registry_);
    ASSERT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    absl::Status s = pm->run(gm, context);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE(gm.lint().ok()) << gm.lint();
    auto after = gm(inputs);
    ASSERT_TRUE(after.ok()) << after.status() << "\n" << format_graph(gm.graph());
    std::string why;
    EXPECT_TRUE(testing::all_close(*before, *after, &why)) << why;
  }

  Registry registry_;
};

TEST_F(RewriteRulesTest, ReluOfReluIsOneRelu) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* r1 = g->call_function("aten::relu", {x});
  Node* r2 = g->call_function("aten::relu", {r1});
  Node* r3 = g->call_method("relu", {r2});
  g->output(r3);
  GraphModule gm(empty_module("M"), std::move(g));
  run_and_compare("rewrite{rules=relu_relu},rewrite{rules=relu_relu}", gm, {at::randn({6})});
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "relu_4", "output"));
}

TEST_F(RewriteRulesTest, TransposesThatCancelGo) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* t1 = g->call_function("aten::transpose.int", {x, 1, 2});
  Node* t2 = g->call_function("aten::transpose.int", {t1, 2, 1});
  Node* t3 = g->call_method("transpose", {t2, 0, -1});    // a different pair stays
  Node* t4 = g->call_method("t", {g->call_method("t", {g->call_function("aten::sum.dim_IntList", {t3, Argument::List({2})})})});
  g->output(Argument::Tuple({t3, t4}));
  GraphModule gm(empty_module("M"), std::move(g));
  run_and_compare("rewrite{rules=transpose_transpose}", gm, {at::randn({2, 3, 4})});
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "transpose_2", "sum_1", "output"));
}

TEST_F(RewriteRulesTest, NegOfNegGoesOnlyWhereNothingIsWritten) {
  auto build = [](bool with_write) {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* y = g->call_function("aten::neg", {g->call_function("aten::neg", {x})});
    if (with_write) g->call_function("aten::add_.Scalar", {y, 1});  // x would change too
    g->output(y);
    return GraphModule(empty_module("M"), std::move(g));
  };
  GraphModule pure = build(false);
  run_and_compare("rewrite{rules=neg_neg}", pure, {at::randn({3})});
  EXPECT_THAT(node_names(pure.graph()), ElementsAre("x", "output"));
  GraphModule writes = build(true);
  run_and_compare("rewrite{rules=neg_neg}", writes, {at::randn({3})});
  EXPECT_THAT(node_names(writes.graph()), ElementsAre("x", "neg", "neg_1", "add_", "output"));
}

TEST_F(RewriteRulesTest, AllRulesByDefaultAndUnknownRulesAreNamed) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* r = g->call_function("aten::relu", {g->call_function("aten::relu", {x})});
  g->output(g->call_method("neg", {g->call_method("neg", {r})}));
  GraphModule gm(empty_module("M"), std::move(g));
  run_and_compare("rewrite", gm, {at::randn({4})});
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "relu_2", "output"));

  auto pm = PassManager::create("rewrite{rules=relu_relu,nope}", registry_);
  ASSERT_TRUE(pm.ok()) << pm.status();
  PassContext context(registry_);
  absl::Status s = pm->run(gm, context);
  EXPECT_THAT(std::string(s.message()), HasSubstr("no rule named 'nope'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("relu_relu, transpose_transpose, neg_neg"));
}

}  // namespace
}  // namespace fx
