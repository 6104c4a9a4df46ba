// Copyright 2026 The FX for C++ Authors.
#include "passes/inline/inline.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"
#include "tracer/leaf_policy/leaf_policy.h"
#include "tracer/module_path/module_path.h"
#include "tracer/tagging/tagging.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

using testing::node_targets;

GraphModule trace(const std::string& fixture, std::vector<std::string> leaves = {}) {
  Tracer tracer;
  if (!leaves.empty()) tracer.add_extension(std::make_shared<LeafPolicy>(std::vector<std::string>{}, leaves));
  return testing::trace_fixture(fixture, tracer);
}

absl::Status run(GraphModule& gm, const OptionValues& options, PassContext* ctx = nullptr) {
  Registry registry;
  PassContext local(registry);
  Inline pass;
  if (absl::Status s = pass.set_options(options); !s.ok()) return s;
  absl::Status s = pass.run(gm, ctx != nullptr ? *ctx : local);
  if (s.ok()) {
    absl::Status lint = gm.lint();
    EXPECT_TRUE(lint.ok()) << lint;
  }
  return s;
}

TEST(InlineTest, SeedModuleMBecomesReluPlusOne) {
  GraphModule gm = trace("m_relu_add.pt");
  ASSERT_TRUE(run(gm, {}).ok());
  EXPECT_THAT(gm.graph().find_nodes(Op::kCallModule), IsEmpty());
  std::vector<std::string> ops;
  for (const Node* n : gm.graph().nodes()) ops.push_back(absl::StrCat(op_name(n->op()), " ", n->name()));
  // As with torch.fx, the body's node is named after the call_module it
  // replaces, which still held the name `relu` when it was created.
  EXPECT_THAT(ops, ::testing::ElementsAre("placeholder x", "call_function relu_1",
                                          "call_function add", "output output"));
  EXPECT_EQ(gm.graph().find_node("relu_1")->target(), "torch.nn.functional.relu");
  testing::expect_runs_like_the_fixture(gm, "m_relu_add.pt", {at::randn({4, 3})});
}

TEST(InlineTest, ResNet18HasNoCallModuleLeftAndComputesTheSame) {
  GraphModule gm = trace("resnet18.pt");
  ASSERT_TRUE(run(gm, {}).ok());
  EXPECT_THAT(gm.graph().find_nodes(Op::kCallModule), IsEmpty());
  EXPECT_EQ(gm.graph().find_nodes(Op::kCallFunction, "aten::conv2d").size(), 20u);
  testing::expect_runs_like_the_fixture(gm, "resnet18.pt",
                               testing::example_inputs("resnet18"));
}

TEST(InlineTest, ChoosesByTargetOrByType) {
  GraphModule by_target = trace("resnet18.pt");
  ASSERT_TRUE(run(by_target, {{"modules", "relu,layer1.0.conv1"}}).ok());
  std::vector<std::string> left = node_targets(by_target.graph(), Op::kCallModule);
  EXPECT_EQ(std::count(left.begin(), left.end(), "relu"), 0);
  EXPECT_EQ(std::count(left.begin(), left.end(), "layer1.0.conv1"), 0);
  EXPECT_EQ(std::count(left.begin(), left.end(), "layer1.0.relu"), 2);

  GraphModule by_type = trace("resnet18.pt");
  ASSERT_TRUE(run(by_type, {{"types", "BatchNorm2d,torch.nn.modules.activation.ReLU"}}).ok());
  for (const std::string& t : node_targets(by_type.graph(), Op::kCallModule)) {
    EXPECT_THAT(t, ::testing::Not(HasSubstr("bn"))) << t;
    EXPECT_THAT(t, ::testing::Not(HasSubstr("relu"))) << t;
  }
  EXPECT_EQ(by_type.graph().find_nodes(Op::kCallFunction, "torch.nn.functional.batch_norm").size(),
            20u);
  testing::expect_runs_like_the_fixture(by_type, "resnet18.pt",
                               testing::example_inputs("resnet18"));
}

TEST(InlineTest, MetadataIsCarriedWithTheInlinedModulesPath) {
  Tracer tracer;
  tracer.add_extension(std::make_shared<ModulePathTracer>());
  tracer.add_extension(std::make_shared<TaggingTracer>("bar"));
  auto gm = testing::trace_fixture_result("resnet18.pt", tracer);
  ASSERT_TRUE(gm.ok());
  ASSERT_TRUE(run(*gm, {{"modules", "layer1.0.conv1,layer1.0.bn1"}}).ok());
  Node* conv = gm->graph().find_nodes(Op::kCallFunction, "aten::conv2d").at(0);
  EXPECT_EQ(conv->meta().find("module_path")->to_string(), "layer1.0.conv1");
  EXPECT_EQ(conv->meta().find("tag")->to_string(), "bar");
  Node* weight = gm->graph().find_nodes(Op::kGetAttr, "layer1.0.bn1.running_mean").at(0);
  EXPECT_EQ(weight->meta().find("module_path")->to_string(), "layer1.0.bn1");
  EXPECT_EQ(weight->name(), "layer1_0_bn1_running_mean");
}

TEST(InlineTest, ParametersAlreadyFetchedAreReused) {
  // MyModule reads linear.weight before calling linear.
  GraphModule gm = trace("my_module.pt");
  ASSERT_TRUE(run(gm, {}).ok());
  std::vector<Node*> weights = gm.graph().find_nodes(Op::kGetAttr, "linear.weight");
  ASSERT_EQ(weights.size(), 1u);
  EXPECT_EQ(weights[0]->name(), "linear_weight");
  EXPECT_EQ(weights[0]->users().size(), 2u);  // the add and the linear
  testing::expect_runs_like_the_fixture(gm, "my_module.pt",
                               testing::example_inputs("my_module"));
}

// Reads of an attribute a leaf's code rebinds (`self.prev = x * 2.0`) stand
// where the inlined body reads them, before and after the leaf's call: the
// one after is not replaced by the one before. (The memory's class is under
// torch.nn, so that bodies keep it a leaf, as they keep torch.nn's.)
TEST(InlineTest, ReadsOfAnAttributeALeafRebindsAreNotReused) {
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module mem(c10::QualifiedName("__torch__.torch.nn.modules.memory.Memory"), unit);
  mem.register_buffer("prev", at::zeros({3}));
  mem.define("def forward(self, x):\n    self.prev = x * 2.0\n    return x\n");
  torch::jit::Module block(c10::QualifiedName("__torch__.test.Block"), unit);
  block.register_module("mem", mem);
  block.define(
      "def forward(self, x):\n"
      "    before = self.mem.prev\n"
      "    y = self.mem.forward(x)\n"
      "    return before + self.mem.prev + y\n");
  torch::jit::Module root(c10::QualifiedName("__torch__.test.Root"), unit);
  root.register_module("block", block);
  root.define("def forward(self, x):\n    return self.block.forward(x)\n");
  torch::jit::Module reference = root.clone();
  Tracer tracer;
  tracer.add_extension(std::make_shared<LeafPolicy>(std::vector<std::string>{},
                                                    std::vector<std::string>{"Block", "Memory"}));
  auto gm = tracer.trace(root);
  ASSERT_TRUE(gm.ok()) << gm.status();
  ASSERT_TRUE(run(*gm, {{"types", "Block"}}).ok());
  EXPECT_EQ(gm->graph().find_nodes(Op::kGetAttr, "block.mem.prev").size(), 2u);
  testing::expect_serves_like_the_module(*gm, reference, {at::randn({3})}, "inlined", 5);
}

TEST(InlineTest, RecurseInlinesWhatTheBodiesCall) {
  GraphModule once = trace("resnet18.pt", {"BasicBlock"});
  ASSERT_TRUE(run(once, {{"types", "BasicBlock"}}).ok());
  EXPECT_THAT(node_targets(once.graph(), Op::kCallModule), ::testing::Contains("layer1.0.conv1"));

  GraphModule all = trace("resnet18.pt", {"BasicBlock"});
  ASSERT_TRUE(run(all, {{"recurse", "true"}}).ok());
  EXPECT_THAT(all.graph().find_nodes(Op::kCallModule), IsEmpty());
  testing::expect_runs_like_the_fixture(all, "resnet18.pt",
                               testing::example_inputs("resnet18"));
}

TEST(InlineTest, TupleResultsReplaceTheirGetitems) {
  GraphModule gm = trace("uses_pair.pt", {"Pair"});
  ASSERT_EQ(gm.graph().find_nodes(Op::kCallFunction, "operator.getitem").size(), 2u);
  ASSERT_TRUE(run(gm, {}).ok());
  EXPECT_THAT(gm.graph().find_nodes(Op::kCallFunction, "operator.getitem"), IsEmpty());
  testing::expect_runs_like_the_fixture(gm, "uses_pair.pt", {at::randn({5})});
}

TEST(InlineTest, UntraceableModulesAreLeftWithAWarningOrFail) {
  GraphModule gm = trace("gated.pt", {"Gate"});
  Registry registry;
  PassContext ctx(registry);
  ASSERT_TRUE(run(gm, {}, &ctx).ok());
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallModule), ::testing::ElementsAre("gate"));
  ASSERT_EQ(ctx.warnings().size(), 1u);
  EXPECT_THAT(ctx.warnings()[0], HasSubstr("cannot inline call_module 'gate' (module 'gate')"));
  EXPECT_THAT(ctx.warnings()[0], HasSubstr("control flow depends on an input value"));
  EXPECT_THAT(ctx.warnings()[0], HasSubstr("tracer_models.py:"));
  // Nothing of the failed attempt is left behind.
  EXPECT_EQ(gm.graph().size(), 4u);  // x, gate, add, output
  testing::expect_runs_like_the_fixture(gm, "gated.pt", {at::randn({3})});

  GraphModule strict = trace("gated.pt", {"Gate"});
  absl::Status s = run(strict, {{"on_error", "fail"}});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot inline call_module 'gate'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("on_error=warn"));
}

TEST(InlineTest, OptionsAreChecked) {
  Registry registry;
  PluginRegistrar r({"inline", "1", ""});
  register_inline(r);
  ASSERT_TRUE(registry.commit(r).ok());
  const PassInfo* info = registry.find_pass("inline");
  EXPECT_THAT(std::string(info->factory(OptionValues{{"on_error", "ignore"}}).status().message()),
              HasSubstr("option 'on_error' takes warn or fail, not 'ignore'"));
  EXPECT_FALSE(info->factory(OptionValues{{"recurse", "maybe"}}).ok());
  EXPECT_TRUE(info->factory(OptionValues{{"modules", "relu,fc"}, {"recurse", "true"}}).ok());
}

}  // namespace
}  // namespace fx
