// Copyright 2026 The FX for C++ Authors.
#include "passes/fold_bn/fold_bn.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/batch_norm.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/serialization/import.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/attribute_names.h"
#include "passes/dce/dce.h"
#include "passes/inline/inline.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/graph_module.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

torch::jit::Module load_model(const std::string& name) {
  return torch::jit::load(testing::runfile("passes/fold_bn/" + name + ".pt"));
}

GraphModule trace(const torch::jit::Module& m, TraceOptions options = {}) {
  auto gm = Tracer(options).trace(m);
  EXPECT_TRUE(gm.ok()) << gm.status();
  return std::move(*gm);
}

// The nodes that normalise: BatchNorm modules and batch norm calls.
int count_batch_norms(const GraphModule& gm) {
  int count = 0;
  for (const Node* n : gm.graph().nodes()) {
    if (n->op() == Op::kCallModule) {
      auto m = gm.get_submodule(n->target());
      if (m.ok() && (*m)->class_name().rfind("BatchNorm", 0) == 0) ++count;
    }
    if (n->op() == Op::kCallFunction && n->target().find("batch_norm") != std::string::npos) {
      ++count;
    }
  }
  return count;
}

class FoldBnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"fold_bn_test", "1", ""});
    register_fold_bn(r);
    register_dce(r);
    register_inline(r);
    register_shape_prop(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` on `gm` as fxrun would; returns the warnings.
  std::vector<std::string> run(absl::string_view pipeline, GraphModule& gm,
                               std::vector<c10::IValue> inputs = {}) {
    auto pm = PassManager::create(pipeline, registry_);
    EXPECT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    if (!inputs.empty()) context.set_example_inputs(std::move(inputs));
    absl::Status s = pm->run(gm, context);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(gm.lint().ok()) << gm.lint();
    return context.warnings();
  }

  Registry registry_;
};

// ---- What changes ----------------------------------------------------------

class TorchvisionFoldTest : public FoldBnTest,
                            public ::testing::WithParamInterface<std::tuple<std::string, bool>> {};

// Every batch norm of the model goes, at both levels (call_module, and ATen
// after inlining every module), and the model computes what it computed.
TEST_P(TorchvisionFoldTest, FoldsEveryBatchNormAndComputesTheSame) {
  const auto& [name, inlined] = GetParam();
  torch::jit::Module model = testing::load_fixture(name + ".pt");
  GraphModule gm = trace(model);
  if (inlined) run("inline{recurse=true}", gm);
  const int before = count_batch_norms(gm);
  ASSERT_GT(before, 0);
  const size_t attributes_before = gm.own_attributes().size();
  auto report = fold_batch_norms(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->left_alone, IsEmpty());
  EXPECT_THAT(report->folded, SizeIs(before));
  EXPECT_EQ(count_batch_norms(gm), 0);
  EXPECT_EQ(gm.own_attributes().size(), attributes_before + 2 * before);
  ASSERT_TRUE(gm.lint().ok()) << gm.lint();
  testing::expect_runs_like_the_module(gm, model, testing::example_inputs(name), "folded");

  // dce{submodules=true} drops the batch norms and the old weights.
  run("dce{submodules=true}", gm);
  EXPECT_FALSE(gm.get_attr(inlined ? "bn1.running_mean" : "bn1.running_mean").ok());
  EXPECT_TRUE(gm.get_attr("features_0_0_weight_folded").ok() ||
              gm.get_attr("conv1_weight_folded").ok());
  EXPECT_FALSE(gm.get_attr("conv1.weight").ok());
  testing::expect_runs_like_the_module(gm, model, testing::example_inputs(name), "after dce");
}

INSTANTIATE_TEST_SUITE_P(Models, TorchvisionFoldTest,
                         ::testing::Combine(::testing::Values("resnet18", "mobilenet_v2"),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) ? "_inlined" : "_modules");
                         });

TEST_F(FoldBnTest, ModuleCallsBecomeConvolutionsWithTheFoldedWeights) {
  torch::jit::Module model = testing::load_fixture("resnet18.pt");
  GraphModule gm = trace(model);
  gm.graph().find_node("conv1")->meta().set(kModulePathKey, "conv1");
  ASSERT_TRUE(fold_batch_norms(gm).ok());
  const Node* conv1 = gm.graph().find_node("conv1_folded");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(gm.graph().find_node("conv1"), nullptr);
  EXPECT_EQ(conv1->op(), Op::kCallFunction);
  EXPECT_EQ(conv1->target(), "aten::conv2d");
  ASSERT_THAT(conv1->args(), SizeIs(7));
  EXPECT_EQ(conv1->args()[1].to_node()->target(), "conv1_weight_folded");
  EXPECT_EQ(conv1->args()[2].to_node()->target(), "conv1_bias_folded");
  EXPECT_EQ(conv1->args()[3], Argument::List({2, 2}));
  EXPECT_EQ(conv1->args()[4], Argument::List({3, 3}));
  EXPECT_EQ(conv1->args()[6], Argument(1));
  ASSERT_NE(conv1->meta().find(kModulePathKey), nullptr);  // the module call's meta
  EXPECT_EQ(conv1->meta().find(kModulePathKey)->to_string(), "conv1");
  // relu reads the folded convolution where it read bn1.
  EXPECT_EQ(gm.graph().find_node("relu")->args()[0].to_node(), conv1);
  EXPECT_EQ(gm.graph().find_node("bn1"), nullptr);

  // The numbers: torch.fx's fuse_conv_bn_weights.
  torch::jit::Module bn = model.attr("bn1").toModule();
  const at::Tensor scale = bn.attr("weight").toTensor() *
                           at::rsqrt(bn.attr("running_var").toTensor() + bn.attr("eps").toDouble());
  const at::Tensor w = model.attr("conv1").toModule().attr("weight").toTensor();
  EXPECT_TRUE(at::allclose(gm.get_attr("conv1_weight_folded")->toTensor(),
                           w * scale.reshape({-1, 1, 1, 1})));
  EXPECT_TRUE(at::allclose(gm.get_attr("conv1_bias_folded")->toTensor(),
                           -bn.attr("running_mean").toTensor() * scale +
                               bn.attr("bias").toTensor()));
}

TEST_F(FoldBnTest, NewAttributeNamesAreMadeUniqueAsTorchFxMakesThem) {
  torch::jit::Module model = testing::load_fixture("resnet18.pt");
  GraphModule gm = trace(model);
  ASSERT_TRUE(gm.add_attribute("conv1_weight_folded", at::zeros({1})).ok());
  ASSERT_TRUE(gm.add_attribute("conv1_bias_folded_1", at::zeros({1})).ok());
  EXPECT_EQ(unique_attribute_name(gm, "conv1.weight_folded"), "conv1_weight_folded_1");
  EXPECT_EQ(unique_attribute_name(gm, "conv1_bias_folded_1"), "conv1_bias_folded_2");
  EXPECT_EQ(unique_attribute_name(gm, "0.a--b"), "_0_a_b");
  ASSERT_TRUE(fold_batch_norms(gm).ok());
  const Node* conv1 = gm.graph().find_node("conv1_folded");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->args()[1].to_node()->target(), "conv1_weight_folded_1");
  EXPECT_EQ(conv1->args()[2].to_node()->target(), "conv1_bias_folded");
  testing::expect_runs_like_the_module(gm, model, testing::example_inputs("resnet18"));
}

// Conv1d, Conv3d with groups and stride, padding='same' with dilation, a
// convolution without bias, a batch norm without affine parameters, two batch
// norms in a row, Linear + BatchNorm1d. The ranks BatchNorm1d cannot check
// come from shape_prop.
TEST_F(FoldBnTest, FoldsEveryKindOfLayerOnceRanksAreKnown) {
  torch::jit::Module model = load_model("variety_bn");
  const std::vector<c10::IValue> inputs = {at::randn({2, 3, 16}), at::randn({2, 3, 9, 9}),
                                           at::randn({2, 2, 4, 4, 4}), at::randn({2, 6})};
  GraphModule gm = trace(model);
  run("shape_prop", gm, inputs);
  auto report = fold_batch_norms(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->folded, ElementsAre("b1", "b2", "b2b", "b3", "bl"));
  EXPECT_THAT(report->left_alone, IsEmpty());
  EXPECT_EQ(gm.graph().find_node("c2_folded")->target(), "aten::conv2d.padding");
  EXPECT_EQ(gm.graph().find_node("lin_folded")->target(), "aten::linear");
  testing::expect_runs_like_the_module(gm, model, inputs);
}

// pytorch issue 122070: F.batch_norm after F.conv2d / F.linear, no modules.
TEST_F(FoldBnTest, Issue122070FunctionalBatchNormsAreFolded) {
  torch::jit::Module model = load_model("functional_bn");
  const std::vector<c10::IValue> inputs = {at::randn({2, 3, 8, 8}), at::randn({3, 4})};
  GraphModule gm = trace(model);
  ASSERT_EQ(count_batch_norms(gm), 2);
  run("shape_prop", gm, inputs);
  std::vector<std::string> warnings = run("fold_bn", gm);
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_EQ(count_batch_norms(gm), 0);
  testing::expect_runs_like_the_module(gm, model, inputs);
}

// torch.export programs: aten::batch_norm after aten::conv2d, with the
// program's own tensor_meta giving ranks; the tied linear layers stay.
TEST_F(FoldBnTest, FoldsExportedPrograms) {
  for (const std::string& version : testing::exported_program_versions()) {
    SCOPED_TRACE(version);
    auto gm = Tracer().trace(testing::load_exported_program(version, "conv_net"));
    ASSERT_TRUE(gm.ok()) << gm.status();
    const testing::ExpectedRun expected = testing::load_expected_run(version, "conv_net");
    auto report = fold_batch_norms(*gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->folded, ElementsAre("batch_norm"));
    EXPECT_EQ(count_batch_norms(*gm), 0);
    run("dce{submodules=true}", *gm);
    auto out = (*gm)(expected.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    std::string why;
    EXPECT_TRUE(testing::all_close(c10::ivalue::Tuple::create(testing::flatten_outputs(*out)),
                                   c10::ivalue::Tuple::create(expected.outputs), &why))
        << why;
  }
}

// What torch.export's inference IR writes for an eval batch norm (torch 2.1
// and later): _native_batch_norm_legit_no_training and its getitem 0. Built
// by hand, as libtorch 1.13 has no such operator to run before folding.
TEST_F(FoldBnTest, FoldsNativeBatchNormLegitNoTraining) {
  const at::Tensor w = at::randn({4, 3, 3, 3});
  const at::Tensor gamma = at::randn({4}), beta = at::randn({4}), mean = at::randn({4});
  const at::Tensor var = at::rand({4}) + 0.5;
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* conv = g->call_function("aten::conv2d", {x, g->get_attr("w"), Argument(), Argument::List({1, 1}),
                                                 Argument::List({1, 1})});
  conv->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{1, 4, 5, 5}}});
  Node* bn = g->call_function("aten::_native_batch_norm_legit_no_training",
                              {conv, g->get_attr("gamma"), g->get_attr("beta"), g->get_attr("mean"),
                               g->get_attr("var"), 0.1, 1e-3});
  Node* item0 = g->call_function(std::string(kGetItemTarget), {bn, 0});
  g->call_function(std::string(kGetItemTarget), {bn, 1});  // unused, as export leaves it
  g->output(g->call_function("aten::relu", {item0}));
  GraphModule gm(empty_module("Exported"), std::move(g));
  for (const auto& [name, t] : std::vector<std::pair<std::string, at::Tensor>>{
           {"w", w}, {"gamma", gamma}, {"beta", beta}, {"mean", mean}, {"var", var}}) {
    ASSERT_TRUE(gm.add_attribute(name, t).ok());
  }
  auto report = fold_batch_norms(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->folded, ElementsAre("_native_batch_norm_legit_no_training"));
  EXPECT_EQ(count_batch_norms(gm), 0);
  EXPECT_THAT(testing::node_targets(gm.graph(), Op::kCallFunction),
              ElementsAre("aten::conv2d", "aten::relu"));
  const at::Tensor input = at::randn({1, 3, 5, 5});
  auto out = gm({input});
  ASSERT_TRUE(out.ok()) << out.status();
  const at::Tensor reference =
      at::relu(at::batch_norm(at::conv2d(input, w, {}, 1, 1), gamma, beta, mean, var, false, 0.1,
                              1e-3, false));
  EXPECT_TRUE(at::allclose(out->toTensor(), reference, 1e-4, 1e-5));
}

// ---- What must not change ----------------------------------------------------

// Issue 36: a batch norm whose statistics or affine parameters the graph
// writes in place was folded, and the folded graph computed with the values
// before the write (TorchScript's --check agreed: its reference saw the
// write). A tensor folding reads that the graph may write, directly, through
// another get_attr or through a view, stays, with a warning naming the writer.
TEST_F(FoldBnTest, ABatchNormWhoseTensorsTheGraphWritesStays) {
  struct Case {
    std::string attribute;  // the tensor written
    bool through_view;
  };
  for (const Case& c : std::vector<Case>{{"mean", false}, {"var", true}, {"gamma", false},
                                         {"beta", true}, {"w", false}}) {
    SCOPED_TRACE(c.attribute);
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* written = g->get_attr(c.attribute);  // a get_attr of its own, as a second reader has
    if (c.through_view) written = g->call_function("aten::narrow", {written, 0, 0, 2});
    g->call_function("aten::mul_.Scalar", {written, 0.5});
    Node* conv = g->call_function("aten::conv2d", {x, g->get_attr("w")});
    conv->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{1, 4, 3, 3}}});
    Node* bn = g->call_function("aten::_native_batch_norm_legit_no_training",
                                {conv, g->get_attr("gamma"), g->get_attr("beta"), g->get_attr("mean"),
                                 g->get_attr("var"), 0.1, 1e-3});
    g->output(g->call_function(std::string(kGetItemTarget), {bn, 0}));
    GraphModule gm(empty_module("Writes"), std::move(g));
    for (const auto& [name, t] : std::vector<std::pair<std::string, at::Tensor>>{
             {"w", at::randn({4, 3, 3, 3})}, {"gamma", at::randn({4})}, {"beta", at::randn({4})},
             {"mean", at::randn({4})}, {"var", at::rand({4}) + 0.5}}) {
      ASSERT_TRUE(gm.add_attribute(name, t).ok());
    }
    std::vector<std::string> warnings = run("fold_bn", gm);
    EXPECT_EQ(count_batch_norms(gm), 1);
    ASSERT_THAT(warnings, SizeIs(1));
    // (The layer's weight, read by another node, is already refused as shared.)
    EXPECT_THAT(warnings[0], HasSubstr(c.attribute == "w" ? "the weight of 'conv2d' is also used"
                                                          : "may be written by 'mul_'"));
  }
}

// Issue 54 (7): the batch norm's tensors were compared with the layer's
// channels by element count, so a bias of shape [8, 1] on 8 channels folded
// into a [8, 8] convolution bias (a graph that no longer runs) and a [2, 4]
// weight stopped the pass on a libtorch broadcast error. Each must be 1-D of
// exactly the channel count, or the batch norm stays with a warning naming it
// and the shape.
TEST_F(FoldBnTest, Issue54BatchNormTensorsOfAnotherShapeThanTheChannelsStay) {
  struct Case {
    std::string attribute;  // the tensor given another shape
    std::vector<int64_t> shape;
    std::string warning;
  };
  for (const Case& c : std::vector<Case>{
           {"beta", {8, 1}, "its bias has shape [8, 1], not [8]"},
           {"gamma", {2, 4}, "its weight has shape [2, 4], not [8]"},
           {"mean", {1, 8}, "its running mean has shape [1, 8], not [8]"},
           {"var", {8, 1, 1}, "its running variance has shape [8, 1, 1], not [8]"},
           {"b", {8, 1}, "the layer's bias has shape [8, 1], not [8]"},
           {"gamma", {}, "its weight has shape [], not [8]"}}) {
    SCOPED_TRACE(c.attribute);
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* conv = g->call_function("aten::conv2d", {x, g->get_attr("w"), g->get_attr("b")});
    conv->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{1, 8, 3, 3}}});
    Node* bn = g->call_function("aten::_native_batch_norm_legit_no_training",
                                {conv, g->get_attr("gamma"), g->get_attr("beta"), g->get_attr("mean"),
                                 g->get_attr("var"), 0.1, 1e-3});
    g->output(g->call_function(std::string(kGetItemTarget), {bn, 0}));
    GraphModule gm(empty_module("Shapes"), std::move(g));
    for (const char* name : {"b", "gamma", "beta", "mean", "var"}) {
      const std::vector<int64_t> shape = name == c.attribute ? c.shape : std::vector<int64_t>{8};
      ASSERT_TRUE(gm.add_attribute(name, at::rand(shape) + 0.5).ok());
    }
    ASSERT_TRUE(gm.add_attribute("w", at::randn({8, 3, 3, 3})).ok());
    const uint64_t version = gm.version();
    std::vector<std::string> warnings = run("fold_bn", gm);
    EXPECT_EQ(gm.version(), version);
    EXPECT_EQ(count_batch_norms(gm), 1);
    ASSERT_THAT(warnings, SizeIs(1));
    EXPECT_THAT(warnings[0], HasSubstr("left _native_batch_norm_legit_no_training: " + c.warning));
    EXPECT_THAT(warnings[0], HasSubstr("'conv2d'"));
  }
}

// The same in TorchScript models: test-time adaptation of the running mean,
// a weight clipped in place; the model's outputs are kept, run after run.
TEST_F(FoldBnTest, ModelsThatAdaptTheirBatchNormsKeepThem) {
  for (const char* name : {"adapts_statistics", "clips_weight"}) {
    SCOPED_TRACE(name);
    torch::jit::Module model = load_model(name);
    for (const char* pipeline : {"fold_bn", "inline{recurse=true},fold_bn"}) {
      SCOPED_TRACE(pipeline);
      GraphModule gm = trace(model);
      run(pipeline, gm);
      EXPECT_EQ(count_batch_norms(gm), 1) << format_graph(gm.graph());
    }
  }
}

TEST_F(FoldBnTest, TrainingModeIsRefusedWithAWarning) {
  torch::jit::Module model = load_model("training_bn");
  TraceOptions options;
  options.training = true;
  GraphModule gm = trace(model, options);
  const uint64_t version = gm.version();
  std::vector<std::string> warnings = run("fold_bn", gm);
  EXPECT_EQ(gm.version(), version);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("training mode"));
  EXPECT_THAT(warnings[0], HasSubstr("bn"));
  EXPECT_EQ(count_batch_norms(gm), 1);
}

// The same refusal at ATen level: aten::batch_norm's `training` is true.
TEST_F(FoldBnTest, TrainingModeIsRefusedInInlinedGraphs) {
  TraceOptions options;
  options.training = true;
  GraphModule gm = trace(load_model("training_bn"), options);
  run("inline{recurse=true}", gm);
  const uint64_t version = gm.version();
  std::vector<std::string> warnings = run("fold_bn", gm);
  EXPECT_EQ(gm.version(), version);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("training mode"));
}

// pytorch issue 197539: the convolution module is also called on a path
// without the batch norm; torch.fx folded it for both.
TEST_F(FoldBnTest, Issue197539AConvolutionAlsoCalledWithoutTheBatchNormStays) {
  torch::jit::Module model = load_model("reused_conv_second_path");
  GraphModule gm = trace(model);
  const uint64_t version = gm.version();
  std::vector<std::string> warnings = run("fold_bn", gm);
  EXPECT_EQ(gm.version(), version);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("weight of 'conv' is also used by 'conv_1'"));
  testing::expect_runs_like_the_module(gm, model, {at::randn({2, 3, 8, 8}), at::randn({2, 3, 8, 8})});
  // The same after inlining: the weight is read by two convolutions.
  run("inline{recurse=true}", gm);
  warnings = run("fold_bn", gm);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("is also used by"));
  EXPECT_EQ(count_batch_norms(gm), 1);
}

// pytorch issue 104593: conv1(x) + bn1(conv1(y)).
TEST_F(FoldBnTest, Issue104593AReusedConvolutionModuleStays) {
  torch::jit::Module model = load_model("reused_conv_added");
  GraphModule gm = trace(model);
  std::vector<std::string> warnings = run("fold_bn", gm);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("left bn1: the weight of 'conv1_1' is also used by 'conv1'"));
  EXPECT_EQ(count_batch_norms(gm), 1);
  testing::expect_runs_like_the_module(gm, model,
                                       {at::rand({4, 1, 8, 8}), at::rand({4, 1, 8, 8})});
}

// The convolution's result also feeds a residual add.
TEST_F(FoldBnTest, AConvolutionWhoseResultIsUsedElsewhereStays) {
  torch::jit::Module model = load_model("conv_result_used_twice");
  for (bool inlined : {false, true}) {
    GraphModule gm = trace(model);
    if (inlined) run("inline{recurse=true}", gm);
    const uint64_t version = gm.version();
    std::vector<std::string> warnings = run("fold_bn", gm);
    EXPECT_EQ(gm.version(), version) << inlined;
    ASSERT_THAT(warnings, SizeIs(1));
    EXPECT_THAT(warnings[0], HasSubstr("is also used by 'add'"));
    testing::expect_runs_like_the_module(gm, model, {at::randn({1, 4, 6, 6})});
  }
}

// BatchNorm1d accepts 2-D and 3-D inputs: for Linear and Conv1d the pass
// needs the rank (an unbatched Conv1d input puts lengths where it reads
// channels) and says how to give it.
TEST_F(FoldBnTest, UnknownRanksAreLeftWithAHint) {
  torch::jit::Module model = load_model("variety_bn");
  GraphModule gm = trace(model);
  auto report = fold_batch_norms(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->folded, ElementsAre("b2", "b2b", "b3"));
  ASSERT_THAT(report->left_alone, SizeIs(2));
  EXPECT_THAT(report->left_alone[0], HasSubstr("b1: the rank of the result of 'c1' is unknown"));
  EXPECT_THAT(report->left_alone[0], HasSubstr("run shape_prop before fold_bn"));
  EXPECT_THAT(report->left_alone[1], HasSubstr("bl: "));
  testing::expect_runs_like_the_module(
      gm, model,
      {at::randn({2, 3, 16}), at::randn({2, 3, 9, 9}), at::randn({2, 2, 4, 4, 4}), at::randn({2, 6})});
}

// A 3-D linear result: BatchNorm1d normalises its dimension 1, not the
// linear layer's features, even when the sizes happen to match.
TEST_F(FoldBnTest, ALinearResultOfRankThreeStays) {
  torch::jit::Module model = load_model("variety_bn");
  const std::vector<c10::IValue> inputs = {at::randn({2, 3, 16}), at::randn({2, 3, 9, 9}),
                                           at::randn({2, 2, 4, 4, 4}), at::randn({2, 7, 6})};
  GraphModule gm = trace(model);
  run("shape_prop", gm, inputs);
  auto report = fold_batch_norms(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->folded, Not(Contains("bl")));
  ASSERT_THAT(report->left_alone, SizeIs(1));
  EXPECT_THAT(report->left_alone[0], HasSubstr("has rank 3"));
  testing::expect_runs_like_the_module(gm, model, inputs);
}

}  // namespace
}  // namespace fx
