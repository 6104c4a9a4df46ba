// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_fusion/mkldnn_fusion.h"

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <c10/core/InferenceMode.h>
#include <torch/version.h>

#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <utility>
#include <vector>

#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/const_fold/const_fold.h"
#include "passes/cse/cse.h"
#include "passes/dce/dce.h"
#include "passes/fold_bn/fold_bn.h"
#include "passes/inline/inline.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/graph_module.h"
#include "runtime/interpreter/interpreter.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::count_targets;
using testing::tensors_of;

constexpr char kFused[] = "mkldnn::_convolution_pointwise";
constexpr char kFusedBinary[] = "mkldnn::_convolution_pointwise.binary";
constexpr char kFusedLinear[] = "mkldnn::_linear_pointwise";

class MkldnnFusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"mkldnn_fusion_test", "1", ""});
    register_mkldnn_fusion(r);
    register_fold_bn(r);
    register_const_fold(r);
    register_cse(r);
    register_dce(r);
    register_inline(r);
    register_shape_prop(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` on `gm` with example `inputs`; returns the warnings.
  std::vector<std::string> run_pipeline(GraphModule& gm, absl::string_view pipeline,
                                        const std::vector<c10::IValue>& inputs) {
    auto pm = PassManager::create(pipeline, registry_);
    EXPECT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    context.set_example_inputs(inputs);
    status_ = pm->run(gm, context);
    return context.warnings();
  }

  // `gm`'s outputs by the execution plan (twice: the first run specialises
  // it) and by the Interpreter equal `expected`, contiguous as they were.
  static void expect_outputs(GraphModule& gm, const std::vector<c10::IValue>& inputs,
                             const std::vector<at::Tensor>& expected, double atol = 1e-4) {
    auto plan = ExecutionPlan::compile(gm);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<std::vector<at::Tensor>> runs;
    for (int run = 0; run < 2; ++run) {
      auto got = (*plan)->run(inputs);
      ASSERT_TRUE(got.ok()) << got.status();
      runs.push_back(tensors_of(*got));
    }
    Interpreter interpreter(gm);
    auto got = interpreter.run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    runs.push_back(tensors_of(*got));
    for (const auto& g : runs) {
      ASSERT_EQ(g.size(), expected.size());
      for (size_t i = 0; i < g.size(); ++i) {
        EXPECT_EQ(g[i].is_contiguous(), expected[i].is_contiguous()) << "output " << i;
        EXPECT_TRUE(at::allclose(g[i], expected[i], 1e-4, atol))
            << "output " << i << " differs by " << (g[i] - expected[i]).abs().max().item<float>();
      }
    }
  }

  Registry registry_;
  absl::Status status_;
};

// Skips a test of the fused operators where libtorch has none.
#define SKIP_WITHOUT_FUSED_OPERATORS()                                                      \
  if (!has_mkldnn_pointwise_operators())                                                    \
  GTEST_SKIP() << "libtorch " << TORCH_VERSION << " has no mkldnn::_convolution_pointwise " \
                  "(PyTorch 2.0 on); the pass leaves graphs unchanged there"

// A GraphModule whose graph `build` makes, with a 3x3 convolution weight `w`
// (8 -> 8 channels), its bias `b`, and a linear weight `lw` (8 -> 5).
GraphModule module_of(const std::function<void(Graph&)>& build) {
  auto g = std::make_unique<Graph>();
  build(*g);
  GraphModule gm(empty_module("M"), std::move(g), "M");
  at::manual_seed(0);
  EXPECT_TRUE(gm.add_attribute("w", at::randn({8, 8, 3, 3})).ok());
  EXPECT_TRUE(gm.add_attribute("b", at::randn({8})).ok());
  EXPECT_TRUE(gm.add_attribute("lw", at::randn({5, 8})).ok());
  return gm;
}

Node* conv(Graph& g, Node* x) {
  return g.call_function("aten::conv2d", {x, g.get_attr("w"), g.get_attr("b"),
                                          Argument::List({1, 1}), Argument::List({1, 1})});
}

std::vector<c10::IValue> image() { return {at::randn({2, 8, 10, 10})}; }

// The graph's outputs before any pass.
std::vector<at::Tensor> reference(const std::function<void(Graph&)>& build,
                                  const std::vector<c10::IValue>& inputs) {
  GraphModule gm = module_of(build);
  Interpreter interpreter(gm);
  auto got = interpreter.run(inputs);
  EXPECT_TRUE(got.ok()) << got.status();
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : tensors_of(*got)) out.push_back(t.clone());
  return out;
}

TEST_F(MkldnnFusionTest, AvailableFromLibtorch2On) {
  EXPECT_EQ(has_mkldnn_pointwise_operators(), at::hasMKLDNN() && TORCH_VERSION_MAJOR >= 2);
}

TEST_F(MkldnnFusionTest, WithoutTheOperatorsTheGraphIsUnchangedAndItSaysSo) {
  if (has_mkldnn_pointwise_operators()) GTEST_SKIP() << "this libtorch has the fused operators";
  const auto build = [](Graph& g) { g.output(g.call_function("aten::relu", {conv(g, g.placeholder("x"))})); };
  GraphModule gm = module_of(build);
  const auto warnings = run_pipeline(gm, "shape_prop,mkldnn_fusion", image());
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("has no mkldnn::_convolution_pointwise")));
  EXPECT_EQ(count_targets(gm.graph(), "aten::conv2d"), 1);
}

TEST_F(MkldnnFusionTest, ConvolutionAndReluBecomeOneCallWithAPackedWeight) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) { g.output(g.call_function("aten::relu_", {conv(g, g.placeholder("x"))})); };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  const auto warnings = run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(count_targets(gm.graph(), kFused), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::relu_"), 0);
  auto w = gm.get_attr("w_packed");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->toTensor().is_mkldnn());
  // The graph's output is read contiguous, as before.
  EXPECT_EQ(count_targets(gm.graph(), "aten::contiguous"), 1);
  expect_outputs(gm, inputs, reference(build, inputs));
  // Another batch and size than shape_prop's still run.
  const std::vector<c10::IValue> other = {at::randn({3, 8, 7, 9})};
  expect_outputs(gm, other, reference(build, other));
}

TEST_F(MkldnnFusionTest, EachUnaryPostOpKeepsItsNumbers) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const std::vector<std::pair<std::string, Kwargs>> unaries = {
      {"aten::hardtanh", {{"min_val", 0.0}, {"max_val", 6.0}}},
      {"aten::hardswish_", {}},
      {"aten::silu", {}},
      {"aten::sigmoid", {}},
      {"aten::tanh", {}},
      {"aten::hardsigmoid", {}},
      {"aten::leaky_relu", {{"negative_slope", 0.2}}},
      {"aten::gelu", {{"approximate", "tanh"}}},
      {"aten::gelu", {}}};
  for (const auto& [target, kwargs] : unaries) {
    SCOPED_TRACE(target);
    const auto build = [&, target = target, kwargs = kwargs](Graph& g) {
      g.output(g.call_function(target, {conv(g, g.placeholder("x"))}, kwargs));
    };
    const auto inputs = image();
    GraphModule gm = module_of(build);
    run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
    ASSERT_TRUE(status_.ok()) << status_;
    EXPECT_EQ(count_targets(gm.graph(), kFused), 1);
    EXPECT_EQ(count_targets(gm.graph(), target), 0);
    expect_outputs(gm, inputs, reference(build, inputs), 1e-4);
  }
}

// conv -> add_(conv, residual) -> relu_, as torchvision's ResNet blocks.
TEST_F(MkldnnFusionTest, ResidualAddAndReluJoinTheConvolution) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* first = g.call_function("aten::relu", {conv(g, x)});
    Node* sum = g.call_function("aten::add_.Tensor", {conv(g, first), x});
    g.output(g.call_function("aten::relu_", {sum}));
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  const auto warnings = run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(count_targets(gm.graph(), kFused), 1);
  EXPECT_EQ(count_targets(gm.graph(), kFusedBinary), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::add_.Tensor"), 0);
  expect_outputs(gm, inputs, reference(build, inputs));
}

// The fused call reads the residual where the convolution was: a residual
// written between the convolution and the add must be read after the write.
TEST_F(MkldnnFusionTest, ResidualWrittenBeforeTheAddIsNotReadEarly) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* residual = g.call_function("aten::relu", {x});
    Node* c = conv(g, x);
    g.call_function("aten::mul_.Scalar", {residual, 2.0});
    g.output(g.call_function("aten::add.Tensor", {c, residual}));
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFusedBinary), 0);
  EXPECT_EQ(count_targets(gm.graph(), "aten::add.Tensor"), 1);
  expect_outputs(gm, inputs, reference(build, inputs));
}

// A residual computed after the convolution moves the fused call to the add:
// an input of the convolution written in between must not be read there.
TEST_F(MkldnnFusionTest, ConvolutionInputWrittenBeforeALaterResidualIsNotReadLate) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.call_function("aten::mul.Scalar", {g.placeholder("x"), 1.0});
    Node* c = conv(g, x);
    Node* residual = g.call_function("aten::relu_", {x});
    g.output(g.call_function("aten::add.Tensor", {c, residual}));
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFusedBinary), 0);
  expect_outputs(gm, inputs, reference(build, inputs));
}

// An out= overload's result is the tensor it writes: not a post-op.
TEST_F(MkldnnFusionTest, OutOverloadIsNotAPostOp) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* buffer = g.call_function("aten::zeros_like", {g.placeholder("x")});
    g.call_function("aten::tanh.out", {conv(g, g.placeholder("y"))}, {{"out", buffer}});
    g.output(buffer);
  };
  const std::vector<c10::IValue> inputs = {at::randn({2, 8, 10, 10}), at::randn({2, 8, 10, 10})};
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), "aten::tanh.out"), 1);
  expect_outputs(gm, inputs, reference(build, inputs));
}

TEST_F(MkldnnFusionTest, BroadcastingAddStaysAnAdd) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* shift = g.placeholder("shift");
    g.output(g.call_function("aten::add.Tensor", {conv(g, x), shift}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({2, 8, 10, 10}), at::randn({8, 1, 1})};
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFused), 1);
  EXPECT_EQ(count_targets(gm.graph(), kFusedBinary), 0);
  EXPECT_EQ(count_targets(gm.graph(), "aten::add.Tensor"), 1);
  expect_outputs(gm, inputs, reference(build, inputs));
}

// A view of a convolution's result taken before an in-place write of it must
// see the write: a view of a contiguous copy would not, so that convolution
// stays as it was, and the pass says why.
TEST_F(MkldnnFusionTest, ViewOfAWrittenResultLeavesItsRegionAlone) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* c = conv(g, g.placeholder("x"));
    Node* flat = g.call_function("aten::view", {c, Argument::List({-1})});
    Node* relu = g.call_function("aten::relu_", {c});
    g.output(Argument::Tuple({flat, g.call_function("aten::mul.Scalar", {relu, 2.0})}));
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  const auto warnings = run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFused), 0);
  EXPECT_THAT(warnings, Contains(HasSubstr("would read a contiguous copy")));
  expect_outputs(gm, inputs, reference(build, inputs));
}

// Elementwise operators and pooling read channels-last values as they are;
// a view reads a contiguous copy.
TEST_F(MkldnnFusionTest, ViewsReadContiguousCopiesPoolingDoesNot) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* c = g.call_function("aten::relu", {conv(g, g.placeholder("x"))});
    Node* pooled = g.call_function("aten::max_pool2d", {c, Argument::List({2, 2})});
    Node* scaled = g.call_function("aten::mul.Scalar", {pooled, 0.5});
    g.output(g.call_function("aten::view", {scaled, Argument::List({2, -1})}));
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFused), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::contiguous"), 1);
  for (const Node* n : gm.graph().nodes()) {
    if (n->target() == "aten::contiguous") {
      EXPECT_EQ(n->input_nodes()[0]->target(), "aten::mul.Scalar");
    }
  }
  expect_outputs(gm, inputs, reference(build, inputs));
}

TEST_F(MkldnnFusionTest, WeightTheGraphWritesIsLeftAlone) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* out = g.call_function("aten::relu", {conv(g, x)});
    g.call_function("aten::mul_.Scalar", {g.get_attr("w"), 2.0});
    g.output(out);
  };
  const auto inputs = image();
  GraphModule gm = module_of(build);
  const auto warnings = run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFused), 0);
  EXPECT_THAT(warnings, Contains(HasSubstr("its weight may be written by the graph")));
}

TEST_F(MkldnnFusionTest, LinearAndGeluBecomeOneInnerProduct) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  const auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* y = g.call_function("aten::linear", {x, g.get_attr("lw")});
    g.output(g.call_function("aten::gelu", {y}));
  };
  const std::vector<c10::IValue> inputs = {at::randn({3, 4, 8})};
  GraphModule gm = module_of(build);
  run_pipeline(gm, "shape_prop,mkldnn_fusion", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kFusedLinear), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::gelu"), 0);
  expect_outputs(gm, inputs, reference(build, inputs));

  GraphModule kept = module_of(build);
  run_pipeline(kept, "shape_prop,mkldnn_fusion{linear=false}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(kept.graph(), kFusedLinear), 0);
}

TEST_F(MkldnnFusionTest, WithoutShapesItSaysToRunShapeProp) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  GraphModule gm = module_of([](Graph& g) { g.output(conv(g, g.placeholder("x"))); });
  run_pipeline(gm, "mkldnn_fusion", image());
  EXPECT_EQ(status_.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status_.message()), HasSubstr("put shape_prop"));
}

// The whole pipeline on torchvision's networks: every convolution fused (with
// its ReLU or ReLU6, and the residual adds), the classifier an inner product,
// and the model's outputs.
TEST_F(MkldnnFusionTest, TorchvisionModelsKeepTheirOutputs) {
  SKIP_WITHOUT_FUSED_OPERATORS();
  c10::InferenceMode guard;
  for (const std::string name : {"resnet18.pt", "mobilenet_v2.pt"}) {
    SCOPED_TRACE(name);
    torch::jit::Module m = testing::load_fixture(name);
    const std::vector<c10::IValue> inputs = {at::randn({2, 3, 224, 224})};
    auto traced = Tracer().trace(m);
    ASSERT_TRUE(traced.ok()) << traced.status();
    const auto warnings = run_pipeline(
        *traced, "inline,fold_bn,const_fold,cse,dce,shape_prop{device=meta},mkldnn_fusion,dce", inputs);
    ASSERT_TRUE(status_.ok()) << status_;
    EXPECT_THAT(warnings, IsEmpty());
    const bool resnet = name == "resnet18.pt";
    EXPECT_EQ(count_targets(traced->graph(), kFused) + count_targets(traced->graph(), kFusedBinary), resnet ? 20 : 52);
    EXPECT_EQ(count_targets(traced->graph(), kFusedBinary), resnet ? 8 : 10);
    EXPECT_EQ(count_targets(traced->graph(), "aten::_convolution") + count_targets(traced->graph(), "aten::conv2d"), 0);
    EXPECT_EQ(count_targets(traced->graph(), kFusedLinear), 1);
    expect_outputs(*traced, inputs, tensors_of(m.forward(inputs)), 1e-3);
  }
}

}  // namespace
}  // namespace fx
