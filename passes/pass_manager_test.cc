// Copyright 2026 The FX for C++ Authors.
#include "passes/pass_manager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/dce/dce.h"
#include "runtime/graph_module.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A pass that leaves the graph without its output node.
class BreakGraph : public Pass {
  absl::Status run(GraphModule& gm, PassContext&) override {
    Node* out = gm.graph().output_node();
    return gm.graph().erase_node(out);
  }
};

class Fail : public Pass {
  absl::Status run(GraphModule& gm, PassContext&) override {
    return absl::InvalidArgumentError("node 'x' cannot be handled");
  }
};

class Count : public Pass {
 public:
  absl::Status run(GraphModule& gm, PassContext& ctx) override {
    gm.meta().set("count", static_cast<int64_t>(gm.graph().size()));
    ctx.warn("counted");
    return absl::OkStatus();
  }
};

template <typename P>
PassFactory factory() {
  return [](const Options&) -> absl::StatusOr<std::unique_ptr<Pass>> {
    return std::make_unique<P>();
  };
}

class PassManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"test", "1", ""});
    register_dce(r);
    r.add_pass("break", "breaks the graph", {}, factory<BreakGraph>());
    r.add_pass("fail", "fails", {}, factory<Fail>());
    r.add_pass("count", "counts nodes", {}, factory<Count>());
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  GraphModule module_with_dead_code() {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->call_function("aten::neg", {x});  // dead
    g->output(g->call_function("aten::relu", {x}));
    return GraphModule(empty_module("Test"), std::move(g));
  }

  Registry registry_;
};

TEST_F(PassManagerTest, RunsThePipelineInOrder) {
  auto pm = PassManager::create("dce,count", registry_);
  ASSERT_TRUE(pm.ok()) << pm.status();
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  ASSERT_TRUE(pm->run(gm, ctx).ok());
  EXPECT_EQ(gm.meta().find("count")->as_int(), 3);  // x, relu, output
  EXPECT_THAT(ctx.warnings(), ElementsAre("counted"));
  EXPECT_EQ(pm->pipeline_text(), "dce,count");
}

TEST_F(PassManagerTest, UnknownPassListsTheKnownOnesAndTheClosest) {
  auto pm = PassManager::create("dce,cuont", registry_);
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(std::string(pm.status().message()),
            "unknown pass 'cuont' (did you mean 'count'?). Known passes: break, count, dce, fail");
}

TEST_F(PassManagerTest, UnknownOptionAndBadOptionValues) {
  auto unknown = PassManager::create("dce{submodule=true}", registry_);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("pass 'dce' has no option 'submodule' (did you mean 'submodules'?)"));
  auto bad = PassManager::create("dce{submodules=perhaps}", registry_);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("pass 'dce': option 'submodules' takes true or false, not 'perhaps'"));
  auto malformed = PassManager::create("dce{", registry_);
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("at character 5"));
}

TEST_F(PassManagerTest, VerifyAfterEachPassNamesThePassThatBrokeTheGraph) {
  auto pm = PassManager::create("count,break,dce", registry_);
  ASSERT_TRUE(pm.ok());
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  absl::Status s = pm->run(gm, ctx);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()), HasSubstr("pass 'break' left a malformed graph: lint: the graph has no output node"));

  PassManagerOptions no_verify;
  no_verify.verify_each = false;
  auto unchecked = PassManager::create("break", registry_, no_verify);
  GraphModule gm2 = module_with_dead_code();
  EXPECT_TRUE(unchecked->run(gm2, ctx).ok());
}

TEST_F(PassManagerTest, FailingPassIsNamed) {
  auto pm = PassManager::create("count,fail,dce", registry_);
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  absl::Status s = pm->run(gm, ctx);
  EXPECT_EQ(std::string(s.message()), "pass 'fail' failed: node 'x' cannot be handled");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PassManagerTest, TimingReportAndPrintAfter) {
  PassManagerOptions options;
  options.time_passes = true;
  options.print_after = {"dce"};
  std::vector<std::string> printed;
  options.printer = [&](const std::string& pass, const GraphModule& gm) {
    printed.push_back(pass + ":" + std::to_string(gm.graph().size()));
  };
  auto pm = PassManager::create("count,dce,count", registry_, options);
  ASSERT_TRUE(pm.ok());
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  ASSERT_TRUE(pm->run(gm, ctx).ok());
  EXPECT_THAT(printed, ElementsAre("dce:3"));
  const std::string report = pm->timing_report();
  EXPECT_THAT(report, HasSubstr("Pass execution timing report"));
  EXPECT_THAT(report, HasSubstr("  count\n"));
  EXPECT_THAT(report, HasSubstr("  dce\n"));
  EXPECT_THAT(report, HasSubstr("verify (lint after each pass)"));
  EXPECT_THAT(report, HasSubstr("(100.0%)  Total"));

  options.print_after = {};
  options.print_after_all = true;
  printed.clear();
  auto all = PassManager::create("count,dce", registry_, options);
  GraphModule gm2 = module_with_dead_code();
  ASSERT_TRUE(all->run(gm2, ctx).ok());
  EXPECT_THAT(printed, ElementsAre("count:4", "dce:3"));

  options.print_after = {"nope"};
  EXPECT_THAT(std::string(PassManager::create("dce", registry_, options).status().message()),
              HasSubstr("unknown pass 'nope'"));
}

}  // namespace
}  // namespace fx
