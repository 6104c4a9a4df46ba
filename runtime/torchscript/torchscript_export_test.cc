// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/torchscript_export.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_split.h"

#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Runs `module` on `inputs`.
c10::IValue run_module(torch::jit::Module& module, std::vector<c10::IValue> inputs) {
  return module.forward(std::move(inputs));
}

// `module` saved and loaded again, as a user would ship it.
torch::jit::Module saved_and_loaded(const torch::jit::Module& module) {
  const std::string path = ::testing::TempDir() + "/exported.pt";
  module.save(path);
  torch::jit::Module loaded = torch::jit::load(path);
  std::remove(path.c_str());
  return loaded;
}

TEST(TorchScriptExportTest, OperatorsPythonOperatorsAndLiteralsComputeWhatTheGraphComputes) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* relu = g->call_function("aten::relu", {x});
  Node* add = g->call_function("operator.add", {relu, 1});
  Node* sum = g->call_function("aten::sum.dim_IntList", {add, Argument::List({1})},
                               {{"keepdim", true}});
  Node* wide = g->call_function("aten::to.dtype", {sum, c10::ScalarType::Double});
  Node* size = g->call_function("aten::size.int", {x, 0});
  g->output(Argument::Tuple({wide, size}));
  GraphModule gm(empty_module("Ops"), std::move(g));

  const std::string source = torchscript_source(gm);
  EXPECT_THAT(source, HasSubstr("torch.ops.aten.sum.dim_IntList(add, [1], keepdim = True)"));
  EXPECT_THAT(source, Not(HasSubstr("= None")));  // TorchScript variables keep one type

  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  const at::Tensor input = at::randn({3, 4});
  const auto want = gm.forward({input})->toTuple();
  for (torch::jit::Module module : {*exported, saved_and_loaded(*exported)}) {
    const auto got = run_module(module, {input}).toTuple();
    EXPECT_TRUE(at::equal(got->elements()[0].toTensor(), want->elements()[0].toTensor()));
    EXPECT_EQ(got->elements()[0].toTensor().scalar_type(), at::kDouble);
    EXPECT_EQ(got->elements()[1].toInt(), 3);
  }
}

// A root with `layers` holding a module named "0", as nn.Sequential does.
torch::jit::Module root_with_numbered_layer() {
  torch::jit::Module layer(c10::QualifiedName("__torch__.test.Scale"),
                           std::make_shared<torch::jit::CompilationUnit>());
  layer.register_parameter("weight", at::full({4}, 2.0), /*is_buffer=*/false);
  layer.register_buffer("shift", at::full({4}, 0.5));
  layer.register_attribute("training", c10::BoolType::get(), false);
  layer.define("def forward(self, x):\n    return x * self.weight + self.shift\n");
  torch::jit::Module layers(c10::QualifiedName("__torch__.test.Layers"),
                            std::make_shared<torch::jit::CompilationUnit>());
  layers.register_attribute("training", c10::BoolType::get(), false);
  layers.register_module("0", layer);
  torch::jit::Module root(c10::QualifiedName("__torch__.test.Root"),
                          std::make_shared<torch::jit::CompilationUnit>());
  root.register_attribute("training", c10::BoolType::get(), false);
  root.register_module("layers", layers);
  root.register_module("unused", layer.clone());
  return root;
}

TEST(TorchScriptExportTest, KeepsWhatTheGraphReferencesUnderTheSameNames) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* scaled = g->call_module("layers.0", {x});
  Node* weight = g->get_attr("layers.0.weight");
  Node* mul = g->call_function("aten::mul.Tensor", {scaled, weight});
  g->output(mul);
  GraphModule gm(module_from_torchscript(root_with_numbered_layer()).value(), std::move(g));
  const std::string constant = gm.add_tensor_constant(at::full({4}, 3.0));
  {
    Graph& graph = gm.graph();
    Node* out = graph.output_node();
    auto guard = graph.inserting_before(out);
    Node* c = graph.get_attr(constant);
    Node* add = graph.call_function("aten::add.Tensor", {out->args()[0], c});
    out->set_args({add});
  }

  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_TRUE(exported->find_method("forward").has_value());
  EXPECT_FALSE(exported->_ivalue()->type()->hasAttribute("unused"));
  EXPECT_TRUE(exported->attr("layers").toModule().attr("0").isObject());
  EXPECT_EQ(exported->attr("training").toBool(), false);
  const at::Tensor input = at::randn({2, 4});
  const at::Tensor want = gm.forward({input})->toTensor();
  torch::jit::Module loaded = saved_and_loaded(*exported);
  EXPECT_TRUE(at::allclose(run_module(loaded, {input}).toTensor(), want));
  // Parameters stay parameters, buffers buffers.
  int parameters = 0;
  for (const auto& p : loaded.named_parameters()) parameters += p.name == "layers.0.weight";
  EXPECT_EQ(parameters, 1);
  int buffers = 0;
  for (const auto& b : loaded.named_buffers()) buffers += b.name == "layers.0.shift";
  EXPECT_EQ(buffers, 1);
}

// Issue 35: a leaf function called twice: the first call's value is named
// like the function (`clip = clip(s)`), and TorchScript took the next
// `clip(...)` for a call of that float. Calls a value's name shadows go
// through a namespace of their own.
TEST(TorchScriptExportTest, ALeafFunctionCalledTwiceIsNotShadowedByItsFirstValue) {
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  // As a model's function is: `__torch__.clip`, saved with the module's code.
  cu->define(c10::QualifiedName("__torch__"), "def clip(x: float) -> float:\n    return min(max(x, 0.0), 1.0)\n",
             torch::jit::nativeResolver(), nullptr);
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* s = g->placeholder("s", "float");
  Node* first = g->call_function("clip", {s});
  Node* twice = g->call_function("aten::mul.float", {s, 2.0});
  Node* second = g->call_function("clip", {twice});
  Node* scaled = g->call_function("aten::mul.Scalar", {x, first});
  g->output(g->call_function("aten::add.Scalar", {scaled, second}));
  GraphModule gm(empty_module("Clipped"), std::move(g));
  add_script_function(gm, "clip", torch::jit::StrongFunctionPtr(cu, &cu->get_function("__torch__.clip")));
  ASSERT_EQ(first->name(), "clip");
  EXPECT_THAT(torchscript_source(gm), HasSubstr("clip = _fx_functions.clip(s)"));
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  const at::Tensor input = at::ones({2});
  torch::jit::Module loaded = saved_and_loaded(*exported);
  // x * clip(0.3) + clip(0.6)
  EXPECT_TRUE(at::allclose(run_module(loaded, {input, 0.3}).toTensor(), at::full({2}, 0.9)));
}

TEST(TorchScriptExportTest, AssertionsRaiseInTheExportedModule) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* rows = g->call_function("aten::size.int", {x, 0});
  Node* two = g->call_function("operator.eq", {rows, 2});
  g->call_function("torch._assert", {two, "expected two rows"});
  g->output(g->call_function("aten::neg", {x}));
  GraphModule gm(empty_module("Checked"), std::move(g));
  EXPECT_THAT(torchscript_source(gm), HasSubstr("assert eq, 'expected two rows'"));
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_TRUE(at::equal(run_module(*exported, {at::ones({2, 3})}).toTensor(), -at::ones({2, 3})));
  try {
    run_module(*exported, {at::ones({3, 3})});
    ADD_FAILURE() << "the assertion did not raise";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected two rows"));
  }
}

// TorchScript's serializer keeps a hash map of the nodes' source ranges whose
// hash XORs the range's Source address, start and end: in one text of many
// statements of one length those collide, and saving takes quadratic time.
// The exported nodes' ranges hash apart, and still quote their statement,
// with its line number.
TEST(TorchScriptExportTest, SourceRangesOfTheExportedNodesHashApart) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* last = x;
  for (int i = 0; i < 2000; ++i) last = g->call_function("aten::add.Tensor", {last, y});
  g->output(last);
  GraphModule gm(empty_module("Chain"), std::move(g));
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  std::shared_ptr<torch::jit::Graph> forward = exported->get_method("forward").graph();
  std::unordered_set<size_t> hashes;
  std::vector<const torch::jit::Node*> adds;
  for (const torch::jit::Node* node : forward->nodes()) {
    if (node->kind() != c10::Symbol::fromQualString("aten::add")) continue;
    adds.push_back(node);
    hashes.insert(torch::jit::SourceRangeHasher()(node->sourceRange()));
  }
  ASSERT_EQ(adds.size(), 2000u);
  EXPECT_GE(hashes.size(), 1900u);
  // add_1000's call, on its line of the generated source.
  const torch::jit::SourceRange& range = adds[1000]->sourceRange();
  EXPECT_EQ(range.text().str(), "torch.ops.aten.add.Tensor");
  EXPECT_THAT(range.source()->text_str().str(),
              HasSubstr("add_1000 = torch.ops.aten.add.Tensor(add_999, y)"));
  const std::vector<std::string> lines = absl::StrSplit(torchscript_source(gm), '\n');
  ASSERT_TRUE(range.file_line_col().has_value());
  const auto [file, line, column] = *range.file_line_col();
  ASSERT_GE(line, 1u);
  ASSERT_LE(line, lines.size());
  EXPECT_THAT(lines[line - 1], HasSubstr("add_1000 = torch.ops.aten.add.Tensor(add_999, y)"));
}

TEST(TorchScriptExportTest, NonTensorInputsKeepTheirTorchScriptTypes) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* k = g->placeholder("k", "int", Argument(2));
  k->meta().set("_torchscript_type", "int");
  g->output(g->call_function("aten::mul.Scalar", {x, k}));
  GraphModule gm(empty_module("Typed"), std::move(g));
  EXPECT_THAT(torchscript_source(gm), HasSubstr("def forward(self, x, k : int = 2):"));
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_TRUE(at::equal(run_module(*exported, {at::ones({2}), 5}).toTensor(), at::full({2}, 5.0)));
  EXPECT_TRUE(at::equal(run_module(*exported, {at::ones({2})}).toTensor(), at::full({2}, 2.0)));
}

TEST(TorchScriptExportTest, RefusesWhatTorchScriptCannotExpressNamingTheNode) {
  {
    auto g = std::make_unique<Graph>();
    const std::string name = g->placeholder("*args")->name();
    g->output(Argument());
    GraphModule gm(empty_module("VarArgs"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("node '" + name + "'"));
    EXPECT_THAT(exported.status().message(), HasSubstr("no variable arguments"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("mylib.clip", {x}));
    GraphModule gm(empty_module("PythonFunction"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("node 'clip' to TorchScript: it calls mylib.clip"));
  }
  {
    // add.Scalar on a tensor `other`: TorchScript would read add.Tensor back.
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* y = g->placeholder("y");
    Node* relu = g->call_function("aten::relu", {x});
    g->output(g->call_function("aten::add.Scalar", {relu, y}));
    GraphModule gm(empty_module("Overload"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("cannot export node 'add' (aten::add.Scalar)"));
    EXPECT_THAT(exported.status().message(), HasSubstr("not the overload 'Scalar'"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* neg = g->call_function("aten::neg", {x});
    g->output(g->call_function("aten::relu", {Argument::List({neg, "text"})}));
    GraphModule gm(empty_module("BadTypes"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("cannot export node 'relu' (aten::relu)"));
  }
}

TEST(TorchScriptExportTest, CompilerMessagesEndWithTheirReason) {
  // TorchScript's message introduces the quoted source with a colon on its
  // first line: the refusal states the reason without it.
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("torch.fx.nope", {x}));
  GraphModule gm(empty_module("Builtin"), std::move(g));
  auto exported = export_to_torchscript(gm);
  ASSERT_FALSE(exported.ok());
  const std::string message(exported.status().message());
  EXPECT_THAT(message, HasSubstr("cannot export node 'nope' (torch.fx.nope) to TorchScript: "));
  EXPECT_NE(message.back(), ':') << message;
}

TEST(TorchScriptExportTest, ChecksOfOptionalArgumentsBecomeAssertions) {
  // torch.fx's concrete_args check and the tracer's check of an Optional it
  // took as given, which refines the argument's type for what follows.
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y", "typing.Optional[torch.Tensor]", Argument());
  y->meta().set(kTorchScriptTypeKey, "Optional[Tensor]");
  Node* z = g->placeholder("z", "typing.Optional[torch.Tensor]", Argument());
  z->meta().set(kTorchScriptTypeKey, "Optional[Tensor]");
  g->call_function(kAssertIsNoneTarget, {y, "y is specialized to None"});
  g->call_function(kAssertIsNotNoneTarget, {z, "z was traced as given"});
  g->output(g->call_function("aten::add.Tensor", {x, z}));
  GraphModule gm(empty_module("Optionals"), std::move(g));
  auto exported = export_to_torchscript(gm);
  ASSERT_TRUE(exported.ok()) << exported.status() << "\n" << torchscript_source(gm);
  const at::Tensor one = at::ones({2});
  EXPECT_TRUE(at::equal(exported->forward({one, c10::IValue(), one}).toTensor(), one * 2));
  for (const auto& [y_value, z_value, message] :
       {std::make_tuple(c10::IValue(one), c10::IValue(one), "y is specialized to None"),
        std::make_tuple(c10::IValue(), c10::IValue(), "z was traced as given")}) {
    try {
      exported->forward({one, y_value, z_value});
      ADD_FAILURE() << "no assertion: " << message;
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
    }
  }
}

TEST(TorchScriptExportTest, NamesThatWouldChangeTheSourceAreRefused) {
  {
    // A type annotation that would end the signature and start another body.
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    x->meta().set("_torchscript_type", "Tensor) -> Tensor:\n    return x * 0\ndef f(self, x : Tensor");
    g->output(g->call_function("aten::neg", {x}));
    GraphModule gm(empty_module("Injected"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("node 'x' to TorchScript: its type"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("aten::add.Tensor", {x, x}, {{"alpha = 1) * 0 + (x", 1}}));
    GraphModule gm(empty_module("Keyword"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("its keyword"));
  }
  {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->output(g->call_function("torch.mul(x, 0.0) + torch.mul", {x, x}));
    GraphModule gm(empty_module("Target"), std::move(g));
    auto exported = export_to_torchscript(gm);
    ASSERT_FALSE(exported.ok());
    EXPECT_THAT(exported.status().message(), HasSubstr("its target"));
  }
}

TEST(TorchScriptExportTest, SaveNamesAPathItCannotWrite) {
  auto g = std::make_unique<Graph>();
  g->output(g->call_function("aten::neg", {g->placeholder("x")}));
  GraphModule gm(empty_module("Neg"), std::move(g));
  absl::Status saved = save_torchscript(gm, "/nonexistent-dir/out.pt");
  ASSERT_FALSE(saved.ok());
  EXPECT_THAT(saved.message(), HasSubstr("/nonexistent-dir/out.pt"));
}

}  // namespace
}  // namespace fx
