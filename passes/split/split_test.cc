// Copyright 2026 The FX for C++ Authors.
#include "passes/split/split.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/graph_module.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/torchscript/torchscript_export.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/real_models.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::node_names;
using testing::trace_fixture;

std::vector<std::string> placeholder_names(const GraphModule& gm) {
  std::vector<std::string> names;
  for (const Node* p : gm.graph().placeholders()) names.push_back(p->name());
  return names;
}

std::vector<std::string> argument_names(const Node& n) {
  std::vector<std::string> names;
  for (const Argument& a : n.args()) names.push_back(a.is_node() ? a.to_node()->name() : "?");
  return names;
}

// x, y -> a = x * 2 (stage 0), b = a + 1 (stage 1), c = b * a - y (stage 2):
// stage 2 reads `a`, which stage 0 defines and stage 1 does not read, and the
// input `y`, which no earlier stage reads.
GraphModule skipping_graph() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* a = g->create_node(Op::kCallFunction, "aten::mul.Scalar", {x, Argument(2.0)}, {}, "a");
  Node* b = g->create_node(Op::kCallFunction, "aten::add.Scalar", {a, Argument(1.0)}, {}, "b");
  Node* c = g->create_node(Op::kCallFunction, "aten::mul.Tensor", {b, a}, {}, "c");
  Node* d = g->create_node(Op::kCallFunction, "aten::sub.Tensor", {c, y}, {}, "d");
  g->output(d);
  return GraphModule(empty_module("Skipping"), std::move(g), "Skipping");
}

TEST(SplitTest, ValueReadTwoStagesLaterIsPassedFromTheStageThatDefinesIt) {
  // pytorch issue 166034: a value used by a stage later than the next must
  // reach that stage as itself.
  GraphModule gm = skipping_graph();
  const at::Tensor x = at::rand({3}), y = at::rand({3});
  const at::Tensor expected = (x * 2 + 1) * (x * 2) - y;
  SplitOptions options;
  options.points = {"b", "c"};
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->stages, 3);
  ASSERT_EQ(gm.graph_submodules().size(), 3u);
  EXPECT_THAT(placeholder_names(*gm.graph_submodule("submod_0")), ElementsAre("x"));
  EXPECT_THAT(placeholder_names(*gm.graph_submodule("submod_1")), ElementsAre("a"));
  EXPECT_THAT(placeholder_names(*gm.graph_submodule("submod_2")), ElementsAre("y", "a", "b"));
  // The top graph feeds submod_2 the inputs `y`, stage 0's `a`, stage 1's `b`.
  const Node* call2 = gm.graph().find_node("submod_2");
  ASSERT_NE(call2, nullptr);
  EXPECT_THAT(argument_names(*call2), ElementsAre("y", "submod_0", "submod_1"));
  EXPECT_EQ(gm.graph().find_node("submod_0")->target(), "submod_0");
  auto out = gm({x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTensor(), expected));
  Interpreter interpreter(gm);
  auto interpreted = interpreter.run({x, y});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(at::allclose(interpreted->toTensor(), expected));
}

// A graph reading an attribute that a module's code rebinds at each call
// (`self.prev = x`) is refused, naming the node and the attribute: a stage
// would read it from its own copy of the state, or the top graph before any
// stage runs.
TEST(SplitTest, AnAttributeAModulesCodeRebindsIsRefused) {
  torch::jit::Module keep(c10::QualifiedName("__torch__.test.Keep"),
                          std::make_shared<torch::jit::CompilationUnit>());
  keep.register_attribute("prev", c10::TensorType::get(), at::zeros({3}));
  keep.define("def forward(self, x):\n    self.prev = x * 1.0\n    return x\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("keep", module_from_torchscript(keep).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->create_node(Op::kCallModule, "keep", {x}, {}, "y");
  Node* prev = g->get_attr("keep.prev");
  g->output(g->create_node(Op::kCallFunction, "aten::add.Tensor", {y, prev}, {}, "total"));
  GraphModule gm(root, std::move(g), "Root");
  SplitOptions options;
  options.points = {"total"};
  auto report = split_into_stages(gm, options);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("reads attribute 'keep.prev', which the code of a module the graph "
                        "calls assigns anew at each call"));
}

TEST(SplitTest, SeveralOutputsOfAStageAreUnpackedByGetitemsNamedAsTheValues) {
  GraphModule gm = skipping_graph();
  SplitOptions options;
  options.points = {"c"};  // stage 0: a, b; stage 1 reads both
  ASSERT_TRUE(split_into_stages(gm, options).ok());
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "y", "submod_0", "a", "b", "submod_1",
                                                  "output"));
  EXPECT_EQ(gm.graph().find_node("a")->target(), "operator.getitem");
  const at::Tensor x = at::rand({4}), y = at::rand({4});
  auto out = gm({x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTensor(), (x * 2 + 1) * (x * 2) - y));
}

TEST(SplitTest, ResNet18AtModulePointsRunsLikeTheModel) {
  GraphModule gm = trace_fixture("resnet18.pt");
  SplitOptions options;
  options.points = {"layer2", "layer4"};
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(gm.graph_submodules().size(), 3u);
  // Each stage holds only its own parameters.
  const GraphModule& first = *gm.graph_submodule("submod_0");
  EXPECT_TRUE(first.has_submodule("layer1"));
  EXPECT_FALSE(first.has_submodule("layer2"));
  EXPECT_TRUE(gm.graph_submodule("submod_1")->has_submodule("layer3"));
  EXPECT_FALSE(gm.graph_submodule("submod_1")->has_submodule("fc"));
  EXPECT_TRUE(gm.graph_submodule("submod_2")->has_submodule("fc"));
  // A chain: one tensor crosses each cut.
  EXPECT_THAT(report->crossing, ElementsAre(1.0, 1.0));
  testing::expect_runs_like_the_fixture(gm, "resnet18.pt",
                                       testing::example_inputs("resnet18"), "split resnet18");
}

TEST(SplitTest, ResNet18InTwoStagesBalancesParameterBytes) {
  GraphModule gm = trace_fixture("resnet18.pt");
  SplitOptions options;
  options.stages = 2;
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->cost, "params");
  ASSERT_EQ(report->stage_costs.size(), 2u);
  double total = report->stage_costs[0] + report->stage_costs[1];
  double total_params = 0;
  for (const at::Tensor& p : testing::load_fixture("resnet18.pt").parameters()) {
    total_params += p.numel() * p.element_size();
  }
  for (const at::Tensor& b : testing::load_fixture("resnet18.pt").buffers()) {
    total_params += b.numel() * b.element_size();
  }
  EXPECT_DOUBLE_EQ(total, total_params);
  // layer4 alone holds most of ResNet-18's bytes: the best cut puts layer4's
  // second block (or part of it) in the second stage, within the slack.
  EXPECT_LT(std::max(report->stage_costs[0], report->stage_costs[1]), 0.7 * total);
  EXPECT_THAT(report->crossing, ElementsAre(1.0));
  const MetaValue* meta = gm.meta().find("split");
  ASSERT_NE(meta, nullptr);
  testing::expect_runs_like_the_fixture(gm, "resnet18.pt",
                                       testing::example_inputs("resnet18"), "resnet18 stages=2");
}

TEST(SplitTest, CutsCarryingLessWinWithinTheSlack) {
  // With example inputs the crossing is weighed in bytes; a cut after the
  // average pool carries 512 floats per image instead of a feature map.
  GraphModule gm = trace_fixture("resnet18.pt");
  const std::vector<c10::IValue> inputs = testing::example_inputs("resnet18");
  SplitOptions options;
  options.stages = 2;
  options.example_inputs = &inputs;
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->crossing_unit, "bytes");
  ASSERT_EQ(report->crossing.size(), 1u);
  EXPECT_GT(report->crossing[0], 0);
  testing::expect_runs_like_the_fixture(gm, "resnet18.pt", inputs,
                                       "resnet18 stages=2 bytes");
}

TEST(SplitTest, TimeCostProfilesTheGraph) {
  GraphModule gm = trace_fixture("resnet18.pt");
  const std::vector<c10::IValue> inputs = testing::example_inputs("resnet18");
  SplitOptions options;
  options.stages = 3;
  options.cost = SplitCost::kTime;
  options.example_inputs = &inputs;
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->cost, "time");
  EXPECT_EQ(gm.graph_submodules().size(), 3u);
  for (double c : report->stage_costs) EXPECT_GT(c, 0);
  testing::expect_runs_like_the_fixture(gm, "resnet18.pt", inputs,
                                       "resnet18 cost=time");
}

// A model that keeps state: `steps.add_(1)` each call, and a weight it clips
// in place (under no_grad, as weight clipping does).
GraphModule stateful_graph() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* steps = g->get_attr("steps");
  Node* weight = g->get_attr("weight");
  g->call_function("aten::add_.Scalar", {steps, 1});
  g->call_function("aten::clamp_", {weight, -0.5, 0.5});
  Node* scaled = g->call_function("aten::mul.Tensor", {x, weight});
  Node* shifted = g->call_function("aten::add.Tensor", {scaled, steps});
  g->output(g->call_function("aten::relu", {shifted}));
  GraphModule gm(empty_module("Stateful"), std::move(g), "Stateful");
  EXPECT_TRUE(gm.add_attribute("steps", at::zeros({1})).ok());
  EXPECT_TRUE(gm.add_attribute("weight", (at::arange(4) - 1.5).requires_grad_(true)).ok());
  return gm;
}

// Choosing the cut runs the model on the example inputs (three times with
// cost=time): the state it leaves is the model's own, so that the pipeline
// computes the model's first call and a saved module holds its state.
TEST(SplitTest, ProfilingRunsLeaveTheModulesStateAsItWas) {
  for (SplitCost cost : {SplitCost::kTime, SplitCost::kParams}) {
    GraphModule gm = stateful_graph();
    const at::Tensor steps = gm.get_attr("steps")->toTensor();
    const at::Tensor weight = gm.get_attr("weight")->toTensor();
    const std::vector<c10::IValue> inputs = {at::ones({4})};
    SplitOptions options;
    options.stages = 2;
    options.cost = cost;
    options.example_inputs = &inputs;
    auto report = split_into_stages(gm, options);
    ASSERT_TRUE(report.ok()) << report.status();
    // The module's tensors, with their values.
    EXPECT_TRUE(at::equal(steps, at::zeros({1}))) << steps;
    EXPECT_TRUE(at::equal(weight.detach(), at::arange(4) - 1.5)) << weight;
    EXPECT_TRUE(weight.requires_grad());
    // The first call computes what the model's first call computes.
    at::NoGradGuard no_grad;
    auto out = gm(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(at::equal(out->toTensor(), at::tensor({0.5f, 0.5f, 1.5f, 1.5f})))
        << out->toTensor();
  }
}

// A transformer block (attention and MLP, tests/fixtures/real_models.py) and
// a small GPT of two such blocks, cut at its second block.
void expect_split_runs_like_the_model(const std::string& name, SplitOptions options) {
  SCOPED_TRACE(name);
  torch::jit::Module module = testing::load_fixture(name + ".pt");
  module.eval();
  GraphModule gm = trace_fixture(name + ".pt", testing::real_model_trace_options(name));
  auto report = split_into_stages(gm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(gm.graph_submodules().size(), static_cast<size_t>(report->stages));
  testing::expect_runs_like_the_module(
      gm, module, testing::load_inputs(testing::fixture_path(name + ".inputs.pt")),
      absl::StrCat(name, " in ", report->stages, " stages"));
}

TEST(SplitTest, TransformerBlocksRunLikeTheModel) {
  for (int stages : {2, 3}) {
    SplitOptions options;
    options.stages = stages;
    expect_split_runs_like_the_model("gpt_block", options);
  }
  SplitOptions at_block;
  at_block.points = {"h.1"};
  expect_split_runs_like_the_model("mini_gpt", at_block);
  SplitOptions automatic;
  automatic.stages = 4;
  expect_split_runs_like_the_model("mini_gpt", automatic);
}

TEST(SplitTest, SplitModuleExportsToTorchScript) {
  GraphModule gm = trace_fixture("resnet18.pt");
  SplitOptions options;
  options.stages = 2;
  ASSERT_TRUE(split_into_stages(gm, options).ok());
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_TRUE(exported->find_method("forward").has_value());
  const std::vector<c10::IValue> inputs = testing::example_inputs("resnet18");
  torch::jit::Module model = testing::load_fixture("resnet18.pt");
  std::string why;
  EXPECT_TRUE(testing::all_close(exported->forward(inputs), model.forward(inputs), &why)) << why;
  // The stages are TorchScript submodules of their own.
  bool has_stage = false;
  for (const auto& child : exported->named_children()) has_stage |= child.name == "submod_1";
  EXPECT_TRUE(has_stage);
}

TEST(SplitTest, ErrorsNameTheOptionAndLeaveTheModuleAlone) {
  GraphModule gm = trace_fixture("resnet18.pt");
  const std::string before = gm.code();
  auto error = [&](SplitOptions options) {
    auto r = split_into_stages(gm, options);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  SplitOptions unknown;
  unknown.points = {"layer9"};
  EXPECT_THAT(error(unknown), AllOf(HasSubstr("'layer9'"), HasSubstr("layer4")));
  SplitOptions backwards;
  backwards.points = {"layer3", "layer2"};
  EXPECT_THAT(error(backwards), HasSubstr("graph order"));
  SplitOptions first;
  first.points = {"conv1"};
  EXPECT_THAT(error(first), HasSubstr("stage 0 empty"));
  SplitOptions both;
  both.points = {"layer2"};
  both.stages = 2;
  EXPECT_THAT(error(both), HasSubstr("not both"));
  EXPECT_THAT(error(SplitOptions()), HasSubstr("stages=N"));
  SplitOptions many;
  many.stages = 100000;
  EXPECT_THAT(error(many), HasSubstr("ask for fewer"));
  SplitOptions timed;
  timed.stages = 2;
  timed.cost = SplitCost::kTime;
  EXPECT_THAT(error(timed), HasSubstr("--input-shape"));
  EXPECT_EQ(gm.code(), before);
  EXPECT_TRUE(gm.graph_submodules().empty());
}

TEST(SplitTest, AsAPassThroughThePipelineText) {
  Registry registry;
  PluginRegistrar r({"split", "1", ""});
  register_split(r);
  ASSERT_TRUE(registry.commit(r).ok());
  auto pm = PassManager::create("split{points=layer2,layer4}", registry);
  ASSERT_TRUE(pm.ok()) << pm.status();
  GraphModule gm = trace_fixture("resnet18.pt");
  PassContext context(registry);
  ASSERT_TRUE(pm->run(gm, context).ok());
  EXPECT_EQ(gm.graph_submodules().size(), 3u);
  EXPECT_THAT(gm.code(), HasSubstr("self.submod_2("));
}

}  // namespace
}  // namespace fx
