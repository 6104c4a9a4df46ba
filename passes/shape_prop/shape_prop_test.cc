// Copyright 2026 The FX for C++ Authors.
#include "passes/shape_prop/shape_prop.h"

#include <chrono>
#include <iostream>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>

#include "core/printer.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "tests/testing/tracing.h"

namespace fx {

void PrintTo(const MetaValue& value, std::ostream* os) { *os << format_meta_value(value); }

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

MetaValue ints(std::initializer_list<int64_t> values) {
  MetaValue::List out;
  for (int64_t v : values) out.emplace_back(v);
  return out;
}

// The tensor_meta of node `name`, or None.
MetaValue tensor_meta(const GraphModule& gm, absl::string_view name) {
  const Node* n = gm.graph().find_node(name);
  EXPECT_NE(n, nullptr) << name;
  const MetaValue* v = n == nullptr ? nullptr : n->meta().find(kTensorMetaKey);
  return v == nullptr ? MetaValue() : *v;
}

// One field of node `name`'s tensor_meta.
MetaValue field(const GraphModule& gm, absl::string_view name, absl::string_view key) {
  MetaValue meta = tensor_meta(gm, name);
  if (!meta.is_map()) {
    ADD_FAILURE() << name << " has no tensor_meta map: " << format_meta_value(meta);
    return MetaValue();
  }
  const MetaValue* v = meta.to_map().find(key);
  return v == nullptr ? MetaValue() : *v;
}

// Every node's tensor_meta, by name, for comparing runs.
std::vector<std::pair<std::string, MetaValue>> all_tensor_meta(const GraphModule& gm) {
  std::vector<std::pair<std::string, MetaValue>> out;
  for (const Node* n : gm.graph().nodes()) {
    const MetaValue* v = n->meta().find(kTensorMetaKey);
    out.emplace_back(n->name(), v == nullptr ? MetaValue() : *v);
  }
  return out;
}

class ShapePropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"shape_prop", "1", ""});
    register_shape_prop(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` on `gm` as fxrun would, with `inputs` (none: nullptr).
  absl::Status run(absl::string_view pipeline, GraphModule& gm,
                   const std::vector<c10::IValue>* inputs,
                   std::vector<std::string>* warnings = nullptr) {
    auto pm = PassManager::create(pipeline, registry_);
    if (!pm.ok()) return pm.status();
    PassContext context(registry_);
    if (inputs != nullptr) context.set_example_inputs(*inputs);
    absl::Status s = pm->run(gm, context);
    if (warnings != nullptr) *warnings = context.warnings();
    return s;
  }

  Registry registry_;
};

// x -> relu -> add(relu, x) -> output, plus a size() that is not a tensor.
GraphModule small_graph() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* relu = g->call_function("aten::relu", {x});
  Node* add = g->call_function("aten::add.Tensor", {relu, x});
  g->call_method("size", {add});
  g->output(add);
  return GraphModule(empty_module("Small"), std::move(g));
}

TEST_F(ShapePropTest, RecordsTorchFxTensorMetadata) {
  GraphModule gm = small_graph();
  auto report = propagate_shapes(gm, {at::randn({2, 3})});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(tensor_meta(gm, "add"),
            MetaValue(Meta{{"shape", ints({2, 3})},
                           {"dtype", "torch.float32"},
                           {"requires_grad", false},
                           {"stride", ints({3, 1})},
                           {"memory_format", "torch.contiguous_format"},
                           {"is_quantized", false},
                           {"device", "cpu"}}));
  // Placeholders and the output are recorded too; sizes are not tensors.
  EXPECT_EQ(field(gm, "x", "shape"), ints({2, 3}));
  EXPECT_EQ(field(gm, "output", "shape"), ints({2, 3}));
  EXPECT_TRUE(tensor_meta(gm, "size").is_none());
  EXPECT_EQ(*gm.meta().find(kShapePropKey),
            MetaValue(Meta{{"device", "cpu"}, {"fallback_nodes", MetaValue::List{}}}));
  EXPECT_EQ(report->device, ShapePropDevice::kCpu);
  EXPECT_TRUE(report->fallback_nodes.empty());
}

TEST_F(ShapePropTest, DtypeStrideMemoryFormatAndRequiresGrad) {
  auto g = std::make_unique<Graph>();
  Node* image = g->placeholder("image");
  Node* ids = g->placeholder("ids");
  Node* w = g->get_attr("w");
  Node* conv = g->call_function("aten::conv2d", {image, w});
  Node* t = g->call_function("aten::t", {ids});
  g->output(Argument::Tuple({conv, t}));
  GraphModule gm(empty_module("Layouts"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("w", at::randn({8, 3, 3, 3}).requires_grad_(true)).ok());

  const at::Tensor nhwc = at::randn({1, 3, 8, 8}).contiguous(at::MemoryFormat::ChannelsLast);
  ASSERT_TRUE(propagate_shapes(gm, {nhwc, at::arange(6).view({2, 3})}).ok());
  EXPECT_EQ(field(gm, "image", "stride"), ints({192, 1, 24, 3}));
  EXPECT_EQ(field(gm, "image", "memory_format"), "torch.channels_last");
  EXPECT_EQ(field(gm, "w", "requires_grad"), true);
  // conv2d keeps channels_last, and its result needs grad through w.
  EXPECT_EQ(field(gm, "conv2d", "shape"), ints({1, 8, 6, 6}));
  EXPECT_EQ(field(gm, "conv2d", "memory_format"), "torch.channels_last");
  EXPECT_EQ(field(gm, "conv2d", "requires_grad"), true);
  // A transposed matrix is contiguous in no format.
  EXPECT_EQ(field(gm, "ids", "dtype"), "torch.int64");
  EXPECT_EQ(field(gm, "t", "stride"), ints({1, 3}));
  EXPECT_TRUE(field(gm, "t", "memory_format").is_none());
}

TEST_F(ShapePropTest, TuplesOfTensorsGetAListWithNoneForOtherElements) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* max = g->call_function("aten::max.dim", {x, 1});
  Node* indices = g->call_function("operator.getitem", {max, 1});
  g->output(Argument::Tuple({indices, 7}));
  GraphModule gm(empty_module("Tuples"), std::move(g));
  ASSERT_TRUE(propagate_shapes(gm, {at::randn({4, 5})}).ok());
  const MetaValue max_meta = tensor_meta(gm, max->name());
  ASSERT_TRUE(max_meta.is_list()) << format_meta_value(max_meta);
  ASSERT_EQ(max_meta.to_list().size(), 2u);
  EXPECT_EQ(*max_meta.to_list()[0].to_map().find("dtype"), "torch.float32");
  EXPECT_EQ(*max_meta.to_list()[1].to_map().find("dtype"), "torch.int64");
  EXPECT_EQ(*max_meta.to_list()[1].to_map().find("shape"), ints({4}));
  const MetaValue out = tensor_meta(gm, "output");
  ASSERT_TRUE(out.is_list());
  EXPECT_EQ(out.to_list()[1], MetaValue());
  // The table's `shape` column reads through the list.
  EXPECT_THAT(format_tabular(gm.graph(), {"tensor_meta.shape"}), HasSubstr("[[4], [4]]"));
}

TEST_F(ShapePropTest, InputsAreNotChangedAndStaleMetaIsReplaced) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* add_ = g->call_function("aten::add_.Scalar", {x, 1});
  Node* sum = g->call_function("aten::sum", {add_});
  g->output(sum);
  const std::string sum_name = sum->name();  // not `sum`, a Python builtin
  GraphModule gm(empty_module("InPlace"), std::move(g));
  const at::Tensor input = at::zeros({3});
  for (ShapePropDevice device : {ShapePropDevice::kCpu, ShapePropDevice::kMeta}) {
    ASSERT_TRUE(propagate_shapes(gm, {input}, {device}).ok());
    EXPECT_TRUE(at::equal(input, at::zeros({3})));
  }
  EXPECT_EQ(field(gm, sum_name, "shape"), ints({}));
  // A later run replaces what an earlier one said ...
  gm.graph().find_node(sum_name)->meta().set(kTensorMetaKey, "stale");
  gm.graph().find_node("output")->meta().set(kTensorMetaKey, "stale");
  ASSERT_TRUE(propagate_shapes(gm, {at::zeros({5})}).ok());
  EXPECT_EQ(field(gm, "x", "shape"), ints({5}));
  EXPECT_EQ(field(gm, sum_name, "shape"), ints({}));
  // ... and a failing one changes nothing.
  auto failed = propagate_shapes(gm, {at::zeros({2}, at::kBool)});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("node 'add_'"));
  EXPECT_EQ(field(gm, "x", "shape"), ints({5}));
}

// A real run leaves the module as it was: a counter the graph advances in
// place and a training-mode batch norm's running statistics are restored
// (torch.fx's ShapeProp leaves them changed, and every later run computes
// something else), on the CPU and where the meta device falls back.
TEST_F(ShapePropTest, TheModulesStateIsAsBefore) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* count = g->call_function("aten::add_.Scalar", {g->get_attr("count"), 1});
  Node* bn = g->call_function("aten::batch_norm",
                              {x, Argument(), Argument(), g->get_attr("mean"), g->get_attr("var"),
                               true, 0.1, 1e-5, false});
  Node* shifted = g->call_function("aten::add.Tensor", {bn, count});
  Node* nonzero = g->call_function("aten::nonzero", {shifted});  // the meta device falls back
  g->output(Argument::Tuple({shifted, nonzero}));
  GraphModule gm(empty_module("Stateful"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("count", at::zeros({})).ok());
  ASSERT_TRUE(gm.add_attribute("mean", at::zeros({3})).ok());
  ASSERT_TRUE(gm.add_attribute("var", at::ones({3})).ok());
  const std::vector<c10::IValue> inputs = {at::randn({4, 3}) + 5};
  for (ShapePropDevice device : {ShapePropDevice::kCpu, ShapePropDevice::kMeta}) {
    auto report = propagate_shapes(gm, inputs, {device});
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(at::equal(gm.get_attr("count")->toTensor(), at::zeros({})));
    EXPECT_TRUE(at::equal(gm.get_attr("mean")->toTensor(), at::zeros({3})));
    EXPECT_TRUE(at::equal(gm.get_attr("var")->toTensor(), at::ones({3})));
  }
  EXPECT_EQ(field(gm, nonzero->name(), "shape"), ints({12, 2}));

  // A parameter the graph writes in forward (weight clipping, Embedding's
  // max_norm: PyTorch runs them under no_grad) runs too, with autograd on and
  // the parameter untouched; a result computed from it still requires grad.
  // So does a model holding tensors made under InferenceMode (const_fold's
  // results) beside parameters that require grad, which autograd cannot save
  // for backward as they are.
  auto g2 = std::make_unique<Graph>();
  Node* y = g2->placeholder("y");
  Node* clipped = g2->call_function("aten::clamp_", {g2->get_attr("weight"), -0.5, 0.5});
  Node* scaled = g2->call_function("aten::mul.Tensor", {y, clipped});
  g2->output(g2->call_function("aten::mul.Tensor", {scaled, g2->get_attr("folded")}));
  GraphModule written(empty_module("WritesItsWeight"), std::move(g2));
  ASSERT_TRUE(written.add_attribute("weight", at::full({2}, 2.0).requires_grad_(true)).ok());
  at::Tensor folded;
  {
    c10::InferenceMode inference;
    folded = at::ones({2}) * 3;
  }
  ASSERT_TRUE(folded.is_inference());
  ASSERT_TRUE(written.add_attribute("folded", folded).ok());
  for (ShapePropDevice device : {ShapePropDevice::kCpu, ShapePropDevice::kMeta}) {
    auto report = propagate_shapes(written, {at::ones({2})}, {device});
    ASSERT_TRUE(report.ok()) << report.status();
    const at::Tensor weight = written.get_attr("weight")->toTensor();
    EXPECT_TRUE(at::equal(weight.detach(), at::full({2}, 2.0))) << weight;
    EXPECT_TRUE(weight.requires_grad() && weight.is_leaf());
    EXPECT_TRUE(written.get_attr("folded")->toTensor().is_same(folded));
    EXPECT_EQ(field(written, scaled->name(), "requires_grad"), true);
  }
}

// Tensors sharing storage are copied sharing it: a write through one is seen
// by the other, as in the model (a buffer that is a view of another).
TEST_F(ShapePropTest, StateSharingStorageStaysShared) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->call_function("aten::add_.Scalar", {g->get_attr("head"), 1});
  Node* read = g->call_function("aten::add.Tensor", {x, g->get_attr("whole")});
  Node* nonzero = g->call_function("aten::nonzero", {read});
  g->output(Argument::Tuple({read, nonzero}));
  GraphModule gm(empty_module("Shared"), std::move(g));
  const at::Tensor whole = at::zeros({4});
  ASSERT_TRUE(gm.add_attribute("whole", whole).ok());
  ASSERT_TRUE(gm.add_attribute("head", whole.narrow(0, 0, 2)).ok());
  // x + whole after head += 1 is [1, 1, 0, 0] + x: two nonzero entries for x = 0.
  for (ShapePropDevice device : {ShapePropDevice::kCpu, ShapePropDevice::kMeta}) {
    ASSERT_TRUE(propagate_shapes(gm, {at::zeros({4})}, {device}).ok());
    EXPECT_EQ(field(gm, nonzero->name(), "shape"), ints({2, 1}));
    EXPECT_TRUE(at::equal(whole, at::zeros({4})));
    EXPECT_EQ(field(gm, "head", "stride"), ints({1}));
  }
}

TEST_F(ShapePropTest, MetaDeviceFallsBackToRealTensorsWhereItCannotRun) {
  // nonzero's shape depends on the data; item() reads it.
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* shifted = g->call_function("aten::add_.Scalar", {x, 1});  // in place, before nonzero
  Node* positive = g->call_function("aten::gt.Scalar", {shifted, 0});
  Node* nonzero = g->call_function("aten::nonzero", {positive});
  Node* twice = g->call_function("aten::mul.Scalar", {nonzero, 2});
  Node* total = g->call_function("aten::sum", {x});
  Node* item = g->call_function("aten::item", {total});
  Node* scaled = g->call_function("aten::mul.Scalar", {twice, item});
  g->output(scaled);
  GraphModule gm(empty_module("DataDependent"), std::move(g));
  const std::vector<c10::IValue> inputs = {at::tensor({-2.0f, -1.0f, 0.0f, 1.0f})};

  ASSERT_TRUE(propagate_shapes(gm, inputs).ok());
  const MetaValue real_twice = tensor_meta(gm, "mul");
  const MetaValue real_out = tensor_meta(gm, "output");

  std::vector<std::string> warnings;
  ASSERT_TRUE(run("shape_prop{device=meta}", gm, &inputs, &warnings).ok());
  // After x += 1, two entries are positive (before it, one): exact, not a guess.
  EXPECT_EQ(field(gm, "nonzero", "shape"), ints({2, 1}));
  EXPECT_EQ(field(gm, "nonzero", "dtype"), "torch.int64");
  EXPECT_EQ(tensor_meta(gm, "mul"), real_twice);
  EXPECT_EQ(tensor_meta(gm, "output"), real_out);
  EXPECT_EQ(field(gm, "mul", "device"), "cpu");  // not "meta"
  const Meta& how = gm.meta().find(kShapePropKey)->to_map();
  EXPECT_EQ(*how.find("device"), "meta");
  EXPECT_EQ(*how.find("fallback_nodes"), MetaValue(MetaValue::List{"nonzero", "item"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("2 node(s) ran on real CPU tensors"));
  EXPECT_THAT(warnings[0], HasSubstr("nonzero, item"));
}

TEST_F(ShapePropTest, MetaDeviceReportsRealErrors) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  g->output(g->call_function("aten::mm", {x, y}));
  GraphModule gm(empty_module("Mismatch"), std::move(g));
  auto s = propagate_shapes(gm, {at::randn({2, 3}), at::randn({4, 5})}, {ShapePropDevice::kMeta});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("node 'mm' ("));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("cannot be multiplied"));
}

TEST_F(ShapePropTest, ErrorsNameThePlaceholdersAndHowToGiveInputs) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  g->placeholder("scale", "", Argument(1.0));
  g->output(g->call_function("aten::add.Tensor", {x, y}));
  GraphModule gm(empty_module("TwoInputs"), std::move(g));

  absl::Status missing = run("shape_prop", gm, nullptr);
  EXPECT_THAT(std::string(missing.message()),
              HasSubstr("shape_prop runs the graph and needs example inputs, one per placeholder "
                        "(x, y, scale): give fxrun --input-shape=SHAPES"));
  EXPECT_THAT(std::string(missing.message()), HasSubstr("--input=FILE"));

  const std::vector<c10::IValue> one = {at::randn({2})};
  absl::Status too_few = run("shape_prop", gm, &one);
  EXPECT_THAT(std::string(too_few.message()),
              HasSubstr("shape_prop needs 2 to 3 example input(s), one per placeholder (x, y, "
                        "scale), but 1 was given"));
  const std::vector<c10::IValue> two = {at::randn({2}), at::randn({2})};
  EXPECT_TRUE(run("shape_prop", gm, &two).ok());  // scale has a default

  absl::Status bad_option = run("shape_prop{device=cuda}", gm, &two);
  EXPECT_THAT(std::string(bad_option.message()), HasSubstr("cuda"));
  EXPECT_THAT(std::string(bad_option.message()), HasSubstr("meta"));
}

TEST_F(ShapePropTest, MetaKernelsForConvolutionAndBatchNormAgreeWithTheCpu) {
  auto g = std::make_unique<Graph>();
  Node* x1 = g->placeholder("x1");
  Node* x2 = g->placeholder("x2");
  Node* x3 = g->placeholder("x3");
  auto attr = [&](const char* name) { return g->get_attr(name); };
  Node* c1 = g->call_function("aten::conv1d", {x1, attr("w1"), attr("b1"), Argument::List({2}),
                                               Argument::List({1})});
  // Grouped and dilated, on a channels_last input.
  Node* c2 = g->call_function("aten::conv2d", {x2, attr("w2"), Argument(), Argument::List({1, 1}),
                                               Argument::List({2, 2}), Argument::List({2, 2}), 2});
  Node* t2 = g->call_function("aten::conv_transpose2d.input",
                              {c2, attr("wt"), Argument(), Argument::List({2, 2}),
                               Argument::List({1, 1}), Argument::List({1, 1})});
  Node* c3 = g->call_function("aten::conv3d", {x3, attr("w3")});
  Node* bn_eval = g->call_function("aten::native_batch_norm",
                                   {x2, attr("gamma"), attr("beta"), attr("mean"), attr("var"),
                                    false, 0.1, 1e-5});
  Node* bn_train = g->call_function("aten::native_batch_norm",
                                    {c3, Argument(), Argument(), Argument(), Argument(), true,
                                     0.1, 1e-5});
  g->output(Argument::Tuple({c1, t2, bn_eval, bn_train}));
  GraphModule gm(empty_module("Convolutions"), std::move(g));
  const std::vector<std::pair<std::string, at::Tensor>> attributes = {
      {"w1", at::randn({6, 4, 3}).requires_grad_(true)}, {"b1", at::randn({6})},
      {"w2", at::randn({8, 2, 3, 3})}, {"wt", at::randn({8, 3, 3, 3})},
      {"w3", at::randn({3, 2, 2, 2, 2})}, {"gamma", at::randn({4})}, {"beta", at::randn({4})},
      {"mean", at::zeros({4})}, {"var", at::ones({4})}};
  for (const auto& [name, value] : attributes) ASSERT_TRUE(gm.add_attribute(name, value).ok());
  const std::vector<c10::IValue> inputs = {
      at::randn({2, 4, 10}), at::randn({2, 4, 9, 9}).contiguous(at::MemoryFormat::ChannelsLast),
      at::randn({1, 2, 4, 5, 6}).contiguous(at::MemoryFormat::ChannelsLast3d)};

  ASSERT_TRUE(propagate_shapes(gm, inputs).ok());
  const auto real = all_tensor_meta(gm);
  auto report = propagate_shapes(gm, inputs, {ShapePropDevice::kMeta});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->fallback_nodes, ::testing::IsEmpty());
  EXPECT_EQ(all_tensor_meta(gm), real);
  EXPECT_EQ(field(gm, c1->name(), "shape"), ints({2, 6, 5}));
  EXPECT_EQ(field(gm, c1->name(), "requires_grad"), true);
  EXPECT_EQ(field(gm, c2->name(), "shape"), ints({2, 8, 9, 9}));
  EXPECT_EQ(field(gm, c2->name(), "memory_format"), "torch.channels_last");
  EXPECT_EQ(field(gm, t2->name(), "shape"), ints({2, 3, 18, 18}));
  const MetaValue train = tensor_meta(gm, bn_train->name());
  ASSERT_TRUE(train.is_list());
  EXPECT_EQ(*train.to_list()[1].to_map().find("shape"), ints({3}));
  EXPECT_EQ(*tensor_meta(gm, bn_eval->name()).to_list()[0].to_map().find("memory_format"),
            "torch.channels_last");

  // A shape error reads as the CPU's.
  auto wrong = propagate_shapes(gm, {at::randn({2, 5, 10}), inputs[1], inputs[2]},
                                {ShapePropDevice::kMeta});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("to have 4 channels"));
}

TEST_F(ShapePropTest, MetaKernelsForActivationsAndIndexingAgreeWithTheCpu) {
  auto g = std::make_unique<Graph>();
  Node* image = g->placeholder("image");  // channels_last
  Node* matrix = g->placeholder("matrix");
  Node* ids = g->placeholder("ids");
  // Every other column, transposed: neither dense nor contiguous.
  Node* strided = g->call_function(
      "aten::t", {g->call_function("aten::slice.Tensor", {matrix, 1, 0, 6, 2})});
  std::vector<Argument> results;
  for (Node* x : {image, strided}) {
    results.push_back(g->call_function("aten::relu", {x}));
    results.push_back(g->call_function("aten::hardswish", {x}));
    results.push_back(g->call_function("aten::hardtanh", {x, 0.0, 6.0}));
  }
  results.push_back(g->call_function("aten::adaptive_avg_pool2d", {image, Argument::List({2, 2})}));
  results.push_back(g->call_function("aten::embedding", {g->get_attr("table"), ids}));
  results.push_back(g->call_function("aten::index_select", {strided, 1, ids}));
  g->output(Argument::Tuple(results));
  GraphModule gm(empty_module("Activations"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("table", at::randn({10, 4}).requires_grad_(true)).ok());
  const std::vector<c10::IValue> inputs = {
      at::randn({2, 3, 5, 5}).contiguous(at::MemoryFormat::ChannelsLast), at::randn({4, 6}),
      at::tensor({0, 2, 1}, at::kLong)};

  ASSERT_TRUE(propagate_shapes(gm, inputs).ok());
  const auto real = all_tensor_meta(gm);
  auto report = propagate_shapes(gm, inputs, {ShapePropDevice::kMeta});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->fallback_nodes, ::testing::IsEmpty());
  EXPECT_EQ(all_tensor_meta(gm), real);
  EXPECT_EQ(field(gm, "relu", "memory_format"), "torch.channels_last");
  EXPECT_EQ(field(gm, "relu_1", "stride"), ints({1, 3}));
  EXPECT_EQ(field(gm, "embedding", "shape"), ints({3, 4}));
  EXPECT_EQ(field(gm, "embedding", "requires_grad"), true);
}

TEST_F(ShapePropTest, MetaDeviceAgreesWithTheRealRunOnResNet18) {
  GraphModule gm = testing::trace_fixture("resnet18.pt");
  for (c10::MemoryFormat format :
       {c10::MemoryFormat::Contiguous, c10::MemoryFormat::ChannelsLast}) {
    const std::vector<c10::IValue> inputs = {at::randn({2, 3, 224, 224}).contiguous(format)};
    auto timed = [&](ShapePropDevice device) {
      const auto start = std::chrono::steady_clock::now();
      auto report = propagate_shapes(gm, inputs, {device});
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start).count();
      EXPECT_TRUE(report.ok()) << report.status();
      if (report.ok()) {
        EXPECT_THAT(report->fallback_nodes, ::testing::IsEmpty());
      }
      std::cout << "shape_prop{device=" << (device == ShapePropDevice::kMeta ? "meta" : "cpu")
                << "} on ResNet-18 (" << format << "): " << ms << " ms\n";
    };
    timed(ShapePropDevice::kCpu);
    const auto real = all_tensor_meta(gm);
    timed(ShapePropDevice::kMeta);
    EXPECT_EQ(all_tensor_meta(gm), real);
    EXPECT_EQ(field(gm, "fc", "shape"), ints({2, 1000}));
    EXPECT_EQ(field(gm, "layer1_0_conv1", "shape"), ints({2, 64, 56, 56}));
    EXPECT_EQ(field(gm, "layer1_0_conv1", "memory_format"),
              format == c10::MemoryFormat::ChannelsLast ? "torch.channels_last"
                                                        : "torch.contiguous_format");
  }
}

}  // namespace
}  // namespace fx
