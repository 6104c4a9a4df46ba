// Copyright 2026 The FX for C++ Authors.
//
// The graph file (tools/graph_file.h) on every fixture that traces, as traced
// (with module paths, tags and execution order in meta) and after
// `inline,dce`: reading the file back over the model gives the same file
// again and the same printed graph, and the graph read back runs like the
// TorchScript model.
#include <memory>
#include <string>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/split/split.h"
#include "runtime/torchscript/script_module.h"
#include "tests/testing/corpus.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"
#include "tools/graph_file.h"
#include "tracer/module_path/module_path.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

TEST(GraphFileRoundTripTest, EveryFixturesGraphReadsBackExactlyAndRuns) {
  int files = 0;
  for (const testing::CorpusModel& model : testing::traceable_models()) {
    torch::jit::Module module = testing::load_fixture(model.name + ".pt");
    module.eval();
    for (const char* pipeline : {"", "inline,dce"}) {
      const std::string what = absl::StrCat(model.name, " [", pipeline, "]");
      Tracer tracer(model.options);
      tracer.add_extension(std::make_shared<ModulePathTracer>());
      auto gm = tracer.trace(module);
      ASSERT_TRUE(gm.ok()) << what << ": " << gm.status();
      absl::Status ran = testing::run_pipeline(*gm, pipeline);
      ASSERT_TRUE(ran.ok()) << what << ": " << ran;

      const std::string text = *graph_file_text(*gm);
      auto again =
          read_graph_file(text, module_from_torchscript(module).value(), model.name + ".json");
      ASSERT_TRUE(again.ok()) << what << ": " << again.status();
      EXPECT_EQ(*graph_file_text(*again), text) << what;
      EXPECT_EQ(format_graph(again->graph()), format_graph(gm->graph())) << what;
      EXPECT_EQ(again->code(), gm->code()) << what;
      if (*pipeline == '\0') testing::expect_runs_like_the_module(*again, module, model.inputs, what);
      ++files;
    }
  }
  EXPECT_GE(files, 100);
}

// split makes graph submodules; the file holds them, and they read back.
TEST(GraphFileRoundTripTest, SplitModuleReadsBack) {
  GraphModule gm = testing::trace_fixture("resnet18.pt");
  SplitOptions options;
  options.points = {"layer3"};
  ASSERT_TRUE(split_into_stages(gm, options).ok());
  auto text = graph_file_text(gm);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, ::testing::HasSubstr("\"submodules\""));
  torch::jit::Module model = testing::load_fixture("resnet18.pt");
  auto again = read_graph_file(*text, module_from_torchscript(model).value(), "split.json");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->graph_submodules().size(), 2u);
  EXPECT_EQ(again->graph_submodule("submod_1")->code(), gm.graph_submodule("submod_1")->code());
  EXPECT_EQ(again->code(), gm.code());
  testing::expect_runs_like_the_module(*again, model, testing::example_inputs("resnet18"),
                                       "split resnet18 read back");
}

}  // namespace
}  // namespace fx
