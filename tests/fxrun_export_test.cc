// Copyright 2026 The FX for C++ Authors.
//
// fxrun --save (export to TorchScript) and --graph (read a graph file written
// by --emit=json) end to end, and their errors.
#include <sys/stat.h>
#include <unistd.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::fx::testing::read_file;
using ::fx::testing::runfile;
using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

std::string temp_path(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

TEST(FxrunExportTest, SavedResNet18AfterInlineLoadsAndComputesWhatTheModelComputes) {
  const std::string saved = temp_path("resnet18_inlined.pt");
  Result r = fxrun("--passes=inline,dce --print=none --save=" + saved);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  torch::jit::Module exported = torch::jit::load(saved);
  torch::jit::Module model = torch::jit::load(runfile("tools/models/resnet18.pt"));
  model.eval();
  exported.eval();
  const at::Tensor x = at::randn({1, 3, 224, 224});
  EXPECT_TRUE(at::allclose(exported.forward({x}).toTensor(), model.forward({x}).toTensor(),
                           1e-4, 1e-5));
  // Inlined: the exported forward calls operators, not the submodules.
  EXPECT_THAT(exported.get_method("forward").graph()->toString(), HasSubstr("aten::conv2d"));
}

TEST(FxrunExportTest, AGraphFileReadsBackAsTheGraphThatWasWritten) {
  const std::string json = temp_path("resnet18_inlined.json");
  Result written = fxrun("--passes=inline,dce --emit=json --output=" + json);
  ASSERT_EQ(written.exit_code, 0) << written.err;
  Result direct = fxrun("--passes=inline,dce --print=code");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  Result read = fxrun("--graph=" + json + " --print=code");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, direct.out);
  // Written again, the file is the same; and the graph runs like the model.
  const std::string again = temp_path("again.json");
  Result rewritten = fxrun("--graph=" + json + " --emit=json --output=" + again);
  ASSERT_EQ(rewritten.exit_code, 0) << rewritten.err;
  EXPECT_EQ(read_file(again), read_file(json));
  Result checked = fxrun("--graph=" + json + " --print=none --check");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_THAT(checked.out, HasSubstr("check: max abs difference"));
}

TEST(FxrunExportTest, GraphAndSaveErrorsNameTheFileAndTheFix) {
  const std::string json = temp_path("resnet18.json");
  ASSERT_EQ(fxrun("--emit=json --output=" + json).exit_code, 0);

  Result missing = fxrun("--graph=" + temp_path("nope.json"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("cannot read --graph"));
  EXPECT_THAT(missing.err, HasSubstr("No such file or directory"));

  Result traced_too = fxrun("--graph=" + json + " --tracer=module_path");
  EXPECT_EQ(traced_too.exit_code, 1);
  EXPECT_THAT(traced_too.err, HasSubstr("--tracer is for tracing, and --graph reads the graph"));

  const std::string broken = temp_path("broken.json");
  std::ofstream(broken) << "{\"format\": \"fx-graph\", \"version\": 1,\n \"nodes\": [{]}";
  Result bad_json = fxrun("--graph=" + broken);
  EXPECT_EQ(bad_json.exit_code, 1);
  EXPECT_THAT(bad_json.err, HasSubstr("broken.json"));
  EXPECT_THAT(bad_json.err, HasSubstr("line 2"));

  Result other_model =
      fxrun("--graph=" + json + " --model=" + runfile("tests/fixtures/m_relu_add.pt"));
  EXPECT_EQ(other_model.exit_code, 1);
  EXPECT_THAT(other_model.err, HasSubstr("written for another model?"));

  Result same = fxrun("--print=none --save=" + json + " --graph=" + json);
  EXPECT_EQ(same.exit_code, 1);
  EXPECT_THAT(same.err, HasSubstr("is one of the inputs"));

  const std::string out = temp_path("out.pt");
  Result twice = fxrun("--output=" + out + " --save=" + out);
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_THAT(twice.err, HasSubstr("--output and --save name the same file"));

  // A device is never replaced by the result.
  Result device = fxrun("--print=none --save=/dev/null");
  EXPECT_EQ(device.exit_code, 1);
  EXPECT_THAT(device.err, HasSubstr("--save /dev/null is not a regular file"));
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A symbolic link: the file it names is written, the link stays.
  const std::string target = temp_path("target.pt");
  const std::string link = temp_path("link.pt");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Result through = fxrun("--print=none --save=" + link);
  EXPECT_EQ(through.exit_code, 0) << through.err;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_GT(st.st_size, 1000000);

  Result no_dir = fxrun("--print=none --save=/nonexistent-dir/m.pt");
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.err, HasSubstr("/nonexistent-dir"));
}

}  // namespace
}  // namespace fx
