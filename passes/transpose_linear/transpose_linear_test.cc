// Copyright 2026 The FX for C++ Authors.
#include "passes/transpose_linear/transpose_linear.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/randn.h>

#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tracer/tracer.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

std::vector<std::string> targets(const Graph& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes()) {
    if (n->op() == Op::kCallFunction) out.push_back(n->target());
  }
  return out;
}

// y = linear(x, w, b) (or without bias), w 5x4; `extra` adds a node that
// also reads w.
struct LinearModel {
  GraphModule gm;
  at::Tensor weight, bias;
};

LinearModel linear_model(bool with_bias, const std::string& extra = "") {
  std::shared_ptr<Module> root = empty_module("M");
  at::Tensor w = at::randn({5, 4});
  at::Tensor b = at::randn({5});
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* wn = graph->get_attr("w");
  Arguments args = {x, wn};
  if (with_bias) args.emplace_back(graph->get_attr("b"));
  Node* y = graph->create_node(Op::kCallFunction, "aten::linear", args);
  if (extra == "add_") {
    Node* written = graph->create_node(Op::kCallFunction, "aten::add_.Tensor", {wn, 1.0});
    graph->output(Argument::Tuple({y, written}));
  } else if (extra == "mul") {
    Node* s = graph->create_node(Op::kCallFunction, "aten::mul.Scalar", {wn, 2.0});
    graph->output(Argument::Tuple({y, s}));
  } else if (extra == "output") {
    graph->output(Argument::Tuple({y, wn}));
  } else if (extra == "second_linear") {
    Node* y2 = graph->create_node(Op::kCallFunction, "aten::linear", {y, graph->get_attr("w2")});
    graph->output(y2);
  } else {
    graph->output(y);
  }
  GraphModule gm(root, std::move(graph), "M");
  EXPECT_TRUE(gm.add_attribute("w", w).ok());
  EXPECT_TRUE(gm.add_attribute("b", b).ok());
  // w2 is w's transpose as a view: already stored in the order it is read.
  EXPECT_TRUE(gm.add_attribute("w2", at::randn({4, 5}).t()).ok());
  return {std::move(gm), w, b};
}

at::Tensor run(GraphModule& gm, const at::Tensor& x) {
  auto out = gm({x});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return at::Tensor();
  return out->isTuple() ? out->toTupleRef().elements()[0].toTensor() : out->toTensor();
}

TEST(TransposeLinearTest, LinearBecomesAProductWithTheWeightStoredTransposed) {
  for (bool with_bias : {true, false}) {
    LinearModel m = linear_model(with_bias);
    auto report = transpose_linear_weights(m.gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->transposed, ElementsAre("linear"));
    EXPECT_THAT(report->left_alone, IsEmpty());
    if (with_bias) {
      EXPECT_THAT(targets(m.gm.graph()), ElementsAre("aten::matmul", "aten::add.Tensor"));
    } else {
      EXPECT_THAT(targets(m.gm.graph()), ElementsAre("aten::matmul"));
    }
    ASSERT_TRUE(m.gm.lint().ok()) << m.gm.lint();
    auto stored = m.gm.get_attr("w_transposed");
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_TRUE(stored->toTensor().is_contiguous());
    EXPECT_TRUE(at::equal(stored->toTensor(), m.weight.t()));
    // Every rank linear takes: unbatched, batched, several batch dimensions.
    for (const auto& sizes : std::vector<std::vector<int64_t>>{{4}, {3, 4}, {2, 3, 4}}) {
      const at::Tensor x = at::randn(sizes);
      const at::Tensor expected = with_bias ? at::linear(x, m.weight, m.bias) : at::linear(x, m.weight);
      const at::Tensor got = run(m.gm, x);
      EXPECT_EQ(got.sizes(), expected.sizes());
      EXPECT_TRUE(at::allclose(got, expected, 1e-5, 1e-6)) << "input sizes " << x.sizes();
    }
  }
}

TEST(TransposeLinearTest, WeightsTheGraphMayWriteOrHandOutAreLeftAlone) {
  for (const std::string extra : {"add_", "output"}) {
    LinearModel m = linear_model(true, extra);
    auto report = transpose_linear_weights(m.gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->transposed, IsEmpty()) << extra;
    ASSERT_THAT(report->left_alone, SizeIs(1)) << extra;
    EXPECT_THAT(report->left_alone[0], HasSubstr("which may write it or hand it out")) << extra;
    EXPECT_EQ(targets(m.gm.graph())[0], "aten::linear") << extra;
  }
  // A reader that only reads (w * 2) is no obstacle.
  LinearModel m = linear_model(true, "mul");
  auto report = transpose_linear_weights(m.gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->transposed, ElementsAre("linear"));
  EXPECT_THAT(report->left_alone, IsEmpty());
}

TEST(TransposeLinearTest, AWeightStoredTransposedAlreadyIsLeftAsItIs) {
  LinearModel m = linear_model(true, "second_linear");
  auto report = transpose_linear_weights(m.gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->transposed, ElementsAre("linear"));
  ASSERT_THAT(report->left_alone, SizeIs(1));
  EXPECT_THAT(report->left_alone[0], HasSubstr("linear_1: its weight 'w2' is stored transposed already"));
}

TEST(TransposeLinearTest, TwoLinearsOfOneWeightShareOneCopy) {
  std::shared_ptr<Module> root = empty_module("M");
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* w = graph->get_attr("w");
  Node* y1 = graph->create_node(Op::kCallFunction, "aten::linear", {x, w});
  Node* y2 = graph->create_node(Op::kCallFunction, "torch.nn.functional.linear", {y1, w});
  graph->output(y2);
  GraphModule gm(root, std::move(graph), "M");
  const at::Tensor weight = at::randn({4, 4});
  ASSERT_TRUE(gm.add_attribute("w", weight).ok());
  const at::Tensor xin = at::randn({2, 4});
  const at::Tensor expected = at::linear(at::linear(xin, weight), weight);
  auto report = transpose_linear_weights(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->transposed, ElementsAre("linear", "linear_1"));
  int copies = 0;
  for (const Node* n : gm.graph().nodes()) copies += n->op() == Op::kGetAttr && n->target() != "w";
  EXPECT_EQ(copies, 1);
  ASSERT_TRUE(gm.lint().ok()) << gm.lint();
  EXPECT_TRUE(at::allclose(run(gm, xin), expected, 1e-5, 1e-6));
}

// Two weights that are views of one storage (halves of one packed
// parameter) are two weights: each gets its own transposed copy.
TEST(TransposeLinearTest, ViewsOfOneStorageAreTransposedEach) {
  std::shared_ptr<Module> root = empty_module("M");
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* y1 = graph->create_node(Op::kCallFunction, "aten::linear", {x, graph->get_attr("w1")});
  Node* y2 = graph->create_node(Op::kCallFunction, "aten::linear", {x, graph->get_attr("w2")});
  graph->output(Argument::Tuple({y1, y2}));
  GraphModule gm(root, std::move(graph), "M");
  const at::Tensor packed = at::randn({10, 4});
  const at::Tensor w1 = packed.narrow(0, 0, 5), w2 = packed.narrow(0, 5, 5);
  ASSERT_TRUE(gm.add_attribute("w1", w1).ok());
  ASSERT_TRUE(gm.add_attribute("w2", w2).ok());
  auto report = transpose_linear_weights(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->transposed, ElementsAre("linear", "linear_1"));
  ASSERT_TRUE(gm.lint().ok()) << gm.lint();
  const at::Tensor xin = at::randn({2, 4});
  auto out = gm({xin});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& outs = out->toTupleRef().elements();
  EXPECT_TRUE(at::allclose(outs[0].toTensor(), at::linear(xin, w1), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(outs[1].toTensor(), at::linear(xin, w2), 1e-5, 1e-6));
}

// Real models: the classifier of torchvision's networks, inlined from
// TorchScript, computes what the module computes.
TEST(TransposeLinearTest, TorchvisionModelsComputeTheSame) {
  for (const std::string name : {"resnet18", "mobilenet_v2"}) {
    GraphModule gm = testing::trace_fixture(name + ".pt");
    ASSERT_TRUE(testing::run_pipeline(gm, "inline{recurse=true}").ok());
    auto report = transpose_linear_weights(gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->transposed, SizeIs(1)) << name;
    EXPECT_THAT(report->left_alone, IsEmpty()) << name;
    ASSERT_TRUE(gm.lint().ok()) << name << ": " << gm.lint();
    testing::expect_runs_like_the_fixture(gm, name + ".pt",
                                         testing::example_inputs(name), name);
  }
}

// torch.export programs (written by torch 2.6 and 2.14): aten::linear calls,
// conv_net's two of them sharing one weight.
TEST(TransposeLinearTest, ExportedProgramsComputeWhatTheModelComputed) {
  for (const std::string& version : testing::exported_program_versions()) {
    for (const std::string name : {"conv_net", "linear_bn"}) {
      SCOPED_TRACE(version + " " + name);
      auto gm = Tracer().trace(testing::load_exported_program(version, name));
      ASSERT_TRUE(gm.ok()) << gm.status();
      auto report = transpose_linear_weights(*gm);
      ASSERT_TRUE(report.ok()) << report.status();
      EXPECT_THAT(report->transposed, Not(IsEmpty()));
      EXPECT_THAT(report->left_alone, IsEmpty());
      ASSERT_TRUE(gm->lint().ok()) << gm->lint();
      const testing::ExpectedRun expected = testing::load_expected_run(version, name);
      auto out = (*gm)(expected.inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      std::string why;
      EXPECT_TRUE(testing::all_close(c10::ivalue::Tuple::create(testing::flatten_outputs(*out)),
                                     c10::ivalue::Tuple::create(expected.outputs), &why))
          << why;
    }
  }
}

}  // namespace
}  // namespace fx
