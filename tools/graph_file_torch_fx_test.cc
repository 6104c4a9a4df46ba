// Copyright 2026 The FX for C++ Authors.
//
// Graph files written from what torch.fx's symbolic_trace records (torch
// 1.13: node.target spelled by torch.fx.node._get_qualified_name) run, in
// the Interpreter and the execution plan, and compute what PyTorch computes;
// what cannot run is refused naming the node and its target.
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/adaptive_max_pool2d.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/flatten.h>
#include <ATen/ops/frobenius_norm.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/layer_norm.h>
#include <ATen/ops/leaky_relu.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/max.h>
#include <ATen/ops/max_pool1d.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/norm.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/softmax.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/torchscript/torchscript_export.h"
#include "tools/graph_file.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// A graph file of placeholders `x` (and `w`, `b`) and `nodes` (JSON objects,
// without the output), returning `outputs`.
std::string graph_file(const std::vector<std::string>& placeholders,
                       const std::vector<std::string>& nodes,
                       const std::vector<std::string>& outputs) {
  std::vector<std::string> all;
  for (const std::string& p : placeholders) {
    all.push_back(absl::StrCat(R"({"name": ")", p, R"(", "op": "placeholder", "target": ")", p,
                               R"(", "args": [], "kwargs": {}})"));
  }
  all.insert(all.end(), nodes.begin(), nodes.end());
  std::vector<std::string> refs;
  for (const std::string& o : outputs) refs.push_back(absl::StrCat(R"({"node": ")", o, R"("})"));
  all.push_back(absl::StrCat(R"({"name": "output", "op": "output", "target": "output", "args": [{"tuple": [)",
                             absl::StrJoin(refs, ", "), R"(]}], "kwargs": {}})"));
  return absl::StrCat(R"({"format": "fx-graph", "version": 1, "nodes": [)", absl::StrJoin(all, ",\n"),
                      R"(], "meta": {}})");
}

// One call node.
std::string call(const std::string& name, const std::string& op, const std::string& target,
                 const std::string& args, const std::string& kwargs = "{}") {
  return absl::StrCat(R"({"name": ")", name, R"(", "op": ")", op, R"(", "target": ")", target,
                      R"(", "args": )", args, R"(, "kwargs": )", kwargs, "}");
}

GraphModule read(const std::string& text) {
  auto gm = read_graph_file(text, empty_module("M"), "g.json");
  EXPECT_TRUE(gm.ok()) << gm.status();
  return *std::move(gm);
}

// The outputs by the execution plan and by the Interpreter, which must agree.
std::vector<c10::IValue> run_both(GraphModule& gm, const std::vector<c10::IValue>& inputs) {
  auto planned = gm.forward(inputs);
  EXPECT_TRUE(planned.ok()) << planned.status();
  Interpreter interpreter(gm);
  auto interpreted = interpreter.run(inputs);
  EXPECT_TRUE(interpreted.ok()) << interpreted.status();
  if (!planned.ok() || !interpreted.ok()) return {};
  const auto a = planned->toTupleRef().elements().vec();
  const auto b = interpreted->toTupleRef().elements().vec();
  EXPECT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].isTensor()) {
      EXPECT_TRUE(at::equal(a[i].toTensor(), b[i].toTensor())) << "output " << i;
    } else {
      EXPECT_EQ(a[i], b[i]) << "output " << i;
    }
  }
  return a;
}

void expect_tensor(const c10::IValue& got, const at::Tensor& want, const std::string& what) {
  ASSERT_TRUE(got.isTensor()) << what << ": " << got.tagKind();
  const at::Tensor& t = got.toTensor();
  EXPECT_EQ(t.scalar_type(), want.scalar_type()) << what;
  EXPECT_EQ(t.sizes(), want.sizes()) << what;
  EXPECT_TRUE(at::allclose(t, want, 1e-5, 1e-6)) << what << ":\n" << t << "\nwant\n" << want;
}

TEST(GraphFileTorchFxTest, FunctionalAndTorchBindingsRun) {
  const std::string x = R"({"node": "x"})";
  std::string text = graph_file(
      {"x", "w", "b"},
      {
          call("gelu", "call_function", "torch._C._nn.gelu", "[" + x + "]"),
          call("linear", "call_function", "torch._C._nn.linear",
               R"([{"node": "x"}, {"node": "w"}, {"node": "b"}])"),
          call("pad", "call_function", "torch.nn.functional.pad", R"([{"node": "x"}, {"tuple": [1, 2]}])"),
          call("softmax", "call_function", "torch.nn.functional.softmax", "[" + x + "]",
               R"({"dim": 1, "_stacklevel": 5, "dtype": null})"),
          call("log_softmax", "call_function", "torch.nn.functional.log_softmax", "[" + x + "]",
               R"({"dim": 0, "_stacklevel": 3, "dtype": null})"),
          call("relu", "call_function", "torch.nn.functional.relu", "[" + x + "]",
               R"({"inplace": false})"),
          call("leaky", "call_function", "torch.nn.functional.leaky_relu", "[" + x + "]",
               R"({"negative_slope": 0.2, "inplace": false})"),
          call("layer_norm", "call_function", "torch.nn.functional.layer_norm",
               R"([{"node": "x"}, {"tuple": [6]}])", R"({"weight": null, "bias": null, "eps": 1e-05})"),
          call("dropout", "call_function", "torch.nn.functional.dropout", "[" + x + "]",
               R"({"p": 0.5, "training": false, "inplace": false})"),
          call("flatten", "call_function", "torch.flatten", R"([{"node": "x"}, 1])"),
          call("cat", "call_function", "torch.cat", R"([[{"node": "x"}, {"node": "x"}], 0])"),
          call("neg", "call_function", "_operator.neg", "[" + x + "]"),
          call("pos", "call_function", "_operator.pos", "[" + x + "]"),
          call("norm", "call_function", "torch.functional.norm", "[" + x + "]",
               R"({"p": 2, "dim": 1, "keepdim": false, "out": null, "dtype": null})"),
          call("fro", "call_function", "torch.functional.norm", "[" + x + "]",
               R"({"p": "fro", "dim": null, "keepdim": false, "out": null, "dtype": null})"),
      },
      {"gelu", "linear", "pad", "softmax", "log_softmax", "relu", "leaky", "layer_norm", "dropout",
       "flatten", "cat", "neg", "pos", "norm", "fro"});
  GraphModule gm = read(text);
  const at::Tensor in = at::randn({4, 6});
  const at::Tensor w = at::randn({3, 6});
  const at::Tensor b = at::randn({3});
  const std::vector<c10::IValue> out = run_both(gm, {in, w, b});
  ASSERT_EQ(out.size(), 15u);
  expect_tensor(out[0], at::gelu(in), "gelu");
  expect_tensor(out[1], at::linear(in, w, b), "linear");
  expect_tensor(out[2], at::constant_pad_nd(in, {1, 2}), "pad");
  expect_tensor(out[3], at::softmax(in, 1), "softmax");
  expect_tensor(out[4], at::log_softmax(in, 0), "log_softmax");
  expect_tensor(out[5], at::relu(in), "relu");
  expect_tensor(out[6], at::leaky_relu(in, 0.2), "leaky_relu");
  expect_tensor(out[7], at::layer_norm(in, {6}), "layer_norm");
  expect_tensor(out[8], in, "dropout");
  expect_tensor(out[9], at::flatten(in, 1), "flatten");
  expect_tensor(out[10], at::cat({in, in}, 0), "cat");
  expect_tensor(out[11], -in, "neg");
  expect_tensor(out[12], in, "pos");
  expect_tensor(out[13], at::norm(in, 2, {1}), "norm");
  expect_tensor(out[14], at::frobenius_norm(in, {}, false), "fro");
}

TEST(GraphFileTorchFxTest, MethodsAttributesAndMathRun) {
  std::string text = graph_file(
      {"x"},
      {
          call("size", "call_method", "size", R"([{"node": "x"}, 1])"),
          call("size_1", "call_method", "size", R"([{"node": "x"}, -1])"),
          call("sqrt", "call_function", "math.sqrt", R"([{"node": "size_1"}])"),
          call("mul", "call_function", "_operator.mul", R"([{"node": "sqrt"}, {"node": "x"}])"),
          call("getattr_1", "call_function", "getattr", R"([{"node": "x"}, "shape"])"),
          call("max_1", "call_method", "max", R"([{"node": "x"}])", R"({"dim": 1})"),
          call("values", "call_function", "getattr", R"([{"node": "max_1"}, "values"])"),
          call("indices", "call_function", "getattr", R"([{"node": "max_1"}, "indices"])"),
          call("max_2", "call_method", "max", R"([{"node": "x"}])", R"({"dim": 1})"),
          call("getitem", "call_function", "_operator.getitem", R"([{"node": "max_2"}, 0])"),
          call("float_1", "call_method", "float", R"([{"node": "x"}])"),
          call("double_1", "call_method", "double", R"([{"node": "x"}])"),
          call("to", "call_method", "to", R"([{"node": "float_1"}, {"dtype": "torch.float64"}])"),
          call("norm_m", "call_method", "norm", R"([{"node": "x"}, 2, 1])"),
      },
      {"size", "sqrt", "mul", "getattr_1", "values", "indices", "getitem", "float_1",
       "double_1", "to", "norm_m"});
  GraphModule gm = read(text);
  const at::Tensor h = at::randn({4, 6}).to(at::kDouble);
  const std::vector<c10::IValue> out = run_both(gm, {h});
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[0], c10::IValue(int64_t{6}));
  ASSERT_TRUE(out[1].isDouble());
  EXPECT_DOUBLE_EQ(out[1].toDouble(), std::sqrt(6.0));
  expect_tensor(out[2], std::sqrt(6.0) * h, "mul");
  EXPECT_EQ(out[3].toIntVector(), (std::vector<int64_t>{4, 6}));
  const auto [values, indices] = at::max(h, 1);
  expect_tensor(out[4], values, "values");
  expect_tensor(out[5], indices, "indices");
  expect_tensor(out[6], values, "getitem");
  expect_tensor(out[7], h.to(at::kFloat), "float");
  expect_tensor(out[8], h.to(at::kDouble), "double");
  expect_tensor(out[9], h.to(at::kFloat).to(at::kDouble), "to");
  expect_tensor(out[10], at::norm(h, 2, {1}), "norm method");
}

TEST(GraphFileTorchFxTest, InplaceFunctionsWriteTheirInput) {
  // y = x * 1 (a fresh tensor); F.relu(y, inplace=True) writes y.
  std::string text = graph_file(
      {"x"},
      {
          call("mul", "call_function", "operator.mul", R"([{"node": "x"}, 1])"),
          call("relu", "call_function", "torch.nn.functional.relu", R"([{"node": "mul"}])",
               R"({"inplace": true})"),
          call("add", "call_function", "operator.add", R"([{"node": "mul"}, {"node": "relu"}])"),
      },
      {"add"});
  GraphModule gm = read(text);
  const at::Tensor in = at::randn({3, 5});
  const std::vector<c10::IValue> out = run_both(gm, {in});
  ASSERT_EQ(out.size(), 1u);
  expect_tensor(out[0], 2 * at::relu(in), "relu_ then add");
}

TEST(GraphFileTorchFxTest, WhatCannotRunIsRefusedNamingTheNodeAndTarget) {
  struct Case {
    std::string node;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {call("f", "call_function", "torchvision.ops.misc.frobnicate", R"([{"node": "x"}])"),
            "node 'f' (torchvision.ops.misc.frobnicate)"},
           {call("f", "call_function", "math.sqrt", R"([{"node": "x"}])"),
            "math.sqrt takes Python numbers, not a Tensor"},
           {call("f", "call_function", "torch.functional.norm", R"([{"node": "x"}])",
                 R"({"p": "fro", "dim": null, "keepdim": false, "out": {"node": "x"}, "dtype": null})"),
            "out= is not supported"},
           {call("f", "call_function", "getattr", R"([{"node": "x"}, "values"])"),
            "unsupported tensor attribute 'values'"},
       }) {
    GraphModule gm = read(graph_file({"x"}, {c.node}, {"f"}));
    auto out = gm.forward({at::randn({2, 3})});
    ASSERT_FALSE(out.ok()) << c.node;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(c.message)) << c.node;
    EXPECT_THAT(std::string(out.status().message()), HasSubstr("node 'f'")) << c.node;
  }
}

TEST(GraphFileTorchFxTest, PosAndSoftmaxWithStacklevelExportToTorchScript) {
  std::string text = graph_file(
      {"x"},
      {
          call("pos", "call_function", "_operator.pos", R"([{"node": "x"}])"),
          call("softmax", "call_function", "torch.nn.functional.softmax", R"([{"node": "pos"}])",
               R"({"dim": 1, "_stacklevel": 5, "dtype": null})"),
          call("size", "call_method", "size", R"([{"node": "x"}, 1])"),
          call("pos_1", "call_function", "operator.pos", R"([{"node": "size"}])"),
          call("mul", "call_function", "operator.mul", R"([{"node": "softmax"}, 2.5])"),
          call("gelu", "call_function", "torch._C._nn.gelu", R"([{"node": "mul"}])"),
      },
      {"gelu", "pos_1"});
  GraphModule gm = read(text);
  auto module = export_to_torchscript(gm);
  ASSERT_TRUE(module.ok()) << module.status();
  const at::Tensor in = at::randn({4, 6});
  const c10::IValue got = module->forward({in});
  const auto elements = got.toTupleRef().elements();
  expect_tensor(elements[0], at::gelu(at::softmax(in, 1) * 2.5), "exported");
  EXPECT_EQ(elements[1], c10::IValue(int64_t{6}));
  const std::vector<c10::IValue> ran = run_both(gm, {in});
  ASSERT_EQ(ran.size(), 2u);
  expect_tensor(ran[0], elements[0].toTensor(), "run");
}

TEST(GraphFileTorchFxTest, MaxPoolingTakesPythonsKeywords) {
  const std::string keywords =
      R"({"stride": null, "padding": 0, "dilation": 1, "ceil_mode": false, "return_indices": false})";
  std::string text = graph_file(
      {"x"},
      {
          call("max_pool2d", "call_function", "torch.nn.functional.max_pool2d", R"([{"node": "x"}, 2])",
               keywords),
          call("flat", "call_method", "flatten", R"([{"node": "x"}, 2])"),
          call("max_pool1d", "call_function", "torch.nn.functional.max_pool1d",
               R"([{"node": "flat"}, 3, 2, 1])", R"({"ceil_mode": true, "return_indices": false})"),
          call("adaptive", "call_function", "torch.nn.functional.adaptive_max_pool2d",
               R"([{"node": "x"}, {"tuple": [2, 3]}])", R"({"return_indices": false})"),
      },
      {"max_pool2d", "max_pool1d", "adaptive"});
  GraphModule gm = read(text);
  const at::Tensor in = at::randn({2, 3, 8, 10});
  const std::vector<c10::IValue> out = run_both(gm, {in});
  ASSERT_EQ(out.size(), 3u);
  expect_tensor(out[0], at::max_pool2d(in, {2, 2}), "max_pool2d");
  expect_tensor(out[1], at::max_pool1d(in.flatten(2), {3}, {2}, {1}, {1}, true), "max_pool1d");
  expect_tensor(out[2], std::get<0>(at::adaptive_max_pool2d(in, {2, 3})), "adaptive_max_pool2d");

  // return_indices=True returns a tuple in Python: refused, naming the node.
  GraphModule indices = read(graph_file(
      {"x"},
      {call("pool", "call_function", "torch.nn.functional.max_pool2d", R"([{"node": "x"}, 2])",
            R"({"return_indices": true})")},
      {"pool"}));
  auto refused = indices.forward({in});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("node 'pool'"));
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("with return_indices=True is not supported here"));
}

// Over a model with no TorchScript code (a graph file alone), calls of
// torch.nn.functional and torch.functional export as the aten operators the
// runtime binds, and math on numbers as TorchScript's math.
TEST(GraphFileTorchFxTest, FunctionalCallsExportAsTheirAtenOperators) {
  std::string text = graph_file(
      {"x"},
      {
          call("pad", "call_function", "torch.nn.functional.pad", R"([{"node": "x"}, {"tuple": [1, 2]}])"),
          call("pool", "call_function", "torch.nn.functional.max_pool2d", R"([{"node": "pad"}, 2])",
               R"({"stride": null, "padding": 0, "dilation": 1, "ceil_mode": false, "return_indices": false})"),
          call("pool_1", "call_function", "torch.nn.functional.max_pool1d",
               R"([{"node": "x"}, 2, null])"),
          call("size", "call_method", "size", R"([{"node": "x"}, -1])"),
          call("sqrt", "call_function", "math.sqrt", R"([{"node": "size"}])"),
          call("mul", "call_function", "operator.mul", R"([{"node": "pool"}, {"node": "sqrt"}])"),
      },
      {"mul", "pool_1"});
  GraphModule gm = read(text);
  auto module = export_to_torchscript(gm);
  ASSERT_TRUE(module.ok()) << module.status();
  const at::Tensor in = at::randn({2, 4, 6});
  const auto got = module->forward({in}).toTupleRef().elements();
  expect_tensor(got[0], at::max_pool2d(at::constant_pad_nd(in, {1, 2}), {2, 2}) * std::sqrt(6.0),
                "exported pad, pool and sqrt");
  expect_tensor(got[1], at::max_pool1d(in, {2}), "exported max_pool1d, stride None");
  const std::vector<c10::IValue> ran = run_both(gm, {in});
  ASSERT_EQ(ran.size(), 2u);
  expect_tensor(ran[0], got[0].toTensor(), "run");

  // Python's unique_consecutive returns a tensor where aten's returns a tuple,
  // and math.floor of a tensor an int where aten's gives a tensor: both are
  // refused, running and saving, not computed otherwise.
  for (const std::string& node :
       {call("f", "call_function", "torch.functional.unique_consecutive", R"([{"node": "x"}])",
             R"({"return_inverse": false, "return_counts": false, "dim": null})"),
        call("f", "call_function", "math.floor", R"([{"node": "x"}])")}) {
    GraphModule gm = read(graph_file({"x"}, {node}, {"f"}));
    auto saved = export_to_torchscript(gm);
    ASSERT_FALSE(saved.ok()) << node;
    EXPECT_THAT(std::string(saved.status().message()), HasSubstr("cannot export node 'f'"));
    auto ran = gm.forward({at::randn({4})});
    ASSERT_FALSE(ran.ok()) << node;
    EXPECT_THAT(std::string(ran.status().message()), HasSubstr("node 'f'"));
  }

  // The adaptive ones return (values, indices) from aten: refused, not a tuple
  // where the graph has a tensor.
  GraphModule adaptive = read(graph_file(
      {"x"},
      {call("pool", "call_function", "torch.nn.functional.adaptive_max_pool2d",
            R"([{"node": "x"}, 2])", R"({"return_indices": false})")},
      {"pool"}));
  auto refused = export_to_torchscript(adaptive);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("cannot export node 'pool' (torch.nn.functional.adaptive_max_pool2d)"));
}

}  // namespace
}  // namespace fx
