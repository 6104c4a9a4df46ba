// Copyright 2026 The FX for C++ Authors.
#include "passes/fuse_elementwise/fuse_elementwise.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/kernels/elementwise_kernels.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/graph_module.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/torchscript/script_module.h"

namespace fx {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::count_targets;

GraphModule module_of(const std::function<void(Graph&)>& build) {
  auto g = std::make_unique<Graph>();
  build(*g);
  return GraphModule(empty_module("M"), std::move(g), "M");
}

// The graph's one output, by the Interpreter.
at::Tensor interpret(GraphModule& gm, const std::vector<c10::IValue>& inputs) {
  Interpreter interpreter(gm);
  auto got = interpreter.run(inputs);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? got->toTensor().clone() : at::Tensor();
}

class FuseElementwiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"fuse_elementwise_test", "1", ""});
    register_fuse_elementwise(r);
    register_shape_prop(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs shape_prop and the pass on `gm`; returns the warnings.
  std::vector<std::string> fuse(GraphModule& gm, const std::vector<c10::IValue>& inputs,
                                absl::string_view pipeline = "shape_prop,fuse_elementwise") {
    auto pm = PassManager::create(pipeline, registry_);
    EXPECT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    context.set_example_inputs(inputs);
    status_ = pm->run(gm, context);
    return context.warnings();
  }

  // The graph `build` makes computes, after the pass, what it computed
  // before, bit for bit, by the execution plan (twice: the first run
  // specialises it) and the Interpreter.
  void expect_same_results(const std::function<void(Graph&)>& build, GraphModule& fused,
                           const std::vector<c10::IValue>& inputs) {
    GraphModule original = module_of(build);
    const at::Tensor expected = interpret(original, inputs);
    auto plan = ExecutionPlan::compile(fused);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<at::Tensor> got;
    for (int run = 0; run < 2; ++run) {
      auto out = (*plan)->run(inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      got.push_back(out->toTensor());
    }
    got.push_back(interpret(fused, inputs));
    for (const at::Tensor& g : got) {
      ASSERT_EQ(g.sizes(), expected.sizes());
      EXPECT_TRUE(at::equal(g, expected)) << "differs by " << (g - expected).abs().max().item<double>();
    }
  }

  Registry registry_;
  absl::Status status_;
};

TEST_F(FuseElementwiseTest, AChainBecomesOneCall) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* y = g.placeholder("y");
    Node* a = g.call_function("aten::add.Tensor", {x, 1.0});
    Node* m = g.call_function("aten::mul.Tensor", {a, y});
    Node* d = g.call_function("aten::div.Scalar", {m, 3});
    Node* s = g.call_function("aten::sub.Tensor", {d, x});
    Node* n = g.call_function("aten::neg", {s});
    g.output(g.call_function("aten::relu", {n}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({4, 37}), at::randn({4, 37})};
  GraphModule gm = module_of(build);
  EXPECT_THAT(fuse(gm, inputs), IsEmpty());
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 1);
  EXPECT_EQ(gm.graph().size(), 4u);  // x, y, the call, output
  for (const Node* n : gm.graph().nodes()) {
    if (n->target() != kElementwise) continue;
    EXPECT_EQ(n->args()[0].to_string(),
              "t0=add(i0,1.0);t1=mul(t0,i1);t2=div(t1,3);t3=sub(t2,i0);t4=neg(t3);t5=relu(t4)");
  }
  expect_same_results(build, gm, inputs);
  // Other sizes than shape_prop saw, and a broadcasting one, still compute the same.
  expect_same_results(build, gm, {at::randn({3}), at::randn({3})});
  expect_same_results(build, gm, {at::randn({2, 5}), at::randn({5})});
}

// The chain of 1,000 additions the plan's benchmarks run: one call.
TEST_F(FuseElementwiseTest, AThousandAdditionsAreOneCall) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* v = x;
    for (int i = 0; i < 1000; ++i) v = g.call_function("aten::add.Tensor", {v, i % 2 ? x : Argument(0.5)});
    g.output(v);
  };
  const std::vector<c10::IValue> inputs = {at::randn({1})};
  GraphModule gm = module_of(build);
  fuse(gm, inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::add.Tensor"), 0);
  expect_same_results(build, gm, inputs);
}

// A value read twice stays a value; what reads it fuses around it, and two
// chains meeting at one operator become one call.
TEST_F(FuseElementwiseTest, ValuesReadTwiceStayAndBranchesMeet) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* shared = g.call_function("aten::add.Tensor", {x, 1.0});
    Node* a = g.call_function("aten::mul.Tensor", {shared, 2.0});
    Node* b = g.call_function("aten::mul.Tensor", {shared, 3.0});
    Node* a2 = g.call_function("aten::relu", {a});
    g.output(g.call_function("aten::add.Tensor", {a2, b}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({16})};
  GraphModule gm = module_of(build);
  fuse(gm, inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::add.Tensor"), 1);  // the shared value
  expect_same_results(build, gm, inputs);
}

// A chain's last value read by a later chain as well as by its own users
// (y + f(y)): the later chain reads the fused call.
TEST_F(FuseElementwiseTest, ALaterChainReadsAnEarlierChainsResult) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* a = g.call_function("aten::add.Tensor", {x, 1.0});
    Node* b = g.call_function("aten::mul.Tensor", {a, 2.0});
    Node* c = g.call_function("aten::sub.Tensor", {b, 1.0});
    Node* d = g.call_function("aten::relu", {c});
    g.output(g.call_function("aten::mul.Tensor", {b, d}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({33})};
  GraphModule gm = module_of(build);
  fuse(gm, inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 2);
  EXPECT_EQ(gm.graph().size(), 4u);  // x, two calls, output
  expect_same_results(build, gm, inputs);
}

// What the fast loop would not compute as aten does is not fused:
// broadcasting between full tensors, integers, alpha, in-place operators.
TEST_F(FuseElementwiseTest, WhatItCannotProveStays) {
  const auto build = [](Graph& g) {
    Node* col = g.placeholder("col");
    Node* row = g.placeholder("row");
    Node* i = g.placeholder("i");
    Node* b = g.call_function("aten::add.Tensor", {col, row});
    Node* br = g.call_function("aten::relu", {b});
    Node* ints = g.call_function("aten::mul.Tensor", {i, 3});
    Node* ints2 = g.call_function("aten::add.Tensor", {ints, 1});
    Node* alpha = g.call_function("aten::add.Tensor", {br, br}, {{"alpha", 2}});
    Node* alpha2 = g.call_function("aten::relu", {alpha});
    Node* in_place = g.call_function("aten::relu_", {alpha2});
    g.output(Argument::Tuple({in_place, ints2}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({4, 1}), at::randn({1, 3}),
                                           at::arange(5, at::kLong)};
  GraphModule gm = module_of(build);
  fuse(gm, inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 0);
}

// A chain whose first operator reads a value the graph writes before the
// chain's last operator would read it after the write: left alone, saying so.
TEST_F(FuseElementwiseTest, ReadsMovedPastAWriteAreRefused) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* y = g.call_function("aten::clone", {x});
    Node* a = g.call_function("aten::add.Tensor", {y, 1.0});
    g.call_function("aten::mul_.Scalar", {y, 10.0});
    Node* b = g.call_function("aten::mul.Tensor", {a, 2.0});
    g.output(Argument::Tuple({b, y}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({8})};
  GraphModule gm = module_of(build);
  const auto warnings = fuse(gm, inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(AllOf(HasSubstr("add reads clone, which mul_ may write"),
                                       HasSubstr("would read it later"))));
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 0);
}

// A chain whose first operator reads a view of a module's buffer, and a call
// of that module between its operators: the module's forward updates the
// buffer in place (a BatchNorm's running statistics in training, a cache's
// memory), so one call at the chain's end would read the new values. Left
// alone, naming the module call.
TEST_F(FuseElementwiseTest, ReadsOfModuleStateMovedPastTheModuleCallAreRefused) {
  torch::jit::Module cache(c10::QualifiedName("__torch__.test.Cache"),
                           std::make_shared<torch::jit::CompilationUnit>());
  cache.register_buffer("mem", at::zeros({2, 8}));
  cache.define("def forward(self, x):\n    self.mem.add_(x)\n    return x\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("cache", module_from_torchscript(cache).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* row = g->call_function("aten::select.int", {g->get_attr("cache.mem"), 0, 1});
  Node* a = g->call_function("aten::add.Tensor", {row, 1.0});
  Node* cached = g->call_module("cache", {x});
  Node* b = g->call_function("aten::mul.Tensor", {a, 2.0});
  g->output(Argument::Tuple({b, cached}));
  GraphModule gm(root, std::move(g));
  const at::Tensor ones = at::ones({8});
  const auto warnings = fuse(gm, {ones});
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(AllOf(HasSubstr("add reads select, which cache may write"),
                                       HasSubstr("would read it later"))));
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 0);
  // What the model computes, call after call: (mem[1] before the call + 1) * 2.
  for (int call = 0; call < 3; ++call) {
    auto out = gm({ones * (call + 1)});
    ASSERT_TRUE(out.ok()) << out.status();
    const double before = call == 0 ? 0.0 : call == 1 ? 1.0 : 3.0;
    EXPECT_TRUE(at::equal(out->toTupleRef().elements()[0].toTensor(),
                          at::full({8}, (before + 1.0) * 2.0)))
        << "call " << call;
  }
}

// Two inputs a caller may pass as one tensor: a chain reading one of them is
// not moved past an in-place write to the other (with x and y the same
// tensor, (y + 1) * 2 must read y before x.mul_(3) changes it).
TEST_F(FuseElementwiseTest, ReadsMovedPastAWriteToAnotherInputAreRefused) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* y = g.placeholder("y");
    Node* a = g.call_function("aten::add.Tensor", {y, 1.0});
    g.call_function("aten::mul_.Scalar", {x, 3.0});
    g.output(g.call_function("aten::mul.Tensor", {a, 2.0}));
  };
  GraphModule gm = module_of(build);
  const auto warnings = fuse(gm, {at::randn({8}), at::randn({8})});
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("add reads y, which mul_ may write")));
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 0);
  const at::Tensor same = at::full({8}, 0.5);
  auto out = gm({same, same});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(out->toTensor(), at::full({8}, 3.0)));  // (0.5 + 1) * 2, before x *= 3
}

TEST_F(FuseElementwiseTest, NeedsShapes) {
  GraphModule gm = module_of([](Graph& g) {
    Node* x = g.placeholder("x");
    g.output(g.call_function("aten::relu", {g.call_function("aten::neg", {x})}));
  });
  fuse(gm, {at::randn({2})}, "fuse_elementwise");
  ASSERT_FALSE(status_.ok());
  EXPECT_THAT(std::string(status_.message()), HasSubstr("run shape_prop first"));
}

// PyTorch has no fx::elementwise: files it loads cannot hold the fused graph.
TEST_F(FuseElementwiseTest, FusedGraphsAreNotSavedForPyTorch) {
  GraphModule gm = module_of([](Graph& g) {
    Node* x = g.placeholder("x");
    g.output(g.call_function("aten::relu", {g.call_function("aten::neg", {x})}));
  });
  fuse(gm, {at::randn({2})});
  ASSERT_TRUE(status_.ok()) << status_;
  const absl::Status stored = gm.check_storable("TorchScript");
  ASSERT_FALSE(stored.ok());
  EXPECT_THAT(std::string(stored.message()), HasSubstr("fx::elementwise"));
  EXPECT_THAT(std::string(stored.message()), HasSubstr("save the graph before fuse_elementwise"));
}

// Gradients flow through the fused call as through the operators.
TEST_F(FuseElementwiseTest, GradientsFlowThroughTheCall) {
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* sq = g.call_function("aten::mul.Tensor", {x, x});
    g.output(g.call_function("aten::sub.Tensor", {sq, x}));
  };
  GraphModule gm = module_of(build);
  fuse(gm, {at::randn({6})});
  ASSERT_TRUE(status_.ok()) << status_;
  ASSERT_EQ(count_targets(gm.graph(), kElementwise), 1);
  const at::Tensor x = at::randn({6}).requires_grad_(true);
  const at::Tensor y = interpret(gm, {x});
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), 2 * x.detach() - 1));
}

}  // namespace
}  // namespace fx
