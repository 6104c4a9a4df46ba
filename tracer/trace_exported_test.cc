// Copyright 2026 The FX for C++ Authors.
//
// Reading torch.export programs (the committed programs of torch 2.6 and
// 2.14) through the tracer: what the graph looks like, what it computes, and
// what tracer extensions see.
#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/interpreter.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/values.h"
#include "tracer/exec_order/exec_order.h"
#include "tracer/module_path/module_path.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

GraphModule read(const std::string& version, const std::string& name,
                 std::shared_ptr<TracerExtension> extension = nullptr) {
  Tracer tracer;
  if (extension) tracer.add_extension(extension);
  auto gm = tracer.trace(testing::load_exported_program(version, name));
  EXPECT_TRUE(gm.ok()) << version << " " << name << ": " << gm.status();
  return std::move(*gm);
}

void expect_leaves_equal(const c10::IValue& out, const std::vector<c10::IValue>& expected,
                         const std::string& what) {
  const std::vector<c10::IValue> leaves = testing::flatten_outputs(out);
  ASSERT_EQ(leaves.size(), expected.size()) << what;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::string why;
    EXPECT_TRUE(testing::all_close(leaves[i], expected[i], &why)) << what << ", output " << i << ": " << why;
  }
}

class ReadProgramTest : public ::testing::TestWithParam<std::string> {};

// Each program read afresh computes what the eager model computed: by its
// execution plan (a first run that specialises, then the compiled steps) and
// by the Interpreter. linear_bn updates a buffer in place, so its second run
// computes something else (as eager PyTorch's second call would): its runs
// start from a fresh read; so do rotary_block's.
TEST_P(ReadProgramTest, ComputesWhatTheModelComputed) {
  for (const std::string& name : testing::exported_program_names()) {
    const testing::ExpectedRun expected = testing::load_expected_run(GetParam(), name);
    ASSERT_FALSE(expected.inputs.empty()) << name;
    auto inputs = [&] {
      return testing::deep_clone(c10::ivalue::Tuple::create(expected.inputs)).toTupleRef().elements().vec();
    };
    const bool updates_state = name == "linear_bn" || name == "rotary_block";  // a step counter each
    GraphModule gm = read(GetParam(), name);
    ASSERT_TRUE(gm.lint().ok()) << gm.lint();
    auto plan = ExecutionPlan::compile(gm);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (int run = 0; run < (updates_state ? 1 : 3); ++run) {
      auto out = (*plan)->run(inputs());
      ASSERT_TRUE(out.ok()) << name << ": " << out.status();
      expect_leaves_equal(*out, expected.outputs, absl::StrCat(name, " (plan, run ", run, ")"));
    }
    GraphModule fresh = read(GetParam(), name);
    Interpreter interpreter(fresh);
    auto out = interpreter.run(inputs());
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    expect_leaves_equal(*out, expected.outputs, absl::StrCat(name, " (Interpreter)"));
  }
}

// A buffer updated in place keeps its update, run after run, as it does in
// the eager module.
TEST_P(ReadProgramTest, BufferUpdatesPersistAcrossRuns) {
  GraphModule gm = read(GetParam(), "linear_bn");
  const testing::ExpectedRun expected = testing::load_expected_run(GetParam(), "linear_bn");
  for (int run = 1; run <= 3; ++run) {
    ASSERT_TRUE(gm(expected.inputs).ok());
    EXPECT_EQ(gm.get_attr("count")->toTensor().item<float>(), run);
  }
}

TEST_P(ReadProgramTest, LooksLikeWhatEpModuleShows) {
  GraphModule gm = read(GetParam(), "linear_bn");
  std::vector<std::string> listing;
  for (const Node* n : gm.graph().nodes()) listing.push_back(absl::StrCat(op_name(n->op()), " ", n->name(), " ", n->target()));
  EXPECT_THAT(listing, ::testing::IsSupersetOf({
                           "placeholder x x",
                           "get_attr count count",
                           "get_attr lin_weight lin.weight",
                           "call_function linear aten::linear",
                           "call_function batch_norm aten::batch_norm",
                           "call_function split aten::split.Tensor",
                           "call_function getitem operator.getitem",
                           "call_function getitem_1 operator.getitem",
                           "output output output",
                       }));
  // The buffer update stays in place, and stays: dead-code elimination must
  // not drop it.
  Node* add_ = gm.graph().find_node("add_");
  ASSERT_NE(add_, nullptr);
  EXPECT_EQ(add_->target(), "aten::add_.Tensor");
  EXPECT_TRUE(add_->is_impure());
  // The root is a module tree of the program's own classes.
  EXPECT_THAT(gm.root().type_name(), ::testing::EndsWith(".LinearBN"));
  EXPECT_EQ(gm.root().class_name(), "LinearBN");
  auto lin = gm.get_submodule("lin");
  ASSERT_TRUE(lin.ok());
  EXPECT_EQ((*lin)->type_name(), "torch.nn.modules.linear.Linear");
  EXPECT_TRUE(gm.get_attr("bn.running_mean").ok());
  // Where it came from.
  const MetaValue* source = gm.meta().find(kExportedProgramKey);
  ASSERT_NE(source, nullptr);
  EXPECT_THAT(source->to_map().find("torch_version")->to_string(), ::testing::StartsWith(GetParam()));
}

TEST_P(ReadProgramTest, ModulePathsComeFromTheModuleStack) {
  GraphModule gm = read(GetParam(), "conv_net", std::make_shared<ModulePathTracer>());
  auto path = [&](const std::string& node) {
    Node* n = gm.graph().find_node(node);
    EXPECT_NE(n, nullptr) << node;
    const MetaValue* v = n ? n->meta().find(kModulePathKey) : nullptr;
    return v ? v->to_string() : std::string("<none>");
  };
  EXPECT_EQ(path("conv2d"), "conv");
  EXPECT_EQ(path("batch_norm"), "bn");
  EXPECT_EQ(path("conv2d_1"), "block.0");
  EXPECT_EQ(path("relu_1"), "block.1");
  EXPECT_EQ(path("relu"), "");  // torch.relu in forward itself
  EXPECT_EQ(path("linear_1"), "fc2");
}

TEST_P(ReadProgramTest, ExecOrderIsTheOrderModulesAndParametersAreUsed) {
  auto order = std::make_shared<ExecOrderTracer>();
  GraphModule gm = read(GetParam(), "linear_bn", order);
  EXPECT_THAT(order->module_forward_order(), ElementsAre("", "lin", "bn"));
  EXPECT_THAT(order->param_forward_order(), ElementsAre("lin.weight", "lin.bias", "bn.weight", "bn.bias"));
}

// What hooks see of the program's modules: no TorchScript object, the
// GraphModule's own modules, with the classes and parameters of the program.
class ModuleRecorder : public TracerExtension {
 public:
  struct Seen {
    std::string type_name;
    const Module* state = nullptr;
    bool has_object = false;
    std::vector<std::string> parameters;
    bool is_root = false;
  };

  void begin_trace(Tracer& tracer, const ModuleRef& root) override {
    root_ = std::make_unique<ModuleRef>(root);
    record(root);
  }
  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override {
    record(m);
    return next(m, forward, args, kwargs);
  }

  std::map<std::string, Seen> seen;

 private:
  void record(const ModuleRef& m) {
    Seen& s = seen[m.qualname()];
    s.type_name = m.type_name();
    s.state = &m.state();
    s.has_object = m.has_object();
    for (const auto& [name, tensor] : m.named_parameters()) s.parameters.push_back(name);
    s.is_root = *root_ == m;
  }

  std::unique_ptr<ModuleRef> root_;
};

TEST_P(ReadProgramTest, HooksSeeTheGraphModulesModules) {
  auto recorder = std::make_shared<ModuleRecorder>();
  GraphModule gm = read(GetParam(), "linear_bn", recorder);
  const auto& seen = recorder->seen;
  ASSERT_EQ(seen.size(), 3u);
  const ModuleRecorder::Seen& root = seen.at("");
  EXPECT_THAT(root.type_name, ::testing::EndsWith(".LinearBN"));
  EXPECT_EQ(root.state, &gm.root());
  EXPECT_FALSE(root.has_object);
  EXPECT_TRUE(root.is_root);
  EXPECT_THAT(root.parameters, ElementsAre("lin.weight", "lin.bias", "bn.weight", "bn.bias"));
  const ModuleRecorder::Seen& lin = seen.at("lin");
  EXPECT_EQ(lin.type_name, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(lin.state, gm.get_submodule("lin")->get());
  EXPECT_FALSE(lin.has_object);
  EXPECT_FALSE(lin.is_root);
  EXPECT_THAT(lin.parameters, ElementsAre("lin.weight", "lin.bias"));
  EXPECT_EQ(seen.at("bn").type_name, "torch.nn.modules.batchnorm.BatchNorm1d");
  EXPECT_THAT(seen.at("bn").parameters, ElementsAre("bn.weight", "bn.bias"));
}

TEST_P(ReadProgramTest, OutputsKeepTheirStructure) {
  GraphModule gm = read(GetParam(), "dynamic_batch");
  const Argument& out = gm.graph().output_node()->args()[0];
  ASSERT_TRUE(out.is_tuple());
  ASSERT_EQ(out.elements().size(), 2u);
  EXPECT_EQ(out.elements()[0].elements().size(), 2u);
  ASSERT_TRUE(out.elements()[1].is_dict());
  EXPECT_EQ(out.elements()[1].dict_items()[0].first, "total");
}

TEST_P(ReadProgramTest, DynamicSizesRunAndTheirRangesAreChecked) {
  GraphModule gm = read(GetParam(), "dynamic_batch");
  auto seven = gm({at::randn({7, 4})});
  ASSERT_TRUE(seven.ok()) << seven.status();
  const auto leaves = testing::flatten_outputs(*seven);
  EXPECT_EQ(leaves[0].toTensor().sizes(), at::IntArrayRef({7, 3}));
  EXPECT_EQ(leaves[1].toTensor().sizes(), at::IntArrayRef({21}));
  auto one = gm({at::randn({1, 4})});
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(std::string(one.status().message()),
              HasSubstr("input 0 ('x'): dimension 0 is 1, outside [2, 64], the range of"));
  auto wide = gm({at::randn({7, 5})});
  ASSERT_FALSE(wide.ok());
  EXPECT_THAT(std::string(wide.status().message()),
              HasSubstr("dimension 1 is 5, and the program was exported for 4 (a static size)"));
  auto flat = gm({at::randn({7})});
  EXPECT_THAT(std::string(flat.status().message()), HasSubstr("has 1 dimension(s); the program was exported for 2"));
  Interpreter interpreter(gm);
  EXPECT_FALSE(interpreter.run({at::randn({65, 4})}).ok());
}

// Issue 36: a name from the file reached printed code as code: an argument
// name in forward_arg_names such as `x):\n    return torch.neg(x)\n  def
// _unused(self, x` became part of the printed forward. Every name a
// placeholder takes is an identifier, or the program is refused.
TEST(ReadProgramNamesTest, ArgumentNamesThatAreNoIdentifiersAreRefused) {
  for (const std::string& version : testing::exported_program_versions()) {
    for (const std::string bad : {"x):\n    return torch.neg(x)\n  def _unused(self, x", "import os",
                                  "class", "1x"}) {
      exported::LoadedProgram p = testing::load_exported_program(version, "structured_inputs");
      auto& graph = p.program.graph_module.module_call_graph;
      ASSERT_FALSE(graph.empty());
      ASSERT_TRUE(graph[0].signature.has_value());
      ASSERT_TRUE(graph[0].signature->forward_arg_names.has_value());
      (*graph[0].signature->forward_arg_names)[0] = bad;
      auto gm = Tracer().trace(p);
      ASSERT_FALSE(gm.ok()) << version << ": " << bad;
      EXPECT_THAT(std::string(gm.status().message()), HasSubstr("which is not a Python identifier"));
    }
  }
}

// The printed forward of a program whose keyword argument follows a
// defaulted one (structured_inputs: feats, flag=True, *, offset) is Python.
TEST(ReadProgramNamesTest, KeywordArgumentsArePrintedKeywordOnly) {
  for (const std::string& version : testing::exported_program_versions()) {
    GraphModule gm = read(version, "structured_inputs");
    EXPECT_THAT(gm.code(), HasSubstr("def forward(self, feats : Dict[str, Tensor], flag : bool = True, *, offset)"))
        << version;
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, ReadProgramTest, ::testing::ValuesIn(testing::exported_program_versions()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return absl::StrReplaceAll(info.param, {{".", "_"}});
                         });

}  // namespace
}  // namespace fx
