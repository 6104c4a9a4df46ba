// Copyright 2026 The FX for C++ Authors.
#include "passes/invert/invert.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/sinh.h>
#include <ATen/ops/tan.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"
#include "tracer/proxy.h"
#include "tracer/symbolic_trace.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

class InvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"invert", "1.0", ""});
    register_invert(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }
  absl::Status invert(GraphModule& gm) {
    PassContext ctx(registry_);
    absl::Status s = Invert().run(gm, ctx);
    if (s.ok()) {
      absl::Status lint = gm.lint();
      EXPECT_TRUE(lint.ok()) << lint;
    }
    return s;
  }
  at::Tensor run(GraphModule& gm, at::Tensor x) {
    auto out = gm({x});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? out->toTensor() : at::Tensor();
  }
  Registry registry_;
};

TEST_F(InvertTest, SeedExpTanInvertsToLogThenAtan) {
  auto f = [](auto x) { return exp(tan(x)); };
  GraphModule res = symbolic_trace(f, "x");
  ASSERT_TRUE(invert(res).ok());
  EXPECT_EQ(res.code(),
            "def forward(self, output):\n"
            "    log = torch.log(output);  output = None\n"
            "    atan = torch.atan(log);  log = None\n"
            "    return atan\n");
  // print(f(res((torch.arange(5) + 1)))) -> tensor([1., 2., 3., 4., 5.])
  at::Tensor x = at::arange(5) + 1;
  EXPECT_TRUE(at::allclose(f(run(res, x)), x.to(at::kFloat), 1e-4, 1e-4));
}

TEST_F(InvertTest, TracedTorchScriptModuleKeepsTheOperatorForm) {
  auto gm = testing::trace_fixture_result("exp_tan.pt");
  ASSERT_TRUE(gm.ok());
  ASSERT_TRUE(invert(*gm).ok());
  std::vector<std::string> targets;
  for (const Node* n : gm->graph().nodes()) targets.push_back(n->target());
  EXPECT_THAT(targets, ::testing::ElementsAre("output", "aten::log", "aten::atan", "output"));
  at::Tensor x = at::rand({6}) + 0.5;
  EXPECT_TRUE(at::allclose(at::exp(at::tan(run(*gm, x))), x, 1e-4, 1e-4));
}

TEST_F(InvertTest, ArithmeticWithConstantsAndMethods) {
  auto f = [](auto x) { return ((2 - x * 3.0 + 1) / 4.0).sigmoid().neg(); };
  GraphModule gm = symbolic_trace(f, "x");
  ASSERT_TRUE(invert(gm).ok());
  at::Tensor x = at::rand({5});
  EXPECT_TRUE(at::allclose(run(gm, f(x)), x, 1e-4, 1e-4)) << gm.code();
  EXPECT_THAT(gm.code(), HasSubstr("logit = neg.logit()"));
}

TEST_F(InvertTest, ThePairsTableCanBeExtended) {
  auto f = [](auto x) { return sinh(x).call_method("erf"); };
  GraphModule gm = symbolic_trace(f, "x");
  absl::Status missing = invert(gm);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()),
              HasSubstr("node 'erf' (call_method erf) has no registered inverse; a plugin can add one "
                        "to table 'invert.inverses'"));
  PluginRegistrar more({"erf_plugin", "1.0", ""});
  more.add_table_entry(kInverseTable, "erf", "erfinv");
  ASSERT_TRUE(registry_.commit(more).ok());
  GraphModule again = symbolic_trace(f, "x");
  ASSERT_TRUE(invert(again).ok());
  at::Tensor x = at::rand({4}) * 0.5;
  EXPECT_TRUE(at::allclose(run(again, at::sinh(x).erf()), x, 1e-4, 1e-4));
}

TEST_F(InvertTest, ErrorsNameTheNodeAndTheReason) {
  {
    auto gm = testing::trace_fixture_result("m2.pt");  // a + b
    absl::Status s = invert(*gm);
    EXPECT_EQ(std::string(s.message()), "the graph has 2 inputs (a, b); invert needs exactly one");
  }
  {
    GraphModule gm = symbolic_trace([](auto x) { return x * exp(x); }, "x");
    absl::Status s = invert(gm);
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("node 'mul' (call_function operator.mul) takes 2 values of the graph (x, exp)"));
  }
  {
    GraphModule gm = symbolic_trace([](auto x) { return std::make_tuple(exp(x), sin(x)); }, "x");
    EXPECT_THAT(std::string(invert(gm).message()), HasSubstr("must return one value"));
  }
  {
    GraphModule gm = symbolic_trace([](auto x) { return relu(x); }, "x");
    EXPECT_THAT(std::string(invert(gm).message()),
                HasSubstr("node 'relu' (call_function torch.relu) has no registered inverse"));
  }
  {
    GraphModule gm = symbolic_trace([](auto x) { return x * 0; }, "x");
    EXPECT_THAT(std::string(invert(gm).message()), HasSubstr("multiplying or dividing by 0"));
  }
  {
    auto gm = testing::trace_fixture_result("m1.pt");  // call_module relu
    EXPECT_THAT(std::string(invert(*gm).message()), HasSubstr("(inline the module first)"));
  }
}

}  // namespace
}  // namespace fx
