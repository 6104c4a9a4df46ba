// Copyright 2026 The FX for C++ Authors.
#include "tracer/proxy.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/softmax.h>

#include "absl/strings/str_cat.h"
#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tracer/symbolic_trace.h"

namespace fx {
namespace {

using ::testing::ElementsAre;

// Seed 003's print_node.
std::string describe(const Node& n) {
  return absl::StrCat("Node name: ", n.name(), ", Target: ", n.target(),
                      ", Inputs: ", python_repr(Argument::Tuple(n.args())), " ",
                      python_repr(Argument::Dict(n.kwargs())));
}

std::vector<std::string> describe_all(const Graph& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes()) out.push_back(describe(*n));
  return out;
}

TEST(ProxyTest, SeedHandBuiltGraphNamesAndRenaming) {
  Graph graph;
  GraphAppendingTracer tracer(graph);
  Proxy x1(graph.placeholder("x1", "torch.Tensor"), &tracer);
  Proxy x2 = x1 + x1;
  Proxy x3 = x2 * x1;
  Proxy x4 = x3 * x2;
  EXPECT_THAT(describe_all(graph),
              ElementsAre("Node name: x1, Target: x1, Inputs: () {}",
                          "Node name: add, Target: operator.add, Inputs: (x1, x1) {}",
                          "Node name: mul, Target: operator.mul, Inputs: (add, x1) {}",
                          "Node name: mul_1, Target: operator.mul, Inputs: (mul, add) {}"));
  // x3.node.name = "x3": the new name shows up in mul_1's inputs.
  x3.node()->rename("x3");
  EXPECT_EQ(describe(*x3.node()), "Node name: x3, Target: operator.mul, Inputs: (add, x1) {}");
  EXPECT_EQ(describe(*x4.node()), "Node name: mul_1, Target: operator.mul, Inputs: (x3, add) {}");
}

TEST(ProxyTest, SeedWeightedSumGraph) {
  // Seed 003: out = (x1s + x2s) * weights; out = out.view(-1).
  Graph graph;
  GraphAppendingTracer tracer(graph);
  Proxy x1s(graph.placeholder("x1", "torch.Tensor"), &tracer);
  Proxy x2s(graph.placeholder("x2", "torch.Tensor"), &tracer);
  Proxy weights(graph.placeholder("w", "torch.Tensor"), &tracer);
  Proxy out = (x1s + x2s) * weights;
  out = out.view(-1);
  graph.output(out.node(), "torch.Tensor");
  EXPECT_EQ(python_code(graph),
            "def forward(self, x1 : torch.Tensor, x2 : torch.Tensor, w : torch.Tensor) -> torch.Tensor:\n"
            "    add = x1 + x2;  x1 = x2 = None\n"
            "    mul = add * w;  add = w = None\n"
            "    view = mul.view(-1);  mul = None\n"
            "    return view\n");
  GraphModule gm(empty_module("Weighted"), graph.copy());
  at::Tensor a = at::rand({2, 3}), b = at::rand({2, 3}), w = at::rand({2, 3});
  auto result = gm({a, b, w});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(at::allclose(result->toTensor(), ((a + b) * w).view(-1)));
}

TEST(ProxyTest, OperatorsRecordPythonSemantics) {
  Graph graph;
  GraphAppendingTracer tracer(graph);
  Proxy x(graph.placeholder("x"), &tracer);
  Proxy a = 2 - x;        // number on the left keeps its place
  Proxy b = x / 4.0;
  Proxy c = -x;
  Proxy d = x[0];
  Proxy e = x < 1;
  Proxy f = x == a;
  EXPECT_EQ(a.node()->target(), "operator.sub");
  EXPECT_EQ(a.node()->args(), (Arguments{2, x.node()}));
  EXPECT_EQ(b.node()->target(), "operator.truediv");
  EXPECT_EQ(c.node()->target(), "operator.neg");
  EXPECT_EQ(d.node()->target(), "operator.getitem");
  EXPECT_EQ(e.node()->target(), "operator.lt");
  EXPECT_EQ(f.node()->target(), "operator.eq");
  graph.output(Argument::Tuple({a, b, c, d, e, f}));
  EXPECT_EQ(python_code(graph),
            "def forward(self, x):\n"
            "    sub = 2 - x\n"
            "    truediv = x / 4.0\n"
            "    neg = -x\n"
            "    getitem = x[0]\n"
            "    lt = x < 1\n"
            "    eq = x == sub;  x = None\n"
            "    return (sub, truediv, neg, getitem, lt, eq)\n");
}

TEST(ProxyTest, MethodsAndFunctionsRecordCallMethodAndTorchFunctions) {
  Graph graph;
  GraphAppendingTracer tracer(graph);
  Proxy x(graph.placeholder("x"), &tracer);
  Proxy s = x.sum(1, true);
  Proxy r = s.relu();
  Proxy m = matmul(x, x.t());
  Proxy c = cat({r, m}, 1);
  Proxy sm = softmax(c, -1);
  graph.output(sm);
  EXPECT_EQ(s.node()->op(), Op::kCallMethod);
  EXPECT_EQ(s.node()->args(), (Arguments{x.node(), 1, true}));
  EXPECT_EQ(m.node()->target(), "torch.matmul");
  EXPECT_EQ(c.node()->args()[0], Argument::List({r.node(), m.node()}));
  GraphModule gm(empty_module("Methods"), graph.copy());
  at::Tensor t = at::rand({3, 3});
  auto out = gm({t});
  ASSERT_TRUE(out.ok()) << out.status();
  at::Tensor want = at::softmax(at::cat({t.sum(1, true).relu(), at::matmul(t, t.t())}, 1), -1);
  EXPECT_TRUE(at::allclose(out->toTensor(), want));
}

TEST(ProxyTest, GraphAppendingTracerRecordsAtTheInsertionPoint) {
  Graph graph;
  Node* x = graph.placeholder("x");
  Node* relu = graph.call_module("relu", {x});
  graph.output(relu);
  GraphAppendingTracer tracer(graph);
  {
    auto guard = graph.inserting_before(relu);
    Proxy y = exp(Proxy(x, &tracer));
    EXPECT_EQ(y.node()->next(), relu);
  }
  EXPECT_TRUE(graph.lint().ok()) << graph.lint();
}

TEST(SymbolicTraceTest, SeedExpTanLambdaTracesAndRuns) {
  auto f = [](auto x) { return exp(tan(x)); };
  GraphModule gm = symbolic_trace(f, "x");
  EXPECT_EQ(gm.code(),
            "def forward(self, x):\n"
            "    tan = torch.tan(x);  x = None\n"
            "    exp = torch.exp(tan);  tan = None\n"
            "    return exp\n");
  at::Tensor in = at::rand({5});
  auto out = gm({in});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTensor(), f(in)));  // the same lambda, on tensors
}

TEST(SymbolicTraceTest, SeveralInputsAndTupleOutputs) {
  auto f = [](auto a, auto b) { return std::make_tuple(a + b, a * b); };
  GraphModule gm = symbolic_trace(f, "a", "b");
  EXPECT_THAT(gm.graph().placeholders().size(), 2u);
  at::Tensor x = at::rand({2}), y = at::rand({2});
  auto out = gm({x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTupleRef().elements()[0].toTensor(), x + y));
  EXPECT_TRUE(at::allclose(out->toTupleRef().elements()[1].toTensor(), x * y));
}

}  // namespace
}  // namespace fx
