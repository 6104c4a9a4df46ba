// Copyright 2026 The FX for C++ Authors.
#include "passes/cse/cse.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>

#include <iostream>

#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using testing::node_names;
using testing::node_targets;

// Runs `g` on `inputs` before and after CSE and expects the same result.
// Returns the number of nodes CSE removed.
size_t cse_keeps_results(std::unique_ptr<Graph> g, std::vector<c10::IValue> inputs,
                         std::vector<std::string>* names_after = nullptr) {
  GraphModule gm(empty_module("Cse"), std::move(g));
  std::vector<c10::IValue> before_inputs;
  for (const c10::IValue& v : inputs) before_inputs.push_back(testing::deep_clone(v));
  auto before = gm(before_inputs);
  EXPECT_TRUE(before.ok()) << before.status();
  size_t removed = eliminate_common_subexpressions(gm.graph());
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  auto after = gm(inputs);
  EXPECT_TRUE(after.ok()) << after.status();
  if (before.ok() && after.ok()) {
    std::string why;
    EXPECT_TRUE(testing::all_close(*before, *after, &why)) << why << "\n" << format_graph(gm.graph());
  }
  if (names_after != nullptr) *names_after = node_names(gm.graph());
  return removed;
}

TEST(CseTest, MergesIdenticalPureNodesAndTheirUsersInTurn) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_function("aten::relu", {x});
  Node* b = g->call_function("aten::relu", {x});
  Node* na = g->call_method("neg", {a});      // identical once b is a
  Node* nb = g->call_method("neg", {b});
  Node* s = g->call_function("operator.add", {na, nb});
  g->output(s);
  std::vector<std::string> names;
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}, &names), 2u);
  EXPECT_THAT(names, ElementsAre("x", "relu", "neg", "add", "output"));
}

TEST(CseTest, LiteralsMustBeEqualBitForBitAndOfTheSameKind) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_function("aten::mul.Scalar", {x, 0.0});
  Node* b = g->call_function("aten::mul.Scalar", {x, -0.0});  // 1/(x*-0.0) differs
  Node* c = g->call_function("aten::pow.Tensor_Scalar", {x, 2});
  Node* d = g->call_function("aten::pow.Tensor_Scalar", {x, 2.0});
  Node* e = g->call_function("aten::sum.dim_IntList", {x, Argument::List({0})}, {{"keepdim", true}});
  Node* f = g->call_function("aten::sum.dim_IntList", {x, Argument::List({0})}, {{"keepdim", false}});
  g->output(Argument::Tuple({a, b, c, d, e, f}));
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}), 0u);
}

TEST(CseTest, DifferentKwargsOrTypesAreDifferentNodes) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_function("torch.sum", {x}, {{"dim", 0}});
  Node* b = g->call_function("torch.sum", {x}, {{"dim", 0}});
  Node* c = g->call_function("torch.sum", {x});
  g->output(Argument::Tuple({a, b, c}));
  std::vector<std::string> names;
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({2, 3})}, &names), 1u);
  EXPECT_THAT(names, ElementsAre("x", "sum_1", "sum_3", "output"));
}

TEST(CseTest, KeepsRandomOperatorsApart) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  std::vector<Argument> outs;
  for (int i = 0; i < 2; ++i) {
    outs.push_back(g->call_function("aten::rand_like", {x}));
    outs.push_back(g->call_function("torch.rand_like", {x}));
    outs.push_back(g->call_function("aten::bernoulli.p", {x, 0.5}));
    outs.push_back(g->call_method("bernoulli", {x}));
    outs.push_back(g->call_function("aten::dropout", {x, 0.5, true}));
    outs.push_back(g->call_function("torch.randn", {Argument::List({3})}));
  }
  g->output(Argument::Tuple(outs));
  GraphModule gm(empty_module("Random"), std::move(g));
  EXPECT_EQ(eliminate_common_subexpressions(gm.graph()), 0u);
  EXPECT_TRUE(gm.lint().ok());
}

TEST(CseTest, KeepsInPlaceOutVariantsAndSideEffects) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* out = g->placeholder("out");
  g->call_function("aten::add_.Scalar", {x, 1});
  g->call_function("aten::add_.Scalar", {x, 1});
  g->call_function("aten::neg.out", {x}, {{"out", out}});
  g->call_function("aten::neg.out", {x}, {{"out", out}});
  g->call_function("torch.neg", {x}, {{"out", out}});
  g->call_function("torch.neg", {x}, {{"out", out}});
  g->call_function("aten::warn", {"hello"});
  g->call_function("aten::warn", {"hello"});
  g->output(x);
  GraphModule gm(empty_module("Effects"), std::move(g));
  EXPECT_EQ(eliminate_common_subexpressions(gm.graph()), 0u);
}

TEST(CseTest, KeepsCallModuleAndLeafFunctions) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_module("counter", {x});
  Node* b = g->call_module("counter", {x});
  Node* c = g->call_function("__torch__.my_leaf", {x});
  Node* d = g->call_function("__torch__.my_leaf", {x});
  g->output(Argument::Tuple({a, b, c, d}));
  EXPECT_EQ(eliminate_common_subexpressions(*g), 0u);
}

// A module call may update any tensor of the module's state in place (a
// BatchNorm's running statistics in training, a cache's memory): reads of a
// view of a module tensor on either side of it are two values, though no
// operand of the call is that tensor.
TEST(CseTest, KeepsReadsOfModuleStateOnBothSidesOfAModuleCall) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* before = g->call_function("aten::add.Tensor",
                                  {g->call_function("aten::view", {g->get_attr("bn.running_mean"), Argument::List({8})}), 1.0});
  Node* y = g->call_module("bn", {g->call_function("aten::relu", {x})});
  Node* after = g->call_function("aten::add.Tensor",
                                 {g->call_function("aten::view", {g->get_attr("bn.running_mean"), Argument::List({8})}), 1.0});
  g->output(Argument::Tuple({before, y, after}));
  const size_t removed = eliminate_common_subexpressions(*g);
  EXPECT_EQ(removed, 0u) << format_graph(*g);
  EXPECT_EQ(testing::count_targets(*g, "aten::add.Tensor"), 2);
}

TEST(CseTest, KeepsAReadOfAnOperandWrittenBetweenTheTwo) {
  // relu(x); x.add_(1); relu(x): the second relu sees the new x.
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* c = g->call_method("clone", {x});
  Node* a = g->call_function("aten::relu", {c});
  Node* view = g->call_method("view", {c, -1});
  g->call_function("aten::add_.Scalar", {view, 1});   // writes c through a view
  Node* b = g->call_function("aten::relu", {c});
  g->output(Argument::Tuple({a, b}));
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}), 0u);
}

TEST(CseTest, KeepsValuesThatAreLaterWrittenDifferently) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_method("clone", {x});
  Node* b = g->call_method("clone", {x});
  g->call_function("aten::add_.Scalar", {a, 1});
  g->call_function("aten::add_.Scalar", {b, 2});
  g->output(Argument::Tuple({a, b}));
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}), 0u);
}

// Inlined torchvision graphs are full of `relu_` on fresh convolution
// results: such a write changes no other value, so merges elsewhere go on.
TEST(CseTest, InPlaceWritesOnFreshResultsDoNotStopOtherMerges) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->call_function("aten::mul.Scalar", {x, 2});
  Node* r = g->call_function("aten::relu_", {y});
  Node* a = g->call_function("aten::sigmoid", {x});
  Node* b = g->call_function("aten::sigmoid", {x});
  g->output(Argument::Tuple({r, a, b}));
  std::vector<std::string> names;
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}, &names), 1u);
  EXPECT_THAT(names, ElementsAre("x", "mul", "relu_", "sigmoid", "output"));
}

// atleast_2d returns a 2-D input itself although its schema says nothing:
// writing its result writes h, so sin(h) after the write is another value.
TEST(CseTest, OperatorsReturningTheirInputUnsaidAreAliases) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* h = g->call_method("clone", {x});
  Node* a = g->call_function("aten::sin", {h});
  Node* b = g->call_function("aten::atleast_2d", {h});
  g->call_function("aten::mul_.Scalar", {b, 2});
  Node* c = g->call_function("aten::sin", {h});
  g->output(Argument::Tuple({a, c}));
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({2, 3})}), 0u);
}

TEST(CseTest, AssertionsStayAndDoNotBlockMerges) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* a = g->call_function("aten::relu", {x});
  g->call_function("torch._assert", {true, "x"});
  g->call_function("torch._assert", {true, "x"});
  Node* b = g->call_function("aten::relu", {x});
  g->output(Argument::Tuple({a, b}));
  std::vector<std::string> names;
  EXPECT_EQ(cse_keeps_results(std::move(g), {at::randn({4})}, &names), 1u);
  EXPECT_THAT(names, ElementsAre("x", "relu", "_assert", "_assert_1", "output"));
}

TEST(CseTest, MergesGetAttrsGetItemsAndPassRuns) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w1 = g->get_attr("w");
  Node* w2 = g->get_attr("w");
  Node* s1 = g->call_function("aten::split.Tensor", {x, 2});
  Node* s2 = g->call_function("aten::split.Tensor", {x, 2});
  Node* i1 = g->call_function("operator.getitem", {s1, 0});
  Node* i2 = g->call_function("operator.getitem", {s2, 0});
  Node* m1 = g->call_function("operator.mul", {i1, w1});
  Node* m2 = g->call_function("operator.mul", {i2, w2});
  g->output(g->call_function("operator.add", {m1, m2}));
  GraphModule gm(empty_module("Attrs"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("w", at::randn({2})).ok());
  at::Tensor in = at::randn({4});
  auto before = gm({in});
  ASSERT_TRUE(before.ok()) << before.status();

  Registry registry;
  PluginRegistrar r({"cse", "1", ""});
  register_cse(r);
  ASSERT_TRUE(registry.commit(r).ok());
  auto pm = PassManager::create("cse", registry);
  ASSERT_TRUE(pm.ok()) << pm.status();
  PassContext context(registry);
  ASSERT_TRUE(pm->run(gm, context).ok());
  EXPECT_THAT(node_names(gm.graph()),
              ElementsAre("x", "w", "split", "getitem", "mul", "add", "output"));
  auto after = gm({in});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(at::allclose(before->toTensor(), after->toTensor()));
}

TEST(CseTest, TorchvisionModelsComputeTheSameAfterCse) {
  for (const std::string name : {"resnet18", "mobilenet_v2", "googlenet"}) {
    for (bool inlined : {false, true}) {
      GraphModule gm = testing::trace_fixture(name + ".pt");
      // Inlined, the graph is ATen operators with in-place relu_ and
      // hardtanh_ on fresh results: what cse must see through.
      if (inlined) {
        ASSERT_TRUE(testing::run_pipeline(gm, "inline{recurse=true}").ok());
      }
      const size_t before = node_names(gm.graph()).size();
      const size_t removed = eliminate_common_subexpressions(gm.graph());
      EXPECT_EQ(node_names(gm.graph()).size(), before - removed);
      ASSERT_TRUE(gm.lint().ok()) << name << ": " << gm.lint();
      testing::expect_runs_like_the_fixture(gm, name + ".pt",
                                           testing::example_inputs(name), name);
      std::cout << name << (inlined ? " inlined" : "") << ": cse removed " << removed << " of "
                << before << " nodes\n";
    }
  }
}

}  // namespace
}  // namespace fx
