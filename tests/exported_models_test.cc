// Copyright 2026 The FX for C++ Authors.
//
// Real models as torch.export programs written by the platform's own torch
// (tests/fixtures/exported_models.py: torchvision's ResNet-18 and
// MobileNetV3, the real-model corpus): read, every tracer plugin, passes,
// run and compared with the eager model, written back in both layouts and
// read again, and the written programs loaded by the platform's Python
// (torch.export.load) and run. On a platform whose torch cannot export
// (Debian 12's 1.13) the fixtures are empty and the tests skip, saying so.
#include <ATen/core/Tensor.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/torch_load.h"
#include "exported_program/writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/interpreter.h"
#include "tests/testing/exec_order_reference.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/exec_order/exec_order.h"
#include "tracer/module_path/module_path.h"
#include "tracer/tagging/tagging.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& file) {
  return testing::runfile(absl::StrCat("tests/fixtures/exported/", file));
}

// "available 2.14.1+debian" or "unavailable <why>".
const std::string& status() {
  static const auto* s = new std::string(
      std::string(absl::StripAsciiWhitespace(testing::read_file(fixture("STATUS")))));
  return *s;
}

bool available() { return absl::StartsWith(status(), "available "); }

// The torch that wrote the fixtures: 2.8 and later write (and read) the PT2
// archive; all of 2.1 to 2.14 read the legacy zip.
bool torch_reads_pt2_archive() {
  std::vector<std::string> v = absl::StrSplit(status().substr(10), '.');
  return v.size() >= 2 && (std::stoi(v[0]) > 2 || (std::stoi(v[0]) == 2 && std::stoi(v[1]) >= 8));
}

#define SKIP_UNLESS_AVAILABLE() \
  if (!available()) GTEST_SKIP() << "no torch.export programs on this platform: " << status()

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(testing::read_file(fixture("MODELS")), '\n')) {
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

struct Expected {
  std::vector<c10::IValue> inputs;
  std::vector<c10::IValue> outputs;
};

Expected expected_run(const std::string& name) {
  auto v = exported::torch_load(testing::read_file(fixture(name + ".expected.pt")), name + ".expected.pt");
  Expected e;
  if (!v.ok()) {
    ADD_FAILURE() << v.status();
    return e;
  }
  for (const auto& kv : v->toGenericDict()) {
    if (kv.key().toStringRef() == "inputs") e.inputs = kv.value().toTupleRef().elements().vec();
    if (kv.key().toStringRef() == "outputs") e.outputs = kv.value().toTupleRef().elements().vec();
  }
  return e;
}

std::vector<c10::IValue> fresh(const std::vector<c10::IValue>& inputs) {
  return testing::deep_clone(c10::ivalue::Tuple::create(inputs)).toTupleRef().elements().vec();
}

void expect_outputs(const c10::IValue& out, const Expected& e, const std::string& what) {
  const std::vector<c10::IValue> leaves = testing::flatten_outputs(out);
  ASSERT_EQ(leaves.size(), e.outputs.size()) << what;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::string why;
    EXPECT_TRUE(testing::all_close(leaves[i], e.outputs[i], &why)) << what << ", output " << i << ": " << why;
  }
}

class ExportedModelsTest : public ::testing::TestWithParam<std::string> {
 protected:
  exported::LoadedProgram load() {
    const std::string bytes = testing::read_file(fixture(GetParam() + ".pt2"));
    auto p = exported::load_program(bytes, GetParam() + ".pt2");
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : exported::LoadedProgram();
  }
};

// Read through every in-tree tracer plugin at once; computes what the model
// computed, by the plan (twice: specialising, then the compiled steps) and
// by the Interpreter.
TEST_P(ExportedModelsTest, ComputesWhatTheModelComputes) {
  SKIP_UNLESS_AVAILABLE();
  const Expected e = expected_run(GetParam());
  Tracer tracer;
  tracer.add_extension(std::make_shared<ModulePathTracer>());
  tracer.add_extension(std::make_shared<TaggingTracer>("exported"));
  auto order = std::make_shared<ExecOrderTracer>();
  tracer.add_extension(order);
  auto gm = tracer.trace(load());
  ASSERT_TRUE(gm.ok()) << gm.status();
  ASSERT_TRUE(gm->lint().ok()) << gm->lint();
  for (const Node* n : gm->graph().nodes()) {
    if (n->op() == Op::kOutput) continue;  // made after the last module call
    ASSERT_NE(n->meta().find(kModulePathKey), nullptr) << n->name();
    ASSERT_NE(n->meta().find(kTagKey), nullptr) << n->name();
  }
  EXPECT_EQ(order->module_forward_order().front(), "");
  // A program that updates its state computes the eager result on its first
  // run only, as the model itself would.
  const bool updates_state = GetParam() == "inplace_input_add";
  auto plan = ExecutionPlan::compile(*gm);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (int run = 0; run < (updates_state ? 1 : 2); ++run) {
    auto out = (*plan)->run(fresh(e.inputs));
    ASSERT_TRUE(out.ok()) << out.status();
    expect_outputs(*out, e, absl::StrCat("plan, run ", run));
  }
  auto again = Tracer().trace(load());
  ASSERT_TRUE(again.ok());
  Interpreter interpreter(*again);
  auto out = interpreter.run(fresh(e.inputs));
  ASSERT_TRUE(out.ok()) << out.status();
  expect_outputs(*out, e, "Interpreter");
}

TEST_P(ExportedModelsTest, PassesKeepWhatItComputes) {
  SKIP_UNLESS_AVAILABLE();
  const Expected e = expected_run(GetParam());
  // (const_fold then a real shape_prop: folded attributes read beside
  // parameters that require grad, with autograd on.)
  for (const char* pipeline : {"dce", "inline,dce", "shape_prop{device=meta},dce", "const_fold,shape_prop,dce"}) {
    auto gm = Tracer().trace(load());
    ASSERT_TRUE(gm.ok()) << gm.status();
    absl::Status ran = testing::run_pipeline(*gm, pipeline, fresh(e.inputs));
    ASSERT_TRUE(ran.ok()) << ran;
    auto out = (*gm)(fresh(e.inputs));
    ASSERT_TRUE(out.ok()) << pipeline << ": " << out.status();
    expect_outputs(*out, e, pipeline);
  }
}

TEST_P(ExportedModelsTest, WritesProgramsThatReadBackAndComputeTheSame) {
  SKIP_UNLESS_AVAILABLE();
  const Expected e = expected_run(GetParam());
  const exported::LoadedProgram original = load();
  for (exported::WriteLayout layout : {exported::WriteLayout::kPt2Archive, exported::WriteLayout::kLegacy}) {
    auto gm = Tracer().trace(original);
    ASSERT_TRUE(gm.ok()) << gm.status();
    ASSERT_TRUE(testing::run_pipeline(*gm, "dce").ok());
    exported::WriteOptions options;
    options.layout = layout;
    options.archive_name = GetParam();
    options.example_inputs = original.example_inputs;
    auto bytes = exported::write_program(*gm, options);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto read = exported::load_program(*bytes, "written.pt2");
    ASSERT_TRUE(read.ok()) << read.status();
    auto back = Tracer().trace(*read);
    ASSERT_TRUE(back.ok()) << back.status();
    auto out = (*back)(fresh(e.inputs));
    ASSERT_TRUE(out.ok()) << out.status();
    expect_outputs(*out, e, layout == exported::WriteLayout::kLegacy ? "legacy" : "pt2");
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ExportedModelsTest, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

exported::LoadedProgram load_resnet18() {
  auto p = exported::load_program(testing::read_file(fixture("resnet18.pt2")), "resnet18.pt2");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : exported::LoadedProgram();
}

// Seed 001 on an exported ResNet-18: the exec_order plugin reads FSDP's order
// from the program's nn_module_stack as FSDP's _ExecOrderTracer records it on
// the eager model (in the platform's own Python, at build time).
TEST(ExportedResNet18Test, ExecOrderIsTheSeedTracersOnTheEagerModel) {
  SKIP_UNLESS_AVAILABLE();
  Tracer tracer;
  tracer.add_extension(std::make_shared<ExecOrderTracer>());
  auto gm = tracer.trace(load_resnet18());
  ASSERT_TRUE(gm.ok()) << gm.status();
  testing::expect_seed_exec_order_of_resnet18(*gm);
}

// Seed 002 on an exported ResNet-18: every computing node names the module it
// came from, so the leaf modules follow one another in the order the eager
// model calls them, and what a block's forward computes itself (the residual
// add) belongs to the block.
TEST(ExportedResNet18Test, ModulePathsFollowTheModelsCalls) {
  SKIP_UNLESS_AVAILABLE();
  Tracer tracer;
  tracer.add_extension(std::make_shared<ModulePathTracer>());
  auto gm = tracer.trace(load_resnet18());
  ASSERT_TRUE(gm.ok()) << gm.status();
  std::ifstream in(testing::fixture_path("resnet18.exec_order.json"));
  const auto modules = nlohmann::json::parse(in)["module_forward_order"].get<std::vector<std::string>>();
  auto is_leaf = [&](const std::string& m) {
    if (m.empty()) return false;
    for (const std::string& other : modules) {
      if (absl::StartsWith(other, m + ".")) return false;
    }
    return true;
  };
  std::vector<std::string> eager_leaves;
  for (const std::string& m : modules) {
    if (is_leaf(m)) eager_leaves.push_back(m);
  }
  std::vector<std::string> paths;  // of call_function nodes, runs collapsed
  int block_adds = 0;
  for (const Node* n : gm->graph().nodes()) {
    if (n->op() != Op::kCallFunction) continue;
    const MetaValue* path = n->meta().find(kModulePathKey);
    ASSERT_NE(path, nullptr) << n->name();
    const std::string p = path->to_string();
    if (paths.empty() || paths.back() != p) paths.push_back(p);
    if (absl::StrContains(n->target(), "add")) {
      EXPECT_THAT(p, ::testing::MatchesRegex("layer[1-4]\\.[01]")) << n->name();
      ++block_adds;
    }
  }
  EXPECT_EQ(block_adds, 8);
  std::vector<std::string> leaves;
  for (const std::string& p : paths) {
    if (is_leaf(p)) leaves.push_back(p);
  }
  EXPECT_EQ(leaves, eager_leaves);
}

// Every program, read, passed through dce and written in each layout the
// platform's torch reads, loads with torch.export.load and its module()
// computes what the model computed (one Python process for all).
TEST(ExportedModelsPythonTest, WrittenProgramsLoadInThePlatformsPython) {
  SKIP_UNLESS_AVAILABLE();
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / "written";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string arguments;
  size_t cases = 0;
  for (const std::string& name : names()) {
    const std::string bytes = testing::read_file(fixture(name + ".pt2"));
    auto p = exported::load_program(bytes, name);
    ASSERT_TRUE(p.ok()) << p.status();
    auto gm = Tracer().trace(*p);
    ASSERT_TRUE(gm.ok()) << name << ": " << gm.status();
    ASSERT_TRUE(testing::run_pipeline(*gm, "dce").ok());
    for (exported::WriteLayout layout : {exported::WriteLayout::kPt2Archive, exported::WriteLayout::kLegacy}) {
      if (layout == exported::WriteLayout::kPt2Archive && !torch_reads_pt2_archive()) continue;
      exported::WriteOptions options;
      options.layout = layout;
      options.archive_name = name;
      options.example_inputs = p->example_inputs;
      auto written = exported::write_program(*gm, options);
      ASSERT_TRUE(written.ok()) << name << ": " << written.status();
      const fs::path file = dir / absl::StrCat(name, layout == exported::WriteLayout::kLegacy ? ".legacy" : "", ".pt2");
      std::ofstream(file, std::ios::binary) << *written;
      absl::StrAppend(&arguments, " ", file.string(), " ", fixture(name + ".expected.pt"));
      ++cases;
    }
  }
  const std::string log = (dir / "check.log").string();
  const int status = std::system(absl::StrCat("/usr/bin/python3 ",
                                              testing::runfile("tests/testing/check_exported_program.py"),
                                              arguments, " > ", log, " 2>&1")
                                     .c_str());
  size_t ok = 0;
  for (absl::string_view line : absl::StrSplit(testing::read_file(log), '\n')) {
    if (absl::StartsWith(line, "ok ")) {
      ++ok;
    } else if (absl::StartsWith(line, "FAIL ")) {
      ADD_FAILURE() << line;
    }
  }
  EXPECT_EQ(status, 0) << testing::read_file(log);
  EXPECT_EQ(ok, cases);
}

}  // namespace
}  // namespace fx
