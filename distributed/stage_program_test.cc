// Copyright 2026 The FX for C++ Authors.
#include "distributed/stage_program.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/split/split.h"
#include "runtime/plan/execution_plan.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x, y -> a = x * 2, b = a + 1, c = b * a, d = c - y; cut before b and c:
// stage 2 reads `a` (stage 0's) and the input `y`, so both ride through
// stage 1.
GraphModule split_graph() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* a = g->create_node(Op::kCallFunction, "aten::mul.Scalar", {x, Argument(2.0)}, {}, "a");
  Node* b = g->create_node(Op::kCallFunction, "aten::add.Scalar", {a, Argument(1.0)}, {}, "b");
  Node* c = g->create_node(Op::kCallFunction, "aten::mul.Tensor", {b, a}, {}, "c");
  Node* d = g->create_node(Op::kCallFunction, "aten::sub.Tensor", {c, y}, {}, "d");
  g->output(Argument::Tuple({d, a}));
  GraphModule gm(empty_module("Skipping"), std::move(g), "Skipping");
  SplitOptions options;
  options.points = {"b", "c"};
  auto report = split_into_stages(gm, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return gm;
}

c10::IValue run(const GraphModule& gm, std::vector<c10::IValue> inputs) {
  auto plan = ExecutionPlan::compile(gm);
  EXPECT_TRUE(plan.ok()) << plan.status();
  auto out = (*plan)->run(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return *out;
}

TEST(StageProgramTest, ValuesLiveAtEachCutRideThroughTheStagesBetween) {
  GraphModule gm = split_graph();
  ASSERT_EQ(*count_stages(gm), 3);
  auto s0 = stage_program(gm, 0), s1 = stage_program(gm, 1), s2 = stage_program(gm, 2);
  ASSERT_TRUE(s0.ok()) << s0.status();
  ASSERT_TRUE(s1.ok()) << s1.status();
  ASSERT_TRUE(s2.ok()) << s2.status();
  EXPECT_THAT(s0->input_names, ElementsAre("x", "y"));
  EXPECT_THAT(s0->output_names, ElementsAre("y", "submod_0"));
  EXPECT_THAT(s1->input_names, ElementsAre("y", "submod_0"));
  EXPECT_THAT(s1->output_names, ElementsAre("y", "submod_0", "submod_1"));
  EXPECT_THAT(s2->input_names, ElementsAre("y", "submod_0", "submod_1"));
  EXPECT_TRUE(s2->output_names.empty());
  EXPECT_TRUE(s2->is_last());
  // Each holds only its own stage.
  EXPECT_NE(s1->module.graph_submodule("submod_1"), nullptr);
  EXPECT_EQ(s1->module.graph_submodule("submod_0"), nullptr);
  EXPECT_EQ(s1->module.graph_submodules().size(), 1u);

  // Chained, they compute what the whole graph computes.
  const at::Tensor x = at::rand({3}), y = at::rand({3});
  c10::IValue v0 = run(s0->module, {x, y});
  c10::IValue v1 = run(s1->module, v0.toTupleRef().elements().vec());
  c10::IValue v2 = run(s2->module, v1.toTupleRef().elements().vec());
  const c10::IValue whole = run(gm, {x, y});
  ASSERT_TRUE(v2.isTuple());
  EXPECT_TRUE(at::allclose(v2.toTupleRef().elements()[0].toTensor(),
                           whole.toTupleRef().elements()[0].toTensor()));
  EXPECT_TRUE(at::allclose(v2.toTupleRef().elements()[0].toTensor(), (x * 2 + 1) * (x * 2) - y));
  EXPECT_TRUE(at::allclose(v2.toTupleRef().elements()[1].toTensor(), x * 2));
}

TEST(StageProgramTest, TheFingerprintTellsCutsApart) {
  GraphModule a = split_graph(), b = split_graph();
  EXPECT_EQ(cut_fingerprint(a), cut_fingerprint(b));
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* n = g->create_node(Op::kCallFunction, "aten::mul.Scalar", {x, Argument(2.0)}, {}, "a");
  n = g->create_node(Op::kCallFunction, "aten::add.Scalar", {n, Argument(1.0)}, {}, "b");
  n = g->create_node(Op::kCallFunction, "aten::sub.Tensor", {n, y}, {}, "d");
  g->output(n);
  GraphModule c(empty_module("Other"), std::move(g), "Other");
  SplitOptions options;
  options.points = {"d"};  // another cut
  ASSERT_TRUE(split_into_stages(c, options).ok());
  EXPECT_NE(cut_fingerprint(a), cut_fingerprint(c));
}

TEST(StageProgramTest, AModuleTheSplitPassDidNotMakeIsRefused) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->create_node(Op::kCallFunction, "aten::relu", {x}, {}, "r"));
  GraphModule gm(empty_module("Plain"), std::move(g), "Plain");
  auto stages = count_stages(gm);
  ASSERT_FALSE(stages.ok());
  EXPECT_THAT(std::string(stages.status().message()), HasSubstr("belongs to no stage"));
  EXPECT_THAT(std::string(stages.status().message()), HasSubstr("split{stages=N}"));
  GraphModule split = split_graph();
  EXPECT_FALSE(stage_program(split, 3).ok());
  EXPECT_FALSE(stage_program(split, -1).ok());
}

}  // namespace
}  // namespace fx
