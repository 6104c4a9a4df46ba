// Copyright 2026 The FX for C++ Authors.
//
// Walks core/python_operators.def: every Python operator prints as Python
// writes it, records through Proxy, and runs in the runtime with Python's
// meaning (checked against libtorch computing the same thing directly).
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/bitwise_not.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/floor_divide.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/ge.h>
#include <ATen/ops/gt.h>
#include <ATen/ops/le.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/tensor.h>

#include <functional>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tracer/proxy.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// What each operator computes on (a, b), written with libtorch directly, and
// the operands it is tried on: floats, or ints for the bitwise ones.
struct Expected {
  std::function<c10::IValue(const at::Tensor&, const at::Tensor&)> compute;
  bool integers = false;
};

const std::map<std::string, Expected>& expected() {
  static const auto* table = new std::map<std::string, Expected>{
      {"add", {[](auto& a, auto& b) { return a + b; }}},
      {"sub", {[](auto& a, auto& b) { return a - b; }}},
      {"mul", {[](auto& a, auto& b) { return a * b; }}},
      {"floordiv", {[](auto& a, auto& b) { return at::floor_divide(a, b); }}},
      {"truediv", {[](auto& a, auto& b) { return a / b; }}},
      {"div", {[](auto& a, auto& b) { return a / b; }}},
      {"mod", {[](auto& a, auto& b) { return at::remainder(a, b); }}},
      {"pow", {[](auto& a, auto& b) { return at::pow(a, b); }}},
      {"lshift", {[](auto& a, auto& b) { return a.__lshift__(b); }, true}},
      {"rshift", {[](auto& a, auto& b) { return a.__rshift__(b); }, true}},
      {"and_", {[](auto& a, auto& b) { return a.__and__(b); }, true}},
      {"or_", {[](auto& a, auto& b) { return a.__or__(b); }, true}},
      {"xor", {[](auto& a, auto& b) { return a.__xor__(b); }, true}},
      {"getitem", {[](auto& a, auto& b) { return a[1]; }}},
      {"matmul", {[](auto& a, auto& b) { return at::matmul(a, b); }}},
      {"eq", {[](auto& a, auto& b) { return at::eq(a, b); }}},
      {"ne", {[](auto& a, auto& b) { return at::ne(a, b); }}},
      {"lt", {[](auto& a, auto& b) { return at::lt(a, b); }}},
      {"gt", {[](auto& a, auto& b) { return at::gt(a, b); }}},
      {"le", {[](auto& a, auto& b) { return at::le(a, b); }}},
      {"ge", {[](auto& a, auto& b) { return at::ge(a, b); }}},
      {"pos", {[](auto& a, auto& b) { return a; }}},
      {"neg", {[](auto& a, auto& b) { return -a; }}},
      {"invert", {[](auto& a, auto& b) { return at::bitwise_not(a); }, true}},
      {"not_", {[](auto& a, auto& b) { return c10::IValue(false); }}},
      {"abs", {[](auto& a, auto& b) { return at::abs(a); }}},
      {"iadd", {[](auto& a, auto& b) { return a + b; }}},
      {"isub", {[](auto& a, auto& b) { return a - b; }}},
      {"imul", {[](auto& a, auto& b) { return a * b; }}},
      {"itruediv", {[](auto& a, auto& b) { return a / b; }}},
      {"ifloordiv", {[](auto& a, auto& b) { return at::floor_divide(a, b); }}},
      {"imod", {[](auto& a, auto& b) { return at::remainder(a, b); }}},
      {"ipow", {[](auto& a, auto& b) { return at::pow(a, b); }}},
      {"imatmul", {[](auto& a, auto& b) { return at::matmul(a, b); }}},
      {"ilshift", {[](auto& a, auto& b) { return a.__lshift__(b); }, true}},
      {"irshift", {[](auto& a, auto& b) { return a.__rshift__(b); }, true}},
      {"iand", {[](auto& a, auto& b) { return a.__and__(b); }, true}},
      {"ior", {[](auto& a, auto& b) { return a.__or__(b); }, true}},
      {"ixor", {[](auto& a, auto& b) { return a.__xor__(b); }, true}},
  };
  return *table;
}

// The Proxy function of each entry, from the same table.
using BinaryFn = Proxy (*)(const Proxy&, const Proxy&);
using UnaryFn = Proxy (*)(const Proxy&);
using InplaceFn = Proxy (*)(const Proxy&, Argument);
const std::map<std::string, BinaryFn> kBinary = {
#define FX_PYTHON_BINARY(id, name, form, aten, reflected, mirror) {name, &py::id},
#include "core/python_operators.def"
};
const std::map<std::string, UnaryFn> kUnary = {
#define FX_PYTHON_UNARY(id, name, form, aten) {name, &py::id},
#include "core/python_operators.def"
};
const std::map<std::string, InplaceFn> kInplace = {
#define FX_PYTHON_INPLACE(id, name, form, aten) {name, &py::id},
#include "core/python_operators.def"
};

bool equal(const c10::IValue& got, const c10::IValue& want) {
  if (want.isTensor()) {
    return got.isTensor() && got.toTensor().sizes() == want.toTensor().sizes() &&
           at::allclose(got.toTensor().to(at::kDouble), want.toTensor().to(at::kDouble));
  }
  return got == want;
}

TEST(PythonOperatorsTest, EveryEntryPrintsRecordsAndRuns) {
  ASSERT_EQ(python_operators().size(), expected().size()) << "a table entry without a check";
  for (const PythonOperator& op : python_operators()) {
    const std::string name(op.name);
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected().count(name));
    const Expected& want = expected().at(name);
    // Record `a <op> b` (or `<op> a`) through Proxy.
    auto graph = std::make_unique<Graph>();
    GraphAppendingTracer tracer(*graph);
    Proxy a(graph->placeholder("a"), &tracer);
    Proxy b(graph->placeholder("b"), &tracer);
    Proxy result = a;
    switch (op.kind) {
      case PythonOperator::Kind::kBinary:
        result = name == "getitem" ? py::getitem(a, 1) : kBinary.at(name)(a, b);
        break;
      case PythonOperator::Kind::kUnary:
        result = kUnary.at(name)(a);
        break;
      case PythonOperator::Kind::kInplace:
        result = kInplace.at(name)(a, b);
        break;
    }
    ASSERT_EQ(result.node()->target(), absl::StrCat("operator.", name));
    graph->output(result);

    // It prints as Python writes it: the form with the operands' names.
    std::string statement(op.form);
    statement.replace(statement.find("{}"), 2, "a");
    if (op.arity() == 2) statement.replace(statement.find("{}"), 2, name == "getitem" ? "1" : "b");
    EXPECT_THAT(python_code(*graph), HasSubstr(statement));

    // It runs with Python's meaning.
    at::Tensor x = want.integers ? at::tensor({5, 6, 7}, at::kLong) : at::rand({3, 3}) + 0.5;
    if (name == "not_") x = at::ones({1});  // `not x` needs one value, as in Python
    at::Tensor y = want.integers ? at::tensor({1, 2, 3}, at::kLong) : at::rand({3, 3}) + 0.5;
    const c10::IValue reference = want.compute(x.clone(), y.clone());
    GraphModule gm(empty_module("Ops"), std::move(graph));
    auto got = gm({x.clone(), y.clone()});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(equal(*got, reference)) << *got << "\nvs\n" << reference;
  }
}

TEST(PythonOperatorsTest, NotOfSeveralValuesIsAnErrorNamingTheNode) {
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  graph->output(graph->call_function("operator.not_", {x}));
  GraphModule gm(empty_module("Not"), std::move(graph));
  auto got = gm({at::ones({3})});
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("node 'not_' (operator.not_)"));
}

TEST(PythonOperatorsTest, NumbersOnTheLeftAsPythonDoes) {
  Graph graph;
  GraphAppendingTracer tracer(graph);
  Proxy x(graph.placeholder("x"), &tracer);
  Proxy sub = 2 - x;     // torch.fx's __rsub__: the number keeps its place
  Proxy lt = 1 < x;      // Python mirrors comparisons: x > 1
  Proxy fd = py::floordiv(7, x);
  EXPECT_EQ(sub.node()->target(), "operator.sub");
  EXPECT_EQ(sub.node()->args(), (Arguments{2, x.node()}));
  EXPECT_EQ(lt.node()->target(), "operator.gt");
  EXPECT_EQ(lt.node()->args(), (Arguments{x.node(), 1}));
  EXPECT_EQ(fd.node()->args(), (Arguments{7, x.node()}));
  Proxy y = x;
  y += 3;  // rebinds, as torch.fx records `y += 3` on a Proxy
  EXPECT_EQ(y.node()->target(), "operator.add");
  graph.output(Argument::Tuple({sub, lt, fd, y}));
  GraphModule gm(empty_module("Numbers"), std::make_unique<Graph>());
  gm.set_graph(graph.copy());
  at::Tensor t = at::tensor({0.5, 1.5, 2.5});
  auto out = gm({t});
  ASSERT_TRUE(out.ok()) << out.status();
  auto items = out->toTupleRef().elements();
  EXPECT_TRUE(at::allclose(items[0].toTensor(), 2 - t));
  EXPECT_TRUE(at::equal(items[1].toTensor(), t > 1));
  EXPECT_TRUE(at::allclose(items[2].toTensor(), at::floor_divide(at::full_like(t, 7), t)));
  EXPECT_TRUE(at::allclose(items[3].toTensor(), t + 3));
}

}  // namespace
}  // namespace fx
