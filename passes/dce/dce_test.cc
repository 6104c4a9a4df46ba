// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
#include "runtime/torchscript/script_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::node_names;
using testing::trace_fixture;

class DceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"dce", "1", ""});
    register_dce(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` (dce with some options) on `gm` as fxrun would.
  absl::Status run(absl::string_view pipeline, GraphModule& gm) {
    auto pm = PassManager::create(pipeline, registry_);
    if (!pm.ok()) return pm.status();
    PassContext context(registry_);
    return pm->run(gm, context);
  }

  Registry registry_;
};

TEST_F(DceTest, RemovesUnusedValuesAndGetAttrsButKeepsSideEffects) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->placeholder("unused");                    // placeholders always stay
  g->get_attr("weight");                       // never read
  g->call_function("aten::neg", {x});          // result unused, pure
  g->call_function("aten::add_.Scalar", {x, 1});  // result unused, mutates x
  g->output(g->call_function("aten::relu", {x}));
  GraphModule gm(empty_module("Dead"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("weight", at::ones({2})).ok());

  ASSERT_TRUE(run("dce", gm).ok());
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "unused", "add_", "relu", "output"));
  // Without the option the module keeps what the graph no longer reads.
  EXPECT_TRUE(gm.get_attr("weight").ok());
}

// A module call whose value is unused but whose code changes its module's
// attributes (`self.prev = x`) is a side effect, kept even where the graph
// does not mark it (a graph built or read from a file); a call of a module
// whose code changes nothing goes.
TEST_F(DceTest, AModuleCallThatChangesTheModulesStateStays) {
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module keep(c10::QualifiedName("__torch__.test.Keep"), unit);
  keep.register_attribute("prev", c10::TensorType::get(), at::zeros({2}));
  keep.define("def forward(self, x):\n    self.prev = x * 1.0\n    return x\n");
  torch::jit::Module pure(c10::QualifiedName("__torch__.test.Pure"), unit);
  pure.define("def forward(self, x):\n    return x * 2.0\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("keep", module_from_torchscript(keep).value()).ok());
  ASSERT_TRUE(root->register_module("pure", module_from_torchscript(pure).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->create_node(Op::kCallModule, "keep", {x}, {}, "keep");
  g->create_node(Op::kCallModule, "pure", {x}, {}, "pure");
  g->output(g->call_function("aten::add.Tensor", {x, g->get_attr("keep.prev")}));
  GraphModule gm(root, std::move(g));
  ASSERT_TRUE(run("dce", gm).ok());
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "keep", "keep_prev", "add", "output"));
  auto out = gm({at::ones({2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(out->toTensor(), at::full({2}, 2.0)));
}

TEST_F(DceTest, SubmodulesOptionDropsWhatTheGraphNoLongerReferences) {
  // Seed 004's MyModule: `param` is never used by forward, `linear` is.
  GraphModule gm = trace_fixture("my_module.pt");
  ASSERT_TRUE(run("dce{submodules=true}", gm).ok());
  EXPECT_TRUE(gm.get_submodule("linear").ok());
  EXPECT_TRUE(gm.get_attr("linear.weight").ok());
  EXPECT_FALSE(gm.get_attr("param").ok());
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  testing::expect_runs_like_the_fixture(gm, "my_module.pt",
                               testing::example_inputs("my_module"));

  // Once the graph returns its input, nothing else is referenced.
  Graph& graph = gm.graph();
  graph.output_node()->set_args({Argument(graph.find_node("x"))});
  ASSERT_TRUE(run("dce{submodules=true}", gm).ok());
  EXPECT_THAT(node_names(graph), ElementsAre("x", "output"));
  EXPECT_FALSE(gm.get_submodule("linear").ok());
  EXPECT_FALSE(gm.get_attr("linear.weight").ok());
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
}

TEST_F(DceTest, WithoutTheOptionSubmodulesStay) {
  GraphModule gm = trace_fixture("my_module.pt");
  Graph& graph = gm.graph();
  graph.output_node()->set_args({Argument(graph.find_node("x"))});
  ASSERT_TRUE(run("dce", gm).ok());
  EXPECT_THAT(node_names(graph), ElementsAre("x", "output"));
  EXPECT_TRUE(gm.get_submodule("linear").ok());
  EXPECT_TRUE(gm.get_attr("param").ok());
}

TEST_F(DceTest, OptionValuesAreChecked) {
  GraphModule gm = trace_fixture("my_module.pt");
  absl::Status s = run("dce{submodules=maybe}", gm);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("submodules"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("maybe"));
}

}  // namespace
}  // namespace fx
