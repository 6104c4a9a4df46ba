// Copyright 2026 The FX for C++ Authors.
#include "passes/pass_manager.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"
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

class Throw : public Pass {
  absl::Status run(GraphModule& gm, PassContext&) override {
    throw std::runtime_error("no table for node 'x'");
  }
};

// Negates the first `aten::relu` it finds, a limited number of times: a pass
// that changes the graph for a while, then stops changing it.
class Rewrite : public Pass {
 public:
  absl::Status run(GraphModule& gm, PassContext&) override {
    ++runs;
    if (runs > changes) return absl::OkStatus();
    Node* relu = gm.graph().find_nodes(Op::kCallFunction, "aten::relu").front();
    auto guard = gm.graph().inserting_after(relu);
    Node* neg = gm.graph().call_function("aten::neg", {relu});
    relu->replace_all_uses_with(neg, [neg](Node* user) { return user != neg; });
    return absl::OkStatus();
  }
  static int runs;
  static int changes;
};
int Rewrite::runs = 0;
int Rewrite::changes = 0;

// Changes nothing.
class Nothing : public Pass {
  absl::Status run(GraphModule&, PassContext&) override { return absl::OkStatus(); }
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
  return [](const OptionValues&) -> absl::StatusOr<std::unique_ptr<Pass>> {
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
    r.add_pass<Rewrite>("rewrite", "adds a neg after relu, a few times");
    r.add_pass<Nothing>("nothing", "changes nothing");
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
  EXPECT_EQ(gm.meta().find("count")->to_int(), 3);  // x, relu, output
  EXPECT_THAT(ctx.warnings(), ElementsAre("counted"));
  EXPECT_EQ(pm->pipeline_text(), "dce,count");
}

// Passes made in C++ run without a registry, after those of pipeline text
// if both are used, with the same instrumentation and errors.
TEST_F(PassManagerTest, PassObjectsAreAddedAndRunInOrder) {
  PassManagerOptions options;
  options.time_passes = true;
  auto pm = PassManager::create("dce", registry_, options);
  ASSERT_TRUE(pm.ok()) << pm.status();
  ASSERT_TRUE(pm->add(std::make_unique<Count>(), "my_count").ok());
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  ASSERT_TRUE(pm->run(gm, ctx).ok());
  EXPECT_EQ(gm.meta().find("count")->to_int(), 3);  // dce ran first
  EXPECT_EQ(pm->pipeline_text(), "dce,my_count");
  EXPECT_THAT(pm->timing_report(), ::testing::HasSubstr("my_count"));

  PassManager mine{PassManagerOptions()};
  ASSERT_TRUE(mine.add(std::make_unique<Fail>(), "mine").ok());
  absl::Status failed = mine.run(gm, ctx);
  EXPECT_THAT(std::string(failed.message()), ::testing::HasSubstr("pass 'mine' failed"));
  // The program's own pass is named as such, not as a plugin without a name.
  PassManager throwing{PassManagerOptions()};
  ASSERT_TRUE(throwing.add(std::make_unique<Throw>(), "throws").ok());
  absl::Status threw = throwing.run(gm, ctx);
  EXPECT_EQ(std::string(threw.message()),
            "pass 'throws' failed: the program's own code threw while running pass 'throws': "
            "no table for node 'x'");
  EXPECT_FALSE(mine.add(nullptr, "none").ok());
  EXPECT_FALSE(mine.add(std::make_unique<Count>(), "a,b").ok());
  EXPECT_FALSE(mine.add(std::make_unique<Count>(), "fixpoint").ok());
}

TEST_F(PassManagerTest, UnknownPassListsTheKnownOnesAndTheClosest) {
  auto pm = PassManager::create("dce,cuont", registry_);
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(std::string(pm.status().message()),
            "unknown pass 'cuont' (did you mean 'count'?). Known passes: break, count, dce, fail, "
            "nothing, rewrite");
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
  // A pass that exists but is not in the pipeline would print nothing: an error.
  options.print_after = {"count"};
  EXPECT_THAT(std::string(PassManager::create("dce", registry_, options).status().message()),
              HasSubstr("print-after names pass 'count', which the pipeline does not run (the "
                        "pipeline runs: dce)"));
}

TEST_F(PassManagerTest, FixpointRepeatsAGroupUntilNothingChanges) {
  Rewrite::runs = 0;
  Rewrite::changes = 3;
  auto pm = PassManager::create("fixpoint(rewrite,dce),count", registry_);
  ASSERT_TRUE(pm.ok()) << pm.status();
  EXPECT_EQ(pm->pipeline_text(), "fixpoint(rewrite,dce),count");
  GraphModule gm = module_with_dead_code();
  PassContext ctx(registry_);
  ASSERT_TRUE(pm->run(gm, ctx).ok());
  // Three rounds changed the graph, the fourth did not.
  EXPECT_EQ(Rewrite::runs, 4);
  EXPECT_EQ(gm.graph().find_nodes(Op::kCallFunction, "aten::neg").size(), 3u);
  EXPECT_TRUE(gm.lint().ok());

  Rewrite::runs = 0;
  Rewrite::changes = 100;
  auto bounded = PassManager::create("fixpoint{max_iterations=5}(rewrite)", registry_);
  ASSERT_TRUE(bounded.ok());
  GraphModule gm2 = module_with_dead_code();
  absl::Status s = bounded->run(gm2, ctx);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("group 'fixpoint' still changed the graph after 5 rounds"));

  EXPECT_THAT(std::string(PassManager::create("fixpoint", registry_).status().message()),
              HasSubstr("needs passes in parentheses"));
  EXPECT_THAT(
      std::string(PassManager::create("fixpoint{max_iterations=0}(dce)", registry_).status().message()),
      HasSubstr("must be from 1 to 2147483647, not 0"));
  // Not truncated to an int (4294967297 would be 1 round, 2147483648 a negative count).
  for (const char* big : {"4294967297", "2147483648"}) {
    EXPECT_THAT(std::string(PassManager::create(absl::StrCat("fixpoint{max_iterations=", big,
                                                             "}(dce)"),
                                                registry_)
                                .status()
                                .message()),
                HasSubstr(absl::StrCat("must be from 1 to 2147483647, not ", big)));
  }
  EXPECT_THAT(std::string(PassManager::create("dce(count)", registry_).status().message()),
              HasSubstr("pass 'dce' takes no nested pipeline"));
}

TEST_F(PassManagerTest, VerifyEachSkipsPassesThatChangedNothing) {
  PassManagerOptions options;
  options.time_passes = true;
  // A broken graph that no pass touches is not re-linted (the pass manager
  // verifies what passes did, not what it was given).
  auto pm = PassManager::create("nothing", registry_, options);
  ASSERT_TRUE(pm.ok());
  GraphModule gm = module_with_dead_code();
  ASSERT_TRUE(gm.graph().erase_node(gm.graph().output_node()).ok());
  PassContext ctx(registry_);
  EXPECT_TRUE(pm->run(gm, ctx).ok());
  // A pass that changes it is.
  auto dce = PassManager::create("dce", registry_, options);
  EXPECT_THAT(std::string(dce->run(gm, ctx).message()), HasSubstr("pass 'dce' left a malformed graph"));
}

}  // namespace
}  // namespace fx
