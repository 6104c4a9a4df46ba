// Copyright 2026 The FX for C++ Authors.
#include "passes/const_fold/const_fold.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/testing/graph_listing.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/dce/dce.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "tests/testing/exported_programs.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::node_names;
using testing::node_targets;

// A GraphModule over `g` with tensors `w` (3x4) and `b` (3) as attributes.
GraphModule module_with_weights(std::unique_ptr<Graph> g) {
  GraphModule gm(empty_module("Folded"), std::move(g));
  EXPECT_TRUE(gm.add_attribute("w", at::randn({3, 4})).ok());
  EXPECT_TRUE(gm.add_attribute("b", at::randn({3})).ok());
  return gm;
}

at::Tensor run(GraphModule& gm, const at::Tensor& x) {
  auto out = gm({x});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->toTensor() : at::Tensor();
}

// ---- What changes ----------------------------------------------------------

TEST(ConstFoldTest, AChainOfPureOperatorsOnWeightsBecomesOneAttribute) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* t = g->call_function("aten::t", {g->get_attr("w")});
  Node* scaled = g->call_function("aten::mul.Scalar", {t, 2.0});
  Node* mm = g->call_function("aten::mm", {x, scaled});
  g->output(g->call_function("aten::add.Tensor", {mm, g->get_attr("b")}));
  GraphModule gm = module_with_weights(std::move(g));
  const at::Tensor input = at::randn({2, 4});
  const at::Tensor before = run(gm, input);

  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, ElementsAre("_FX_CONST_FOLDED_ATTRS"));
  EXPECT_THAT(report->folded_nodes, ElementsAre("t", "mul"));
  ASSERT_TRUE(gm.lint().ok()) << gm.lint();
  EXPECT_THAT(node_names(gm.graph()),
              ElementsAre("x", "w", "_fx_const_folded_attrs", "mm", "b", "add", "output"));
  EXPECT_EQ(gm.graph().find_node("mm")->args()[1].to_node()->target(), "_FX_CONST_FOLDED_ATTRS");
  EXPECT_TRUE(at::equal(gm.get_attr("_FX_CONST_FOLDED_ATTRS")->toTensor(),
                        gm.get_attr("w")->toTensor().t() * 2));
  // A normal tensor, as a parameter is: a run with autograd may read it
  // beside tensors that require grad (an inference tensor cannot be saved
  // for backward).
  EXPECT_FALSE(gm.get_attr("_FX_CONST_FOLDED_ATTRS")->toTensor().is_inference());
  EXPECT_TRUE(at::allclose(run(gm, input), before));
  // The weight the folded value came from is left to dce.
  gm.graph().eliminate_dead_code();
  EXPECT_EQ(gm.graph().find_node("w"), nullptr);
  // A second run finds nothing more.
  auto again = fold_constants(gm);
  ASSERT_TRUE(again.ok());
  EXPECT_THAT(again->attributes, IsEmpty());
}

TEST(ConstFoldTest, SeveralResultsGetUniqueNamesAndAValueUsedTwiceIsComputedOnce) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* neg = g->call_function("aten::neg", {g->get_attr("b")});
  Node* a = g->call_function("aten::add.Tensor", {x, neg});
  Node* c = g->call_function("aten::mul.Tensor", {a, neg});
  Node* t = g->call_function("aten::t", {g->get_attr("w")});
  g->output(Argument::Tuple({c, t}));
  GraphModule gm = module_with_weights(std::move(g));
  ASSERT_TRUE(gm.add_attribute("_FX_CONST_FOLDED_ATTRS", at::zeros({1})).ok());
  const at::Tensor input = at::randn({3});
  auto before = gm({input});
  ASSERT_TRUE(before.ok());

  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes,
              ElementsAre("_FX_CONST_FOLDED_ATTRS_1", "_FX_CONST_FOLDED_ATTRS_2"));
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallFunction),
              ElementsAre("aten::add.Tensor", "aten::mul.Tensor"));
  auto after = gm({input});
  ASSERT_TRUE(after.ok());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(at::allclose(before->toTupleRef().elements()[i].toTensor(),
                             after->toTupleRef().elements()[i].toTensor()));
  }
  // The transposed weight is an attribute of its own, not a view of w.
  EXPECT_FALSE(gm.get_attr("_FX_CONST_FOLDED_ATTRS_2")->toTensor().is_alias_of(
      gm.get_attr("w")->toTensor()));
}

// Sizes and numbers stay nodes; only tensors become attributes.
TEST(ConstFoldTest, NonTensorResultsStay) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* size = g->call_function("aten::size.int", {g->get_attr("w"), 0});
  g->output(g->call_function("aten::mul.Scalar", {x, size}));
  GraphModule gm = module_with_weights(std::move(g));
  const uint64_t version = gm.version();
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty());
  EXPECT_EQ(gm.version(), version);
}

// ---- What must not change ------------------------------------------------------

// PR 166609: random operators were folded, freezing one draw. Their schema's
// tag (nondeterministic_seeded) or Generator argument says so.
TEST(ConstFoldTest, RandomOperatorsAreNotFolded) {
  for (const char* target : {"aten::rand_like", "aten::randn_like", "aten::bernoulli.p",
                             "aten::dropout", "aten::rrelu"}) {
    SCOPED_TRACE(target);
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Arguments args = {g->get_attr("w")};
    if (std::string(target) == "aten::bernoulli.p") args = {args[0], 0.5};
    if (std::string(target) == "aten::dropout") args = {args[0], 0.5, true};
    if (std::string(target) == "aten::rrelu") args = {args[0], 0.1, 0.3, true};
    Node* r = g->call_function(target, args);
    g->output(g->call_function("aten::add.Tensor", {x, r}));
    GraphModule gm = module_with_weights(std::move(g));
    const uint64_t version = gm.version();
    auto report = fold_constants(gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->attributes, IsEmpty());
    EXPECT_EQ(gm.version(), version);
  }
}

// PR 166592: impure operators were folded. In-place and out= operators, and
// nodes with side effects, run every time.
TEST(ConstFoldTest, ImpureOperatorsAreNotFolded) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* clone = g->call_function("aten::clone", {g->get_attr("w")});
  Node* inplace = g->call_function("aten::mul_.Scalar", {clone, 2.0});
  Node* check = g->call_function(std::string(kAssertTarget), {true, "always"});
  (void)check;
  g->output(g->call_function("aten::add.Tensor", {x, inplace}));
  GraphModule gm = module_with_weights(std::move(g));
  const at::Tensor input = at::randn({3, 4});
  const at::Tensor before = run(gm, input);
  const uint64_t version = gm.version();
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  // The clone is written in place after it: folding it would carry one run's
  // write into the next.
  EXPECT_THAT(report->attributes, IsEmpty());
  EXPECT_EQ(gm.version(), version);
  EXPECT_TRUE(at::allclose(run(gm, input), before));
  EXPECT_TRUE(at::allclose(run(gm, input), before));
}

// An out= variant writes its `out` argument though its name has no trailing
// underscore: the schema's alias annotation (Tensor(a!)) says so.
TEST(ConstFoldTest, OutVariantsAreNotFolded) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* written = g->call_function("aten::neg.out", {g->get_attr("b")}, {{"out", g->get_attr("b")}});
  EXPECT_FALSE(written->is_impure());  // no name rule catches it
  Node* read_after = g->call_function("aten::mul.Scalar", {g->get_attr("b"), 1});
  g->output(g->call_function("aten::add.Tensor", {x, read_after}));
  GraphModule gm = module_with_weights(std::move(g));
  const at::Tensor b0 = gm.get_attr("b")->toTensor().clone();
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty());
  const at::Tensor input = at::zeros({3});
  EXPECT_TRUE(at::allclose(run(gm, input), -b0));
  EXPECT_TRUE(at::allclose(run(gm, input), b0));
}

// A buffer the graph updates in place is not a constant: what reads it after
// the update must read the new value in every run.
TEST(ConstFoldTest, AMutatedBufferIsNotAConstant) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* count = g->get_attr("b");
  g->call_function("aten::add_.Scalar", {count, 1});
  Node* doubled = g->call_function("aten::mul.Scalar", {g->get_attr("b"), 2});
  g->output(g->call_function("aten::add.Tensor", {x, doubled}));
  GraphModule gm = module_with_weights(std::move(g));
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty());
  const at::Tensor b0 = gm.get_attr("b")->toTensor().clone();
  const at::Tensor input = at::zeros({3});
  EXPECT_TRUE(at::allclose(run(gm, input), (b0 + 1) * 2));
  EXPECT_TRUE(at::allclose(run(gm, input), (b0 + 2) * 2));
}

// A write through a view of the weight is a write of the weight.
TEST(ConstFoldTest, AWeightWrittenThroughAViewIsNotAConstant) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* view = g->call_function("aten::view", {g->get_attr("w"), Argument::List({-1})});
  g->call_function("aten::add_.Scalar", {view, 1});
  Node* t = g->call_function("aten::t", {g->get_attr("w")});
  g->output(g->call_function("aten::mm", {x, t}));
  GraphModule gm = module_with_weights(std::move(g));
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty());
}

// A value passed to a function libtorch has no schema for (a leaf function)
// may be written there when the node says so: the tracer marks the leaf
// calls it finds writing an argument impure (as torch.fx takes a
// call_function to be pure unless its target is registered as having side
// effects). Such a weight is no constant; one read by a pure call is.
TEST(ConstFoldTest, WeightsPassedToImpureCallsWithoutASchemaAreNotConstants) {
  for (const bool impure : {true, false}) {
    SCOPED_TRACE(impure);
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* w = g->get_attr("w");
    Node* update = g->call_function("mylib.update_weight", {w});
    update->set_impure(impure);
    Node* mm = g->call_function("aten::mm", {x, g->call_function("aten::t", {w})});
    g->output(Argument::Tuple({mm, update}));
    GraphModule gm = module_with_weights(std::move(g));
    auto report = fold_constants(gm);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->attributes.empty(), impure);
  }
}

// A graph where `write` writes -x into the weight `w`, then x + 2 * w is
// returned: -x each run, as long as nothing read from `w` is folded.
void expect_written_weight_not_folded(
    const std::function<void(Graph& g, Node* x, Node* w)>& write) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  write(*g, x, g->get_attr("w"));
  Node* doubled = g->call_function("aten::mul.Scalar", {g->get_attr("w"), 2.0});
  g->output(g->call_function("aten::add.Tensor", {x, doubled}));
  GraphModule gm = module_with_weights(std::move(g));
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty()) << gm.code();
  const at::Tensor input = at::randn({3, 4});
  EXPECT_TRUE(at::allclose(run(gm, input), -input));
}

// Writes the schema annotates on a list (`Tensor(a!)[] out`).
TEST(ConstFoldTest, WeightsWrittenThroughAnOutListAreNotConstants) {
  expect_written_weight_not_folded([](Graph& g, Node* x, Node* w) {
    g.call_function("aten::_foreach_neg.out", {Argument::List({x})}, {{"out", Argument::List({w})}});
  });
  expect_written_weight_not_folded([](Graph& g, Node* x, Node* w) {
    Node* neg = g.call_function("aten::neg", {g.call_function("aten::unsqueeze", {x, 0})});
    g.call_function("aten::unbind_copy.int_out", {neg, 0}, {{"out", Argument::List({w})}});
  });
}

// Python's augmented assignments as methods (`m |= x`: aten::__ior__ on m).
TEST(ConstFoldTest, AttributesWrittenByAnAugmentedAssignmentAreNotConstants) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->call_method("__ior__", {g->get_attr("m"), x});
  Node* doubled = g->call_function("aten::mul.Scalar", {g->get_attr("m"), 2});
  g->output(g->call_function("aten::add.Tensor", {x, doubled}));
  GraphModule gm(empty_module("Folded"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("m", at::zeros({4}, at::kLong)).ok());
  auto report = fold_constants(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->attributes, IsEmpty()) << gm.code();
  const at::Tensor input = at::ones({4}, at::kLong);
  auto out = gm({input});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(out->toTensor(), input * 3)) << out->toTensor();
}

// A method given out= runs the operator's out overload, writing it.
TEST(ConstFoldTest, WeightsWrittenByAMethodsOutArgumentAreNotConstants) {
  expect_written_weight_not_folded([](Graph& g, Node* x, Node* w) {
    g.call_method("neg", {x}, {{"out", w}});
  });
}

// ---- Real programs ---------------------------------------------------------------

// torch.export programs compute what they computed; the tied linear weights of
// conv_net stay shared (nothing there is constant but the weights).
TEST(ConstFoldTest, ExportedProgramsComputeTheSame) {
  for (const std::string& version : testing::exported_program_versions()) {
    for (const std::string& name : testing::exported_program_names()) {
      SCOPED_TRACE(version + " " + name);
      auto gm = Tracer().trace(testing::load_exported_program(version, name));
      ASSERT_TRUE(gm.ok()) << gm.status();
      const testing::ExpectedRun expected = testing::load_expected_run(version, name);
      auto report = fold_constants(*gm);
      ASSERT_TRUE(report.ok()) << report.status();
      ASSERT_TRUE(gm->lint().ok()) << gm->lint();
      auto out = (*gm)(expected.inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<c10::IValue> leaves = testing::flatten_outputs(*out);
      ASSERT_EQ(leaves.size(), expected.outputs.size());
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i].isTensor()) continue;
        EXPECT_TRUE(at::allclose(leaves[i].toTensor(), expected.outputs[i].toTensor(), 1e-4, 1e-5))
            << i;
      }
    }
  }
}

}  // namespace
}  // namespace fx
