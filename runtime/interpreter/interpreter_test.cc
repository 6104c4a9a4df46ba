// Copyright 2026 The FX for C++ Authors.
#include "runtime/interpreter/interpreter.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/topk.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/module.h>

#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/torchscript/script_module.h"
#include "tests/testing/fixtures.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Module> empty_module() { return fx::empty_module("Empty"); }

at::Tensor run_tensor(GraphModule& gm, std::vector<c10::IValue> inputs) {
  auto out = gm(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->toTensor() : at::Tensor();
}

TEST(InterpreterTest, RunsExactOperatorOverloads) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* add = g->call_function("aten::add.Tensor", {x, y}, {{"alpha", 2}});
  Node* relu = g->call_function("aten::relu", {add});
  g->output(relu);
  GraphModule gm(empty_module(), std::move(g));
  at::Tensor a = at::randn({3, 4});
  at::Tensor b = at::randn({3, 4});
  EXPECT_TRUE(at::allclose(run_tensor(gm, {a, b}), at::relu(a + 2 * b)));
}

TEST(InterpreterTest, RunsPythonLevelTargetsByArgumentTypes) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* add = g->call_function("operator.add", {x, 1.0});       // Tensor + float
  Node* exp = g->call_function("torch.exp", {add});
  Node* rsub = g->call_function("operator.sub", {2, exp});       // 2 - tensor
  Node* div = g->call_function("operator.truediv", {1, rsub});   // 1 / tensor
  Node* sum = g->call_method("sum", {div}, {{"dim", -1}});
  Node* topk = g->call_function("torch.topk", {sum, 2});
  Node* values = g->call_function("operator.getitem", {topk, 0});
  Node* view = g->call_method("view", {values, -1, 1});          // varargs packed
  g->output(view);
  GraphModule gm(empty_module(), std::move(g));
  at::Tensor a = at::rand({4, 3});
  at::Tensor expected = std::get<0>(at::topk((1 / (2 - at::exp(a + 1.0))).sum(-1), 2)).view({-1, 1});
  EXPECT_TRUE(at::allclose(run_tensor(gm, {a}), expected));
}

TEST(InterpreterTest, SeedMyModuleGraphComputesWhatTheModuleDoes) {
  torch::jit::Module m = testing::load_fixture("my_module.pt");
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w = g->get_attr("linear.weight");
  Node* add = g->call_function("operator.add", {x, w});
  Node* linear = g->call_module("linear", {add});
  Node* relu = g->call_method("relu", {linear});
  Node* sum = g->call_function("torch.sum", {relu}, {{"dim", -1}});
  Node* topk = g->call_function("torch.topk", {sum, 3});
  g->output(topk);
  GraphModule gm(module_from_torchscript(m).value(), std::move(g));
  ASSERT_TRUE(gm.lint().ok()) << gm.lint();
  at::Tensor in = at::rand({5, 4});
  auto out = gm({in});
  ASSERT_TRUE(out.ok()) << out.status();
  c10::IValue expected = m.forward({in});
  auto got = out->toTupleRef().elements();
  auto want = expected.toTupleRef().elements();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(at::allclose(got[0].toTensor(), want[0].toTensor()));
  EXPECT_TRUE(at::equal(got[1].toTensor(), want[1].toTensor()));
}

TEST(InterpreterTest, NativeBuiltins) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* shape = g->call_function("getattr", {x, "shape"});
  Node* rows = g->call_function("operator.getitem", {shape, -2});
  Node* big = g->call_function("aten::gt.int", {rows, 1});
  Node* ok = g->call_function("torch._assert", {big, "x needs two rows"});
  (void)ok;
  g->output(Argument::Tuple({rows, g->call_function("operator.not_", {big})}));
  GraphModule gm(empty_module(), std::move(g));
  auto out = gm({at::zeros({3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->toTupleRef().elements()[0].toInt(), 3);
  EXPECT_FALSE(out->toTupleRef().elements()[1].toBool());
  auto failed = gm({at::zeros({1, 2})});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("x needs two rows"));
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("node '_assert'"));
}

TEST(InterpreterTest, InputErrorsNameThePlaceholder) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* scale = g->placeholder("scale", "", Argument(2.0));
  x->meta().set("_torchscript_type", "Tensor");
  g->output(g->call_function("operator.mul", {x, scale}));
  GraphModule gm(empty_module(), std::move(g));

  auto too_many = gm({at::ones({1}), 1.0, 3});
  EXPECT_THAT(std::string(too_many.status().message()),
              HasSubstr("forward takes 2 input(s) (x, scale) but 3 were given"));
  auto missing = gm({});
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("placeholder 'x'"));
  auto wrong_type = gm({c10::IValue(int64_t{3})});
  EXPECT_THAT(std::string(wrong_type.status().message()),
              HasSubstr("input 0 (placeholder 'x') must be Tensor but got int"));
  // The default fills the omitted trailing input.
  EXPECT_TRUE(at::allclose(run_tensor(gm, {at::ones({2})}), at::full({2}, 2.0)));
}

TEST(InterpreterTest, FailingOperatorsNameTheNode) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  g->output(g->call_function("aten::mm", {x, y}));
  GraphModule gm(empty_module(), std::move(g));
  auto out = gm({at::ones({2, 3}), at::ones({2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("node 'mm' (torch.ops.aten.mm.default)"));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("cannot be multiplied"));
}

TEST(InterpreterTest, UnknownOperatorsAndMissingTargetsAreReported) {
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("aten::no_such_op.Tensor", {x}));
    GraphModule gm(empty_module(), std::move(g));
    auto out = gm({at::ones({1})});
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("no operator named aten::no_such_op.Tensor"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_module("missing.layer", {x}));
    GraphModule gm(empty_module(), std::move(g));
    auto out = gm({at::ones({1})});
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("node 'missing_layer'"));
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("no attribute 'missing'"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("torch.exp", {x, x, x}));
    GraphModule gm(empty_module(), std::move(g));
    auto out = gm({at::ones({1})});
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("no overload of aten::exp accepts (Tensor, Tensor, Tensor)"));
  }
}

TEST(InterpreterTest, GraphChangesRebuildThePlan) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* neg = g->call_function("aten::neg", {x});
  Node* out = g->output(neg);
  GraphModule gm(empty_module(), std::move(g));
  at::Tensor a = at::rand({3});
  EXPECT_TRUE(at::allclose(run_tensor(gm, {a}), -a));
  Node* exp = nullptr;
  {
    auto guard = gm.graph().inserting_before(out);
    exp = gm.graph().call_function("aten::exp", {neg});
  }
  out->update_arg(0, exp);
  EXPECT_TRUE(at::allclose(run_tensor(gm, {a}), at::exp(-a)));
}

class RecordingInterpreter : public Interpreter {
 public:
  using Interpreter::Interpreter;
  std::vector<std::string> seen;

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    seen.push_back(node.name());
    return Interpreter::run_node(node);
  }
  absl::StatusOr<c10::IValue> call_function(const Node& node, std::vector<c10::IValue> args,
                                            IValueKwargs kwargs) override {
    if (node.target() == "aten::neg") return args[0];  // replace neg by identity
    return Interpreter::call_function(node, std::move(args), std::move(kwargs));
  }
};

TEST(InterpreterTest, StepsCanBeOverridden) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* neg = g->call_function("aten::neg", {x});
  g->output(g->call_function("aten::exp", {neg}));
  GraphModule gm(empty_module(), std::move(g));
  RecordingInterpreter interp(gm);
  at::Tensor a = at::rand({2});
  auto out = interp.run({a});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTensor(), at::exp(a)));
  EXPECT_EQ(interp.seen, (std::vector<std::string>{"x", "neg", "exp", "output"}));
}

}  // namespace
}  // namespace fx
