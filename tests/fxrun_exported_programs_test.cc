// Copyright 2026 The FX for C++ Authors.
//
// fxrun on torch.export programs (.pt2), as a user runs it: the committed
// programs of tests/exported_programs (written by torch 2.6 in the legacy
// layout and by torch 2.14 in the PT2 archive) read, traced with the tracer
// plugins, run and checked against the run PyTorch saved beside them, saved
// in both layouts and read back; and the mistakes a user can make with them.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::fx::testing::expect_one_error_line;
using ::fx::testing::run_fxrun;
using ::fx::testing::temporary_path;
using ::testing::HasSubstr;

const std::vector<std::string>& versions() {
  static const std::vector<std::string> v = {"2.6", "2.14"};
  return v;
}

const std::vector<std::string>& programs() {
  static const std::vector<std::string> p = {"conv_net", "dynamic_batch", "linear_bn",
                                             "special_floats", "structured_inputs", "rotary_block"};
  return p;
}

std::string program(const std::string& version, const std::string& name,
                    const std::string& suffix = ".pt2") {
  return testing::runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, suffix));
}

// The line of `text` starting with `prefix`, or "".
std::string line_starting(const std::string& text, absl::string_view prefix) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

void copy_file(const std::string& from, const std::string& to) {
  std::ofstream(to, std::ios::binary) << std::ifstream(from, std::ios::binary).rdbuf();
}

TEST(FxrunExportedPrograms, ChecksEveryProgramAgainstTheRunSavedBesideIt) {
  for (const std::string& version : versions()) {
    for (const std::string& name : programs()) {
      const std::string what = absl::StrCat("torch ", version, " ", name);
      auto r = run_fxrun(absl::StrCat("--model=", program(version, name), " --check --print=none"));
      EXPECT_EQ(r.exit_code, 0) << what << ": " << r.err;
      EXPECT_THAT(line_starting(r.out, "check: "),
                  HasSubstr(absl::StrCat("against PyTorch's run saved in ")))
          << what << ": " << r.out;
      EXPECT_THAT(line_starting(r.out, "check: "), HasSubstr(name + ".expected.pt")) << what;
      EXPECT_TRUE(absl::EndsWith(line_starting(r.out, "check: "), ": ok")) << what << r.out;
    }
  }
}

// linear_bn counts its calls in a buffer (count.add_(1)); shape propagation
// on real tensors runs the graph, and must leave the count as it was, or the
// checked run computes what a second call of the model would.
TEST(FxrunExportedPrograms, ShapePropagationLeavesTheProgramsBuffersAsTheyWere) {
  for (const std::string& version : versions()) {
    auto r = run_fxrun(absl::StrCat("--model=", program(version, "linear_bn"),
                                    " --passes=shape_prop --run --check --print=none"));
    EXPECT_EQ(r.exit_code, 0) << version << ": " << r.err;
    EXPECT_TRUE(absl::EndsWith(line_starting(r.out, "check: "), ": ok")) << version << r.out;
  }
}

TEST(FxrunExportedPrograms, TracerPluginsSeeTheModulesOfTheProgram) {
  // conv_net: self.conv, self.bn, then self.block (a Sequential).
  auto r = run_fxrun(absl::StrCat("--model=", program("2.14", "conv_net"),
                                  " --tracer=module_path,tagging{tag=t} --print=tabular"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(line_starting(r.out, "call_function  conv2d "), HasSubstr(" conv "));
  EXPECT_THAT(line_starting(r.out, "call_function  batch_norm "), HasSubstr(" bn "));
  EXPECT_THAT(line_starting(r.out, "get_attr       block_0_weight "), HasSubstr(" block.0 "));
  EXPECT_THAT(line_starting(r.out, "call_function  conv2d "), HasSubstr(" t "));
}

TEST(FxrunExportedPrograms, RunsOnTheExampleInputsTheProgramWasSavedWith) {
  auto r = run_fxrun(absl::StrCat("--model=", program("2.6", "conv_net"), " --run --print=none"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_starting(r.out, "run on "), "run on cpu: x float[1, 3, 8, 8]");
}

// linear_bn updates a buffer; structured_inputs takes a dict, a bool and a
// keyword argument.
TEST(FxrunExportedPrograms, SavesBothLayoutsThatReadBackAndCheck) {
  for (const char* name : {"linear_bn", "structured_inputs"}) {
    for (const char* layout : {"pt2", "legacy"}) {
      for (const std::string& version : versions()) {
        const std::string what = absl::StrCat(name, " ", layout, " from torch ", version);
        const std::string out = temporary_path(absl::StrCat(name, "_", layout, version, ".pt2"));
        auto saved = run_fxrun(absl::StrCat("--model=", program(version, name), " --passes=dce --print=none --save=",
                                            out, " --pt2-layout=", layout));
        ASSERT_EQ(saved.exit_code, 0) << what << ": " << saved.err;
        auto again = run_fxrun(absl::StrCat("--model=", out, " --check --print=none --expected=",
                                            program(version, name, ".expected.pt")));
        EXPECT_EQ(again.exit_code, 0) << what << ": " << again.err;
        EXPECT_TRUE(absl::EndsWith(line_starting(again.out, "check: "), ": ok")) << what;
      }
    }
  }
}

// Issue 35: a program torch 2.6 wrote, saved without --pt2-layout, was
// written as the PT2 archive, which torch 2.6 cannot load. It is written in
// the layout it was read in, and fxrun says which.
TEST(FxrunExportedPrograms, SavesInTheLayoutTheProgramWasReadInAndSaysWhich) {
  for (const std::string& version : versions()) {
    const std::string out = temporary_path(absl::StrCat("default_layout", version, ".pt2"));
    auto saved = run_fxrun(absl::StrCat("--model=", program(version, "rotary_block"),
                                        " --passes=dce --print=none --save=", out));
    ASSERT_EQ(saved.exit_code, 0) << version << ": " << saved.err;
    const bool legacy = version == "2.6";
    EXPECT_THAT(saved.err, HasSubstr(absl::StrCat("--save writes ", out, " as ",
                                                  legacy ? "the legacy torch.export zip" : "the PT2 archive")))
        << version;
    // (The zip's member names: the legacy zip's program, the archive's marker.)
    const std::string bytes = testing::read_file(out);
    EXPECT_EQ(absl::StrContains(bytes, "serialized_exported_program.json"), legacy) << version;
    EXPECT_EQ(absl::StrContains(bytes, "/archive_format"), !legacy) << version;
    auto again = run_fxrun(absl::StrCat("--model=", out, " --check --print=none --expected=",
                                        program(version, "rotary_block", ".expected.pt")));
    EXPECT_EQ(again.exit_code, 0) << version << ": " << again.err;
  }
}

TEST(FxrunExportedPrograms, ASavedRunIsForItsModel) {
  // The same model exported by torch 2.14 checks against torch 2.6's run;
  // another model's run does not fit the program's inputs.
  const std::string model = temporary_path("mixed.pt2");
  copy_file(program("2.14", "special_floats"), model);
  copy_file(program("2.6", "special_floats", ".expected.pt"), temporary_path("mixed.expected.pt"));
  auto same = run_fxrun(absl::StrCat("--model=", model, " --check --print=none"));
  EXPECT_EQ(same.exit_code, 0) << "torch 2.6's saved run fits torch 2.14's program: " << same.err;
  auto other = run_fxrun(absl::StrCat("--model=", program("2.14", "linear_bn"),
                                      " --check --print=none --expected=",
                                      program("2.14", "conv_net", ".expected.pt")));
  expect_one_error_line(other, "input 0", "another program's saved run");
}

TEST(FxrunExportedPrograms, MistakesAreOneLineErrors) {
  const std::string copied = temporary_path("alone.pt2");
  copy_file(program("2.6", "conv_net"), copied);
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --check --print=none")),
                        "--check of a torch.export program compares with a run PyTorch saved",
                        "no saved run beside it");
  expect_one_error_line(
      run_fxrun(absl::StrCat("--model=", copied, " --check --input-shape=1,3,8,8 --expected=",
                             program("2.6", "conv_net", ".expected.pt"))),
      "leave out --input and --input-shape", "--check with other inputs");
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --concrete-args=x=1")),
                        "--concrete-args is for tracing TorchScript", "--concrete-args");
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --save=",
                                               temporary_path("o.pt2"), " --pt2-layout=old")),
                        "--pt2-layout takes pt2 or legacy", "--pt2-layout=old");
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --pt2-layout=legacy")),
                        "add --save=FILE.pt2", "--pt2-layout without --save");
  expect_one_error_line(run_fxrun(absl::StrCat("--check --print=none --expected=",
                                               program("2.6", "conv_net", ".expected.pt"))),
                        "--expected is for --check of a torch.export program", "TorchScript");
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --expected=",
                                               program("2.6", "conv_net", ".expected.pt"))),
                        "add --check", "--expected without --check");
  const std::string garbage = temporary_path("garbage.expected.pt");
  std::ofstream(garbage) << "not a pickle";
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --check --expected=", garbage)),
                        "torch.save({'inputs'", "--expected not a saved run");
  // A program's saved run is an input: --output may not overwrite it.
  copy_file(program("2.6", "conv_net", ".expected.pt"), temporary_path("alone.expected.pt"));
  expect_one_error_line(run_fxrun(absl::StrCat("--model=", copied, " --check --output=",
                                               temporary_path("alone.expected.pt"))),
                        "is one of the inputs", "--output over the saved run");
}

}  // namespace
}  // namespace fx
