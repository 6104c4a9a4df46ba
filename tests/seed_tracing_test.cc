// Copyright 2026 The FX for C++ Authors.
//
// Seed conformance: the tracing examples of seeds 000, 002, 003 and 004, with
// the same observable results as the torch.fx originals.
#include <fstream>
#include <sstream>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/relu.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "runtime/torchscript/script_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"
#include "tracer/proxy.h"
#include "tracer/symbolic_trace.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Seeds 000/002: ModulePathTracer, in the seed's style: override call_module
// and create_proxy.
class ModulePathTracer : public TracerExtension {
 public:
  // The current qualified name of the module being traced ("" for the root).
  std::string current_module_qualified_name;
  // node -> qualified name of the module it came from, recorded by create_proxy.
  absl::flat_hash_map<const Node*, std::string> node_to_originating_module;

  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override {
    std::string old_qualname = current_module_qualified_name;
    current_module_qualified_name = tracer.path_of_module(m);
    auto result = next(m, forward, args, kwargs);
    current_module_qualified_name = old_qualname;
    return result;
  }

  Node* create_proxy(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                     Kwargs kwargs, absl::string_view name, CreateProxyNext next) override {
    Node* proxy = next(op, target, std::move(args), std::move(kwargs), name);
    node_to_originating_module[proxy] = current_module_qualified_name;
    return proxy;
  }
};

std::vector<std::string> lines_without_trailing_blanks(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    out.emplace_back(absl::StripTrailingAsciiWhitespace(line));
  }
  return out;
}

TEST(Seed000, ModulePathTracerOnResNet18PrintsTheSeedsTable) {
  auto tracer_ext = std::make_shared<ModulePathTracer>();
  Tracer tracer;
  tracer.add_extension(tracer_ext);
  auto traced_rn18 = testing::trace_fixture_result("resnet18.pt", tracer);
  ASSERT_TRUE(traced_rn18.ok()) << traced_rn18.status();

  // for node in traced_rn18.nodes:
  //     module_qualname = tracer.node_to_originating_module.get(node)
  //     print('Node', node, 'is from module', module_qualname)
  std::string printed;
  for (const Node* node : traced_rn18->graph().nodes()) {
    auto it = tracer_ext->node_to_originating_module.find(node);
    const std::string module_qualname =
        it == tracer_ext->node_to_originating_module.end() ? "None" : it->second;
    absl::StrAppend(&printed, "Node ", node->name(), " is from module ", module_qualname, "\n");
  }
  const std::string expected =
      testing::read_file(testing::runfile("tests/seeds/000_resnet18_module_paths.txt"));
  // Python's print leaves a blank after an empty module name; the seed's copy
  // does not: compare without trailing blanks.
  std::vector<std::string> want = lines_without_trailing_blanks(expected);
  ASSERT_EQ(want.size(), 71u);
  EXPECT_EQ(lines_without_trailing_blanks(printed), want);
  EXPECT_TRUE(traced_rn18->lint().ok()) << traced_rn18->lint();
  testing::expect_runs_like_the_fixture(*traced_rn18, "resnet18.pt",
                               testing::example_inputs("resnet18"));
}

// Seed 000: the LowerReluTracer.
class LowerReluTracer : public TracerExtension {
 public:
  bool is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) override {
    if (m.class_name() == "ReLU") return false;
    return next(m);
  }
};

TEST(Seed000, M1IsACallModuleByDefaultAndACallFunctionWhenReluIsNotALeaf) {
  auto default_traced = testing::trace_fixture_result("m1.pt");
  ASSERT_TRUE(default_traced.ok()) << default_traced.status();
  EXPECT_EQ(format_tabular(default_traced->graph()),
            "opcode       name    target    args     kwargs\n"
            "-----------  ------  --------  -------  --------\n"
            "placeholder  x       x         ()       {}\n"
            "call_module  relu    relu      (x,)     {}\n"
            "output       output  output    (relu,)  {}");

  Tracer lower_relu_tracer;
  lower_relu_tracer.add_extension(std::make_shared<LowerReluTracer>());
  auto custom_traced = testing::trace_fixture_result("m1.pt", lower_relu_tracer);
  ASSERT_TRUE(custom_traced.ok()) << custom_traced.status();
  std::vector<std::string> ops;
  for (const Node* n : custom_traced->graph().nodes()) {
    ops.push_back(absl::StrCat(op_name(n->op()), " ", n->name()));
  }
  EXPECT_THAT(ops, ElementsAre("placeholder x", "call_function relu", "output output"));
  testing::expect_runs_like_the_fixture(*custom_traced, "m1.pt",
                               testing::example_inputs("m1"));
}

// Seed 000: TaggingTracer overrides create_node.
class TaggingTracer : public TracerExtension {
 public:
  Node* create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                    Kwargs kwargs, absl::string_view name, CreateNodeNext next) override {
    Node* n = next(op, target, std::move(args), std::move(kwargs), name);
    n->meta().set("tag", "foo");
    return n;
  }
};

bool assert_all_nodes_have_tags(const Graph& g) {
  for (const Node* n : g.nodes()) {
    const MetaValue* tag = n->meta().find("tag");
    if (tag == nullptr || !tag->is_string() || tag->to_string() != "foo") return false;
  }
  return true;
}

TEST(Seed000, TaggingTracerTagsEveryNodeOfM2) {
  Tracer tracer;
  tracer.add_extension(std::make_shared<TaggingTracer>());
  auto traced = testing::trace_fixture_result("m2.pt", tracer);
  ASSERT_TRUE(traced.ok()) << traced.status();
  EXPECT_EQ(traced->graph().size(), 4u);  // a, b, add, output
  EXPECT_TRUE(assert_all_nodes_have_tags(traced->graph()));
}

TEST(Seed004, MyModuleHasTorchFxNamesAndStructure) {
  auto gm = testing::trace_fixture_result("my_module.pt");
  ASSERT_TRUE(gm.ok()) << gm.status();
  std::vector<std::string> rows;
  for (const Node* n : gm->graph().nodes()) {
    std::vector<std::string> inputs;
    for (const Node* in : n->input_nodes()) inputs.push_back(in->name());
    rows.push_back(absl::StrCat(op_name(n->op()), " ", n->name(), " [num_users=",
                                n->users().size(), "] (", absl::StrJoin(inputs, ", "), ")"));
  }
  // The seed's printout; `.relu()` and `torch.sum` are call_function of the
  // aten operator here (TorchScript keeps no difference between the two).
  EXPECT_THAT(rows, ElementsAre("placeholder x [num_users=1] ()",
                                "get_attr linear_weight [num_users=1] ()",
                                "call_function add [num_users=1] (x, linear_weight)",
                                "call_module linear [num_users=1] (add)",
                                "call_function relu [num_users=1] (linear)",
                                "call_function sum_1 [num_users=1] (relu)",
                                "call_function topk [num_users=1] (sum_1)",
                                "output output [num_users=0] (topk)"));
  EXPECT_EQ(gm->graph().find_node("linear_weight")->target(), "linear.weight");
  EXPECT_EQ(gm->graph().find_node("sum_1")->args()[1], Argument::List({-1}));
  EXPECT_EQ(gm->graph().find_node("topk")->args()[1], Argument(3));
  testing::expect_runs_like_the_fixture(*gm, "my_module.pt",
                               testing::example_inputs("my_module"));
}

TEST(Seed003, SymbolicTraceOfSimpleModelIsAGraphModule) {
  auto traced_model = testing::trace_fixture_result("simple_model.pt");
  ASSERT_TRUE(traced_model.ok()) << traced_model.status();
  EXPECT_EQ(traced_model->class_name(), "GraphModule");
  EXPECT_EQ(traced_model->code(),
            "def forward(self, x):\n"
            "    linear = self.linear(x);  x = None\n"
            "    return linear\n");
}

TEST(Seed003, GraphToModuleWithANewGraph) {
  // new_model = GraphModule(model, graph, "revisedModel"); out = new_model(inputs)
  torch::jit::Module model = testing::load_fixture("simple_model.pt");
  auto graph = std::make_unique<Graph>();
  GraphAppendingTracer tracer(*graph);
  Proxy x(graph->placeholder("x"), &tracer);
  Proxy y = relu(Proxy(graph->call_module("linear", {x}), &tracer)) * 2;
  graph->output(y);
  GraphModule new_model(module_from_torchscript(model).value(), std::move(graph), "revisedModel");
  EXPECT_EQ(new_model.class_name(), "revisedModel");
  ASSERT_TRUE(new_model.lint().ok()) << new_model.lint();
  at::Tensor inputs = at::rand({3, 10});
  auto out = new_model({inputs});
  ASSERT_TRUE(out.ok()) << out.status();
  at::Tensor want = at::relu(model.forward({inputs}).toTensor()) * 2;
  EXPECT_TRUE(at::allclose(out->toTensor(), want));
}

TEST(Seed000, ExpTanAsAFunctionAndAsAModule) {
  auto f = [](auto x) { return exp(tan(x)); };
  GraphModule from_lambda = symbolic_trace(f, "x");
  auto from_module = testing::trace_fixture_result("exp_tan.pt");
  ASSERT_TRUE(from_module.ok()) << from_module.status();
  at::Tensor x = at::arange(5) + 1;
  auto a = from_lambda({x});
  auto b = (*from_module)({x});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(at::allclose(a->toTensor(), b->toTensor()));
  EXPECT_TRUE(at::allclose(a->toTensor(), f(x)));
}

TEST(Seed003, ControlFlowOnInputsFailsNamingTheLine) {
  auto gm = testing::trace_fixture_result("control_flow.pt");
  ASSERT_FALSE(gm.ok());
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("seed_models.py:"));
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("if x.sum() > 0:"));
}

}  // namespace
}  // namespace fx
