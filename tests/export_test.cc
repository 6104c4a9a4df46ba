// Copyright 2026 The FX for C++ Authors.
//
// Export back to TorchScript (runtime/torchscript/torchscript_export.h), on every fixture
// that traces (ResNet-18 and the real-model corpus included), as traced and
// after `inline,dce`:
//   * the exported module, saved and loaded again with torch::jit::load,
//     computes what the original TorchScript model computes (outputs, and
//     inputs changed in place);
//   * the same files load and run in Python with torch.jit.load
//     (tests/testing/run_exported.py, with /usr/bin/python3);
//   * tracing the loaded module again gives the same graph less its dead
//     code (TorchScript's compiler drops unused values): the same node names,
//     opcodes and targets for a traced graph with no dead code, the same
//     opcodes and targets otherwise (the tracer numbers names again: without
//     an unused `getitem_1` the next is `getitem_1`, and the inliner's names
//     are the inliner's).
#include <ATen/core/Tensor.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/torchscript/torchscript_export.h"
#include "tests/testing/corpus.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

namespace fs = std::filesystem;

// One exported module and what its model computed.
struct ExportedCase {
  std::string name;  // model.variant
  std::string path;  // the saved .pt
  testing::CorpusModel model;
  bool same_names = false;  // traced, with no dead code: tracing again gives its names
  std::string first_graph;  // the graph exported, less dead code, as node_lines
  c10::IValue expected;     // (outputs, inputs after the run)
};

c10::IValue tuple_of(const std::vector<c10::IValue>& values) {
  return c10::ivalue::Tuple::create(values);
}

// The nodes of a graph as lines `name op target` (`op target` without
// names), for comparing two traces.
std::string node_lines(const Graph& graph, bool names = true) {
  std::vector<std::string> lines;
  for (const Node* n : graph.nodes()) {
    lines.push_back(absl::StrCat(names ? n->name() : "", " ", op_name(n->op()), " ", n->target()));
  }
  return absl::StrJoin(lines, "\n");
}

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class ExportTest : public ::testing::Test {
 protected:
  // Exports every model once, as traced and after inline,dce.
  static void SetUpTestSuite() {
    cases_ = new std::vector<ExportedCase>();
    const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "exported";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const testing::CorpusModel& model : testing::traceable_models()) {
      torch::jit::Module module = testing::load_fixture(model.name + ".pt");
      module.eval();
      std::vector<c10::IValue> after;
      for (const c10::IValue& v : model.inputs) after.push_back(testing::deep_clone(v));
      const c10::IValue outputs = module.forward(after);
      for (const char* pipeline : {"", "inline,dce"}) {
        auto gm = Tracer(model.options).trace(module);
        ASSERT_TRUE(gm.ok()) << model.name << ": " << gm.status();
        absl::Status ran = testing::run_pipeline(*gm, pipeline);
        ASSERT_TRUE(ran.ok()) << model.name << ": " << ran;
        ExportedCase c;
        c.name = absl::StrCat(model.name, *pipeline == '\0' ? ".traced" : ".inline_dce");
        c.path = (dir / (c.name + ".pt")).string();
        c.model = model;
        std::unique_ptr<Graph> live = gm->graph().copy();
        c.same_names = *pipeline == '\0' && live->eliminate_dead_code() == 0;
        c.first_graph = node_lines(*live, c.same_names);
        c.expected = tuple_of({outputs, tuple_of(after)});
        absl::Status saved = save_torchscript(*gm, c.path);
        ASSERT_TRUE(saved.ok()) << c.name << ": " << saved << "\n" << torchscript_source(*gm);
        cases_->push_back(std::move(c));
      }
    }
  }
  static void TearDownTestSuite() {
    delete cases_;
    cases_ = nullptr;
  }
  static std::vector<ExportedCase>* cases_;
};

std::vector<ExportedCase>* ExportTest::cases_ = nullptr;

TEST_F(ExportTest, SavedModulesLoadInCppAndComputeWhatTheModelComputes) {
  ASSERT_NE(cases_, nullptr);
  ASSERT_GT(cases_->size(), 50u);
  for (const ExportedCase& c : *cases_) {
    torch::jit::Module loaded = torch::jit::load(c.path);
    std::vector<c10::IValue> inputs;
    for (const c10::IValue& v : c.model.inputs) inputs.push_back(testing::deep_clone(v));
    c10::IValue got;
    try {
      got = loaded.forward(inputs);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": the loaded module fails: " << e.what();
      continue;
    }
    std::string why;
    EXPECT_TRUE(testing::all_close(tuple_of({got, tuple_of(inputs)}), c.expected, &why))
        << c.name << ": " << why;
  }
}

TEST_F(ExportTest, TracingTheLoadedModuleGivesTheSameGraph) {
  ASSERT_NE(cases_, nullptr);
  int with_names = 0;
  for (const ExportedCase& c : *cases_) {
    with_names += c.same_names;
    auto again = Tracer(c.model.options).trace(torch::jit::load(c.path));
    ASSERT_TRUE(again.ok()) << c.name << ": " << again.status();
    EXPECT_EQ(node_lines(again->graph(), c.same_names), c.first_graph) << c.name;
  }
  EXPECT_GT(with_names, 40);  // most traced graphs have no dead code
}

TEST_F(ExportTest, SavedModulesLoadInPythonAndComputeWhatTheModelComputes) {
  ASSERT_NE(cases_, nullptr);
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "python_cases";
  fs::remove_all(dir);
  for (const ExportedCase& c : *cases_) {
    const fs::path case_dir = dir / c.name;
    fs::create_directories(case_dir);
    fs::create_symlink(c.path, case_dir / "exported.pt");
    write_bytes(case_dir / "inputs.pt", torch::jit::pickle_save(tuple_of(c.model.inputs)));
    write_bytes(case_dir / "expected.pt", torch::jit::pickle_save(c.expected));
  }
  const std::string log = (fs::path(std::getenv("TEST_TMPDIR")) / "run_exported.log").string();
  const std::string command =
      absl::StrCat("/usr/bin/python3 ", testing::runfile("tests/testing/run_exported.py"), " ",
                   dir.string(), " > ", log, " 2>&1");
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  size_t ok = 0;
  for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
    if (absl::StartsWith(line, "ok ")) {
      ++ok;
    } else if (!line.empty()) {
      ADD_FAILURE() << line;
    }
  }
  EXPECT_EQ(status, 0) << "run_exported.py failed";
  EXPECT_EQ(ok, cases_->size());
}

}  // namespace
}  // namespace fx
