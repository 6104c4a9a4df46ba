// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_file.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/ones.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Module> model_with_weight() {
  std::shared_ptr<Module> m = empty_module("Model");
  EXPECT_TRUE(m->register_parameter("weight", at::ones({2, 2})).ok());
  return m;
}

// A graph with every kind of argument and metadata value.
GraphModule every_kind() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x", "torch.Tensor");
  Node* k = g->placeholder("k", "int", Argument(3));
  k->meta().set("_torchscript_type", "int");
  Node* w = g->get_attr("weight");
  Node* mm = g->call_function("aten::mm", {x, w});
  mm->meta().set("module_path", "layer1.0");
  mm->meta().set("numbers", MetaValue::List{1, 2.5, std::numeric_limits<double>::infinity(),
                                            MetaValue(), true});
  mm->meta().set("nested", Meta{{"shape", MetaValue::List{1, 2}}, {"dtype", "torch.float32"}});
  Node* to = g->call_function(
      "aten::to.dtype_layout", {mm},
      {{"dtype", c10::ScalarType::Half}, {"layout", c10::Layout::Strided},
       {"device", c10::Device("cpu")}, {"pin_memory", false},
       {"memory_format", c10::MemoryFormat::ChannelsLast}});
  Node* add = g->call_function("operator.add", {to, -std::numeric_limits<double>::infinity()});
  Node* fill = g->call_function("aten::fill_.Scalar", {add, 0.5});
  fill->set_impure(true);
  Node* sizes = g->call_method("view", {add, Argument::List({k, -1})});
  g->output(Argument::Tuple(
      {sizes, Argument::Dict({{"a", x}, {"b", Argument::List({"s", 1e-5, Argument()})}}),
       Argument::NamedTuple("mylib.Outputs", {"logits", "aux"}, {mm, Argument()})}));
  g->meta().set("exec_order", MetaValue::List{"a", "b"});
  GraphModule gm(model_with_weight(), std::move(g), "EveryKind");
  gm.add_tensor_constant(at::arange(4));
  return gm;
}

TEST(GraphFileTest, ReadsBackExactlyWhatWasWritten) {
  GraphModule gm = every_kind();
  const std::string text = *graph_file_text(gm);
  EXPECT_THAT(text, HasSubstr("\"format\": \"fx-graph\""));
  EXPECT_THAT(text, HasSubstr("\"version\": 1"));
  auto again = read_graph_file(text, model_with_weight(), "g.json");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*graph_file_text(*again), text);
  EXPECT_EQ(format_graph(again->graph()), format_graph(gm.graph()));
  EXPECT_EQ(again->class_name(), "EveryKind");
  EXPECT_TRUE(again->graph().find_node("fill_")->is_impure());
  EXPECT_TRUE(at::equal(again->get_attr("_tensor_constant0")->toTensor(), at::arange(4)));
  const Node* mm = again->graph().find_node("mm");
  EXPECT_EQ(mm->meta(), gm.graph().find_node("mm")->meta());
  EXPECT_TRUE(std::isinf(mm->meta().find("numbers")->to_list()[2].to_double()));
  EXPECT_EQ(again->graph().meta(), gm.graph().meta());
}

// A model scripted whole from a torch.fx GraphModule holds that GraphModule's
// lifted constants: the graph file's own copy of one is the same attribute
// when the tensors agree, and refused when they do not.
TEST(GraphFileTest, AnAttributeTheModelHoldsAlreadyIsTheSameOrRefused) {
  GraphModule gm = every_kind();
  const std::string text = *graph_file_text(gm);
  auto holding = [](at::Tensor value) {
    std::shared_ptr<Module> m = model_with_weight();
    EXPECT_TRUE(m->register_buffer("_tensor_constant0", std::move(value)).ok());
    return m;
  };
  auto same = read_graph_file(text, holding(at::arange(4)), "g.json");
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(at::equal(same->get_attr("_tensor_constant0")->toTensor(), at::arange(4)));
  for (const at::Tensor& other : {at::arange(4) + 1, at::arange(4).to(at::kFloat), at::arange(5)}) {
    auto refused = read_graph_file(text, holding(other), "g.json");
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(std::string(refused.status().message()),
                HasSubstr("attributes['_tensor_constant0']: the model has an attribute of this "
                          "name with another value"));
  }
}

// The error of reading `text` (over the model with `weight`).
std::string error_of(const std::string& text) {
  auto gm = read_graph_file(text, model_with_weight(), "g.json");
  EXPECT_FALSE(gm.ok());
  return gm.ok() ? "" : std::string(gm.status().message());
}

// A small valid file with `replace` applied.
std::string small_file(absl::string_view from = "", absl::string_view to = "") {
  std::string text = R"({"format": "fx-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}},
    {"name": "w", "op": "get_attr", "target": "weight", "args": [], "kwargs": {}},
    {"name": "mm", "op": "call_function", "target": "aten::mm", "args": [{"node": "x"}, {"node": "w"}], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output", "args": [{"node": "mm"}], "kwargs": {}}],
    "meta": {}})";
  if (!from.empty()) text = absl::StrReplaceAll(text, {{from, to}});
  return text;
}

TEST(GraphFileTest, ASmallHandWrittenFileReadsAndRuns) {
  auto gm = read_graph_file(small_file(), model_with_weight(), "g.json");
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_TRUE(at::equal(gm->forward({at::eye(2)})->toTensor(), at::ones({2, 2})));
}

TEST(GraphFileTest, BadFilesAreRefusedNamingThePlaceInTheFile) {
  EXPECT_THAT(error_of("{\"format\": \"fx-graph\",\n \"nodes\": [}"),
              HasSubstr("g.json: not JSON"));
  EXPECT_THAT(error_of("{\"format\": \"fx-graph\",\n \"nodes\": [}"), HasSubstr("line 2"));
  EXPECT_THAT(error_of(R"({"nodes": []})"), HasSubstr("not a graph file"));
  EXPECT_THAT(error_of(small_file("\"version\": 1", "\"version\": 7")),
              HasSubstr("version '7' is not the version this fxrun reads (1)"));
  EXPECT_THAT(error_of(small_file("{\"node\": \"w\"}", "{\"node\": \"nope\"}")),
              HasSubstr("nodes[2] ('mm').args[1].node: node 'nope' is not defined before it"));
  EXPECT_THAT(error_of(small_file("{\"node\": \"x\"}, {\"node\": \"w\"}",
                                  "{\"node\": \"x\"}, {\"node\": \"mm\"}")),
              HasSubstr("node 'mm' is not defined before it"));
  EXPECT_THAT(error_of(small_file("\"name\": \"w\"", "\"name\": \"x\"")),
              HasSubstr("nodes[1] ('x'): a second node of this name"));
  EXPECT_THAT(error_of(small_file("\"op\": \"get_attr\"", "\"op\": \"get_attribute\"")),
              HasSubstr("nodes[1] ('w').op"));
  EXPECT_THAT(error_of(small_file("\"target\": \"weight\"", "\"target\": \"bias\"")),
              HasSubstr("bias"));
  EXPECT_THAT(error_of(small_file("\"target\": \"weight\"", "\"target\": \"bias\"")),
              HasSubstr("written for another model?"));
  EXPECT_THAT(error_of(small_file("{\"node\": \"x\"}, {\"node\": \"w\"}",
                                  "{\"node\": \"x\"}, {\"tensor\": \"t\"}")),
              HasSubstr("nodes[2] ('mm').args[1]: unknown argument kind 'tensor'"));
  EXPECT_THAT(error_of(small_file("\"args\": [{\"node\": \"mm\"}]",
                                  "\"args\": [{\"named_tuple\": {\"class\": \"Out\", "
                                  "\"fields\": [\"a\", \"b\"], \"items\": [{\"node\": \"mm\"}]}}]")),
              HasSubstr("args[0].named_tuple.fields: expected one field name (a string) per item"));
  EXPECT_THAT(error_of(small_file("\"name\": \"mm\"", "\"name\": \"2mm\"")),
              HasSubstr("'2mm' is not a valid node name"));
  EXPECT_THAT(error_of(small_file("\"meta\": {}}", "\"meta\": {\"big\": 1e400}}")),
              HasSubstr("g.json: not JSON"));
  EXPECT_THAT(error_of(small_file("\"meta\": {}}", "\"meta\": {\"big\": 18446744073709551615}}")),
              HasSubstr("meta.big: 18446744073709551615 is beyond a 64-bit signed integer"));
  EXPECT_THAT(error_of(small_file("\"version\": 1,", "\"version\": 1, \"class_name\": \"a b\",")),
              HasSubstr("class_name: 'a b' is not a Python identifier"));
  EXPECT_THAT(error_of(small_file("\"meta\": {}}",
                                  "\"meta\": {}, \"attributes\": {\"a\\\"b\": {\"pickle\": \"\"}}}")),
              HasSubstr("the name is not a Python identifier"));
  const std::string deep = absl::StrCat("\"meta\": {\"deep\": ", std::string(100000, '['),
                                       std::string(100000, ']'), "}}");
  EXPECT_THAT(error_of(small_file("\"meta\": {}}", deep)), HasSubstr("nested deeper than 200"));
  EXPECT_THAT(error_of(small_file("\"meta\": {}}", "\"meta\": {}, \"functions\": {\"f\": [\"__torch__.f\"]}}")),
              HasSubstr("functions['f']: the model has no TorchScript function __torch__.f"));
  EXPECT_THAT(error_of(small_file("\"meta\": {}}", "\"meta\": {}, \"attributes\": {\"c\": {\"pickle\": \"!!\"}}}")),
              HasSubstr("attributes['c']"));
}

}  // namespace
}  // namespace fx
