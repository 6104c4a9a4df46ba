// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/mkldnn_layout.h"

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/serialization/import.h>

#include <memory>
#include <string>
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
#include "passes/mkldnn_layout/rank_checks.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/graph_module.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/kernels/mkldnn_kernels.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/platform_bugs.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::count_targets;
using testing::tensors_of;

// The tensors of a value (a tensor or a tuple of them).
class MkldnnLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
    if (!testing::onednn_binary_ops_work()) GTEST_SKIP() << testing::kOneDnnBinaryOpsBroken;
    PluginRegistrar r({"mkldnn_layout_test", "1", ""});
    register_mkldnn_layout(r);
    register_fold_bn(r);
    register_const_fold(r);
    register_cse(r);
    register_dce(r);
    register_inline(r);
    register_shape_prop(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Traces `m`, runs `pipeline` on example `inputs`; returns the warnings.
  std::vector<std::string> convert(const torch::jit::Module& m, absl::string_view pipeline,
                                   const std::vector<c10::IValue>& inputs) {
    auto gm = Tracer().trace(m);
    EXPECT_TRUE(gm.ok()) << gm.status();
    gm_ = std::make_unique<GraphModule>(std::move(*gm));
    auto pm = PassManager::create(pipeline, registry_);
    EXPECT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    context.set_example_inputs(inputs);
    status_ = pm->run(*gm_, context);
    return context.warnings();
  }

  // The graph's outputs by the execution plan and by the Interpreter equal
  // the module's, to float32 rounding.
  void expect_same_outputs(torch::jit::Module& m, const std::vector<c10::IValue>& inputs,
                           double atol = 1e-4) {
    const std::vector<at::Tensor> expected = tensors_of(m.forward(inputs));
    auto plan = ExecutionPlan::compile(*gm_);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (int run = 0; run < 2; ++run) {  // the first run specialises the plan
      auto got = (*plan)->run(inputs);
      ASSERT_TRUE(got.ok()) << got.status();
      const std::vector<at::Tensor> g = tensors_of(*got);
      ASSERT_EQ(g.size(), expected.size());
      for (size_t i = 0; i < g.size(); ++i) {
        EXPECT_FALSE(g[i].is_mkldnn()) << "output " << i;
        EXPECT_TRUE(at::allclose(g[i], expected[i], 1e-4, atol))
            << "output " << i << " differs by " << (g[i] - expected[i]).abs().max().item<float>();
      }
    }
    Interpreter interpreter(*gm_);
    auto got = interpreter.run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<at::Tensor> g = tensors_of(*got);
    for (size_t i = 0; i < g.size(); ++i) {
      EXPECT_TRUE(at::allclose(g[i], expected[i], 1e-4, atol)) << "interpreter, output " << i;
    }
  }

  torch::jit::Module load_model(const std::string& name) {
    return torch::jit::load(testing::runfile("passes/mkldnn_layout/" + name + ".pt"));
  }

  Registry registry_;
  std::unique_ptr<GraphModule> gm_;
  absl::Status status_;
};

std::vector<c10::IValue> small_input() { return {at::randn({1, 3, 16, 16})}; }

TEST_F(MkldnnLayoutTest, ChainRunsInTheLayoutWithOneConversionEachWay) {
  torch::jit::Module m = load_model("chain");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout,dce", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 4);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_mkldnn"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_dense"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_max_pool2d"), 1);
  // ReLU6 and the first hardtanh on 16 channels run in the layout; the last
  // hardtanh, on 8 channels, reads a strided copy in libtorch 1.13.
  const bool eight = mkldnn_elementwise_takes_channels(8);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardtanh) + count_targets(gm_->graph(), kMkldnnHardtanhInPlace),
            eight ? 3 : 2);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::hardtanh"), eight ? 0 : 1);
  // The reordered weights are attributes of the GraphModule.
  auto w = gm_->get_attr("c_0_weight_mkldnn");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->toTensor().is_mkldnn());
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, LoneConvolutionStaysStridedAndSaysWhy) {
  torch::jit::Module m = load_model("lone_conv");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 0);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_mkldnn"), 0);
  EXPECT_THAT(warnings, Contains(HasSubstr("1 convolution(s) for 2 layout conversion(s)")));
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, EveryRegionConvertsEvenALoneConvolution) {
  torch::jit::Module m = load_model("lone_conv");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_mkldnn"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_dense"), 1);
  expect_same_outputs(m, inputs);
}

// libtorch 1.13's optimize_for_inference gets this model wrong (its MKLDNN
// ReLU6 on channels oneDNN pads); here the ReLU6s stay strided on 1.13 and
// run in the layout on 2.x, where that kernel is right.
TEST_F(MkldnnLayoutTest, Relu6OnChannelsOneDnnPadsStaysStrided) {
  torch::jit::Module m = load_model("eight_channel_relu6");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 4);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardtanh) + count_targets(gm_->graph(), kMkldnnHardtanhInPlace),
            mkldnn_elementwise_takes_channels(8) ? 4 : 0);
  expect_same_outputs(m, inputs);
}

// MobileNetV3's in-place hardswish keeps its convolutions in the layout; on
// 8 channels only where the platform's kernel is right (2.x).
TEST_F(MkldnnLayoutTest, HardswishRunsInTheLayout) {
  torch::jit::Module m = load_model("hardswish_blocks");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout,dce", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  const bool eight = mkldnn_elementwise_takes_channels(8);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 3);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardswishInPlace), eight ? 2 : 1);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardswish), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::hardswish_"), eight ? 0 : 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_dense"), 1);
  expect_same_outputs(m, inputs);
}

// An out= overload's result is its `out` buffer: it is no layout operator
// (rewritten on `self` alone it would leave the buffer unwritten).
TEST_F(MkldnnLayoutTest, OutOverloadsStayAsTheyAre) {
  torch::jit::Module m = load_model("out_overloads");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout{every_region=true},dce", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::hardswish.out"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::hardtanh.out"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardswish), 0);
  EXPECT_EQ(count_targets(gm_->graph(), kMkldnnHardtanh), 0);
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, StridedReadersAroundAnInPlaceReluSeeWhatTheySawBefore) {
  torch::jit::Module m = load_model("read_before_in_place");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 4);
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, ValueWrittenByAStridedOperatorIsNotConverted) {
  torch::jit::Module m = load_model("written_by_strided_user");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("may write")));
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, BroadcastingAddStaysStrided) {
  torch::jit::Module m = load_model("broadcast_add");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::add.Tensor"), 1);
  for (const Node* n : gm_->graph().nodes()) {
    if (n->target() != "aten::add.Tensor") continue;
    for (const Node* in : n->input_nodes()) {
      EXPECT_NE(in->target(), "aten::mkldnn_convolution") << "the add reads an MKLDNN tensor";
    }
  }
  expect_same_outputs(m, inputs);
}

// The one call of `name` (aten's operator or torch.nn.functional's function)
// reads a strided tensor: its input is a to_dense.
void expect_reads_strided(const GraphModule& gm, const std::string& name) {
  int seen = 0;
  for (const Node* n : gm.graph().nodes()) {
    if (n->target() != "aten::" + name && n->target() != "torch.nn.functional." + name) continue;
    ++seen;
    ASSERT_FALSE(n->args().empty());
    ASSERT_TRUE(n->args()[0].is_node());
    EXPECT_EQ(n->args()[0].to_node()->target(), "aten::to_dense") << n->name();
  }
  EXPECT_EQ(seen, 1) << name;
}

// Pooling that oneDNN computes otherwise than aten (avg_pool2d in ceil mode
// counting padding: oneDNN divides the windows ceil mode adds by the whole
// kernel, aten by the part over the input and its padding) or refuses when
// the graph runs (max_pool2d with dilation, adaptive_avg_pool2d to sizes that
// do not divide the input's) reads a strided tensor between convolutions in
// the layout.
TEST_F(MkldnnLayoutTest, PoolingThatOneDnnGetsWrongOrRefusesStaysStrided) {
  const std::pair<const char*, const char*> cases[] = {
      {"avg_pool_ceil_mode", "avg_pool2d"},
      {"dilated_max_pool", "max_pool2d"},
      {"adaptive_pool_odd_size", "adaptive_avg_pool2d"},
  };
  for (const auto& [model, pool] : cases) {
    SCOPED_TRACE(model);
    torch::jit::Module m = load_model(model);
    const auto inputs = small_input();
    convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
    ASSERT_TRUE(status_.ok()) << status_;
    EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 4);
    EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_max_pool2d"), 0);
    expect_reads_strided(*gm_, pool);
    expect_same_outputs(m, inputs);
  }
}

// A strided view of a value written in the layout after the view is taken
// would be a view of a copy, blind to the write.
TEST_F(MkldnnLayoutTest, StridedViewsTakenBeforeAnInPlaceWriteSeeTheWrite) {
  torch::jit::Module m = load_model("view_before_in_place");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("writes it in oneDNN's layout")));
  expect_same_outputs(m, inputs);
}

// A convolution's input that views a tensor written in place between two
// convolutions is converted for each: one to_mkldnn would hold the values
// before the write.
TEST_F(MkldnnLayoutTest, ViewOfATensorWrittenBetweenConvolutionsIsConvertedForEach) {
  torch::jit::Module m = load_model("view_of_written_input");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 6);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_mkldnn"), 2);
  expect_same_outputs(m, inputs);
}

// type_as and eval-mode alpha_dropout return their input, although their
// schemas give the result no alias annotation: a relu_ on it writes the
// value, which converting would leave as it was.
TEST_F(MkldnnLayoutTest, ValueWrittenThroughAnUnannotatedAliasIsNotConverted) {
  torch::jit::Module m = load_model("written_through_an_unannotated_alias");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("may write")));
  expect_same_outputs(m, inputs);
}

// After cse, a value's users are not in graph order: its to_dense goes
// before the first of them in the graph.
TEST_F(MkldnnLayoutTest, ConvertsAfterCseMergedTheUsersOfTwoBranches) {
  torch::jit::Module m = load_model("duplicate_branches");
  const auto inputs = small_input();
  convert(m, "inline,cse,shape_prop,mkldnn_layout", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 3);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::to_dense"), 1);
  expect_same_outputs(m, inputs);
}

// A weight the graph writes changes from run to run: a copy reordered once
// would keep the first run's.
TEST_F(MkldnnLayoutTest, WeightTheGraphWritesStaysStrided) {
  torch::jit::Module m = load_model("weight_written_by_the_graph");
  torch::jit::Module reference = load_model("weight_written_by_the_graph");
  const auto inputs = small_input();
  const auto warnings = convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_THAT(warnings, Contains(HasSubstr("conv2d: its weight may be written by the graph")));
  // shape_prop ran the graph once and left the weight as it was.
  auto plan = ExecutionPlan::compile(*gm_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (int run = 0; run < 3; ++run) {
    const at::Tensor expected = reference.forward(inputs).toTensor();
    auto got = (*plan)->run(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(at::allclose(got->toTensor(), expected, 1e-4, 1e-4)) << "run " << run;
  }
}

// An add writes an operand that nothing else reads, as the frozen module's
// add_ does, and leaves operands others read as they were.
TEST_F(MkldnnLayoutTest, AddsWriteOnlyOperandsNothingElseReads) {
  torch::jit::Module m = load_model("adds_into_operands");
  const auto inputs = small_input();
  convert(m, "inline,shape_prop,mkldnn_layout{every_region=true}", inputs);
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), 4);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::add_.Tensor"), 1);
  EXPECT_EQ(count_targets(gm_->graph(), "aten::add.Tensor"), 1);
  for (const Node* n : gm_->graph().nodes()) {
    if (n->target() != "aten::add_.Tensor") continue;
    // Into the second convolution's result: the first's is read by it too.
    EXPECT_EQ(n->args()[0].to_node()->target(), "aten::mkldnn_convolution");
    EXPECT_EQ(n->args()[0].to_node()->users().size(), 1u);
  }
  expect_same_outputs(m, inputs);
}

TEST_F(MkldnnLayoutTest, WithoutShapesItSaysToRunShapeProp) {
  torch::jit::Module m = load_model("chain");
  convert(m, "inline,mkldnn_layout", small_input());
  EXPECT_EQ(status_.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status_.message()), HasSubstr("put shape_prop"));
}

// The pipeline on torchvision's networks: every convolution runs in
// the layout, with one conversion each way (MobileNetV2's ReLU6s all follow
// convolutions of a multiple of 16 channels), and the model's outputs.
TEST_F(MkldnnLayoutTest, TorchvisionModelsAfterFoldingKeepTheirOutputs) {
  c10::InferenceMode guard;
  for (const std::string name : {"resnet18.pt", "mobilenet_v2.pt"}) {
    SCOPED_TRACE(name);
    torch::jit::Module m = testing::load_fixture(name);
    const std::vector<c10::IValue> inputs = {at::randn({2, 3, 224, 224})};
    convert(m, "inline,fold_bn,const_fold,cse,dce,shape_prop{device=meta},mkldnn_layout,dce",
            inputs);
    ASSERT_TRUE(status_.ok()) << status_;
    EXPECT_EQ(count_targets(gm_->graph(), "aten::mkldnn_convolution"), name == "resnet18.pt" ? 20 : 52);
    EXPECT_EQ(count_targets(gm_->graph(), "aten::to_mkldnn"), 1);
    EXPECT_EQ(count_targets(gm_->graph(), "aten::to_dense"), 1);
    // ResNet-18's eight residual adds write their block's last convolution.
    EXPECT_EQ(count_targets(gm_->graph(), "aten::add_.Tensor"), name == "resnet18.pt" ? 8 : 10);
    EXPECT_EQ(count_targets(gm_->graph(), "aten::add.Tensor"), 0);
    // The folded batch norms' rank checks on the convolutions are gone.
    EXPECT_EQ(count_targets(gm_->graph(), "aten::dim"), 0);
    EXPECT_EQ(count_targets(gm_->graph(), "torch._assert"), 0);
    expect_same_outputs(m, inputs, 1e-3);
  }
}

// A 1x1 convolution in the layout of `x` by the attribute `w`.
Node* layout_convolution(Graph& g, Node* x) {
  return g.call_function("aten::mkldnn_convolution",
                         {x, g.get_attr("w"), Argument(), Argument::List({0, 0}),
                          Argument::List({1, 1}), Argument::List({1, 1}), 1});
}

// Checks on a layout convolution's rank: one that always holds goes; one that
// would fail, or whose rank is read for something else, stays.
TEST(RankChecksTest, OnlyChecksThatCannotFailGo) {
  for (const int64_t checked : {4, 3}) {
    for (const bool rank_returned : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "checked " << checked << ", returned " << rank_returned);
      auto g = std::make_unique<Graph>();
      Node* x = g->placeholder("x");
      Node* conv = layout_convolution(*g, x);
      Node* dim = g->call_function("aten::dim", {conv});
      Node* ne = g->call_function("operator.ne", {dim, checked});
      Node* not_ = g->call_function("operator.not_", {ne});
      g->call_function("torch._assert", {not_, "expected 4D input"});
      g->output(rank_returned ? Argument::Tuple({conv, dim}) : Argument(conv));
      GraphModule gm(empty_module("M"), std::move(g), "M");
      ASSERT_TRUE(gm.add_attribute("w", at::randn({2, 3, 1, 1}).to_mkldnn()).ok());
      auto removed = remove_settled_rank_checks(gm);
      ASSERT_TRUE(removed.ok()) << removed.status();
      const bool goes = checked == 4 && !rank_returned;
      EXPECT_EQ(*removed, goes ? 1 : 0);
      EXPECT_EQ(count_targets(gm.graph(), "torch._assert"), goes ? 0 : 1);
      EXPECT_EQ(count_targets(gm.graph(), "aten::dim"), goes ? 0 : 1);
      EXPECT_TRUE(gm.lint().ok()) << gm.lint();
    }
  }
}

// An assertion that only passes the comparison along (as its message) checks
// something else: it stays, and so does the comparison.
TEST(RankChecksTest, AnAssertionOnAnotherConditionStays) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* flag = g->placeholder("flag");
  Node* conv = layout_convolution(*g, x);
  Node* dim = g->call_function("aten::dim", {conv});
  Node* eq = g->call_function("operator.eq", {dim, 4});
  g->call_function("torch._assert", {flag, eq});
  g->output(conv);
  GraphModule gm(empty_module("M"), std::move(g), "M");
  ASSERT_TRUE(gm.add_attribute("w", at::randn({2, 3, 1, 1}).to_mkldnn()).ok());
  auto removed = remove_settled_rank_checks(gm);
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 0);
  EXPECT_EQ(count_targets(gm.graph(), "torch._assert"), 1);
  EXPECT_EQ(count_targets(gm.graph(), "aten::dim"), 1);
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
}

}  // namespace
}  // namespace fx
