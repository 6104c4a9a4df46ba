// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>

#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "runtime/graph_module.h"
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
