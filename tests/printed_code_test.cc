// Copyright 2026 The FX for C++ Authors.
//
// The printed code (`--print=code`, GraphModule::code) is Python that runs:
// for every fixture that traces, and after `inline,dce` and
// `inline{recurse=true},dce{submodules=true}`, the code is executed in Python
// with PyTorch against the module's state (tests/testing/run_printed_code.py)
// and must compute what the TorchScript model computes.
#include <ATen/core/Tensor.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/corpus.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/value_conversion.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

namespace fs = std::filesystem;

void write_bytes(const fs::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

c10::IValue tuple_of(const std::vector<c10::IValue>& values) {
  return c10::ivalue::Tuple::create(values);
}

// The NamedTuples in `v`, one line each: the path of indices to it (`0 1`
// for output[0][1], empty for the output itself), a tab, its class and
// fields, space-separated. Python compares them with what the code returns.
void append_named_tuples(const c10::IValue& v, const std::string& path, std::string& out) {
  if (!v.isTuple() && !v.isList()) return;
  if (v.isTuple()) {
    if (auto named = named_tuple_of(v.toTupleRef().type())) {
      absl::StrAppend(&out, path, "\t", named->first);
      for (const std::string& field : named->second) absl::StrAppend(&out, " ", field);
      out += "\n";
    }
  }
  const std::vector<c10::IValue> items = sequence_elements(v);
  for (size_t i = 0; i < items.size(); ++i) {
    append_named_tuples(items[i], path.empty() ? absl::StrCat(i) : absl::StrCat(path, " ", i), out);
  }
}

// Writes one case for run_printed_code.py.
void write_case(const fs::path& dir, GraphModule& gm, const std::string& model_path,
                bool root_changed, const std::vector<c10::IValue>& inputs,
                const c10::IValue& expected) {
  fs::create_directories(dir);
  std::ofstream(dir / "code.py") << gm.code();
  if (root_changed) {
    // The pruned root has no code of its own: a new class holds its slots,
    // its leaf modules keep their TorchScript classes.
    absl::StatusOr<torch::jit::Module> root =
        torchscript_object(gm.root(), std::make_shared<torch::jit::CompilationUnit>());
    ASSERT_TRUE(root.ok()) << dir << ": " << root.status();
    root->save((dir / "root.pt").string());
  } else {
    fs::create_symlink(fs::absolute(model_path), dir / "root.pt");
  }
  c10::impl::GenericDict constants(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [name, value] : gm.own_attributes()) constants.insert(name, value);
  write_bytes(dir / "constants.pt", torch::jit::pickle_save(constants));
  write_bytes(dir / "inputs.pt", torch::jit::pickle_save(tuple_of(inputs)));
  write_bytes(dir / "expected.pt", torch::jit::pickle_save(expected));
  std::string named_tuples;
  append_named_tuples(expected.toTupleRef().elements()[0], "", named_tuples);
  std::ofstream(dir / "named_tuples.txt") << named_tuples;
}

TEST(PrintedCodeTest, EveryFixturesCodeRunsInPythonAndComputesWhatTheModelComputes) {
  const fs::path cases = fs::path(std::getenv("TEST_TMPDIR")) / "printed_code_cases";
  fs::remove_all(cases);
  int count = 0;
  for (const testing::CorpusModel& f : testing::traceable_models()) {
    const std::string model_path = testing::fixture_path(f.name + ".pt");
    torch::jit::Module module = testing::load_fixture(f.name + ".pt");
    module.eval();
    // What the model computes, and its inputs after (in-place changes).
    std::vector<c10::IValue> after;
    for (const c10::IValue& v : f.inputs) after.push_back(testing::deep_clone(v));
    const c10::IValue outputs = module.forward(after);
    const c10::IValue expected = tuple_of({outputs, tuple_of(after)});
    for (const char* pipeline : {"", "inline,dce", "inline{recurse=true},dce{submodules=true}"}) {
      auto gm = Tracer(f.options).trace(module);
      ASSERT_TRUE(gm.ok()) << f.name << ": " << gm.status();
      absl::Status ran = testing::run_pipeline(*gm, pipeline);
      ASSERT_TRUE(ran.ok()) << f.name << ": " << ran;
      const std::string variant = *pipeline == '\0' ? "traced" : pipeline;
      const bool root_changed = absl::StrContains(variant, "submodules");
      write_case(cases / absl::StrCat(f.name, ".", count % 3), *gm, model_path, root_changed,
                 f.inputs, expected);
      ++count;
    }
  }

  // One Python process runs them all.
  const std::string log = (fs::path(std::getenv("TEST_TMPDIR")) / "printed_code.log").string();
  const std::string command = absl::StrCat(
      "/usr/bin/python3 ", testing::runfile("tests/testing/run_printed_code.py"), " ",
      cases.string(), " ", testing::runfile("tests/fixtures/tracer_models.py"), " ",
      testing::runfile("tests/fixtures/real_models.py"), " > ", log, " 2>&1");
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  int ok = 0;
  for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
    if (absl::StartsWith(line, "ok ")) {
      ++ok;
    } else if (!line.empty()) {
      ADD_FAILURE() << line;
    }
  }
  EXPECT_EQ(status, 0) << "run_printed_code.py failed";
  EXPECT_EQ(ok, count) << "cases that ran and matched (of " << count << "); variants: .0 traced, "
                          ".1 inline,dce, .2 inline{recurse=true},dce{submodules=true}";
}

}  // namespace
}  // namespace fx
