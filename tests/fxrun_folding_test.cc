// Copyright 2026 The FX for C++ Authors.
//
// fxrun with the folding passes (issue 23): fold_bn, const_fold, cse and dce on
// every torchvision fixture, at module and ATen level, checked against the
// TorchScript module; and the folded module saved as TorchScript and as a
// torch.export program, then read back and checked.
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/platform_bugs.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

std::string fixture(const std::string& name) {
  return ::fx::testing::runfile("tests/fixtures/" + name + ".pt");
}

class FoldingPipelineTest : public ::testing::TestWithParam<std::string> {};

// Every batch norm folds (fold_bn warns about each one it leaves), and the
// graph computes what the model computes, with --check's default tolerance:
// folded weights round differently (ResNet-50: outputs of mean |x| 20 move by
// up to 7.1e-5, beyond atol 1e-5 on the outputs near zero, as
// torch.jit.freeze's folding does), and --check tells that rounding apart
// from a change by running the model in float64 (tools/output_check.h).
TEST_P(FoldingPipelineTest, ChecksAgainstTheModelAtBothLevels) {
  for (const char* pipeline :
       {"fold_bn,const_fold,cse,dce", "inline{recurse=true},fold_bn,const_fold,cse,dce"}) {
    SCOPED_TRACE(pipeline);
    Result r = fxrun(absl::StrCat("--model=", fixture(GetParam()), " --passes=", pipeline,
                                  " --input-shape=1,3,224,224 --print=tabular --check"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("check: max abs difference "));
    EXPECT_THAT(r.out, HasSubstr(": ok\n"));
    EXPECT_THAT(r.err, Not(HasSubstr("fold_bn")));
    EXPECT_THAT(r.out, Not(HasSubstr("batch_norm")));
    EXPECT_THAT(r.out, HasSubstr("_weight_folded"));
  }
}

// With oneDNN's layout after folding (issue 23's speed): the convolutions
// that run in it are aten::mkldnn_convolution, and the outputs are checked.
TEST_P(FoldingPipelineTest, ChecksInOneDnnsLayout) {
  if (!::fx::testing::onednn_binary_ops_work()) GTEST_SKIP() << ::fx::testing::kOneDnnBinaryOpsBroken;
  Result r = fxrun(absl::StrCat(
      "--model=", fixture(GetParam()),
      " --passes=inline{recurse=true},fold_bn,const_fold,cse,dce,shape_prop{device=meta},"
      "mkldnn_layout,dce --input-shape=1,3,224,224 --print=tabular --check"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": ok\n"));
  if (GetParam() == "resnet18" || GetParam() == "resnet50") {
    EXPECT_THAT(r.out, HasSubstr("aten.mkldnn_convolution"));
    EXPECT_THAT(r.out, Not(HasSubstr("aten.conv2d")));
    EXPECT_THAT(r.err, Not(HasSubstr("mkldnn_layout")));
  }
}

// With oneDNN's post-ops after folding (libtorch 2.x): every convolution is
// fused, the outputs are checked; on 1.13 the pass says it has nothing to
// fuse with and the graph runs as folded.
TEST_P(FoldingPipelineTest, ChecksWithOneDnnPostOps) {
  if (!::fx::testing::onednn_binary_ops_work()) GTEST_SKIP() << ::fx::testing::kOneDnnBinaryOpsBroken;
  Result r = fxrun(absl::StrCat(
      "--model=", fixture(GetParam()),
      " --passes=inline{recurse=true},fold_bn,const_fold,cse,dce,shape_prop{device=meta},"
      "mkldnn_fusion,dce --input-shape=1,3,224,224 --threads=1 --print=tabular --check"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": ok\n"));
  if (TORCH_VERSION_MAJOR < 2) {
    EXPECT_THAT(r.err, HasSubstr("has no mkldnn::_convolution_pointwise"));
  } else if (GetParam() == "resnet18" || GetParam() == "resnet50" || GetParam() == "mobilenet_v2") {
    EXPECT_THAT(r.out, HasSubstr("mkldnn._convolution_pointwise.binary"));
    EXPECT_THAT(r.out, Not(HasSubstr("aten._convolution")));
    EXPECT_THAT(r.err, Not(HasSubstr("mkldnn_fusion")));
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, FoldingPipelineTest,
                         ::testing::Values("resnet18", "resnet50", "mobilenet_v2",
                                           "shufflenet_v2_x1_0", "googlenet"));

// The folded module saved as TorchScript holds the folded weights, not the
// batch norms, and computes what the model computes.
TEST(FoldingSaveTest, TheSavedTorchScriptModuleComputesTheSame) {
  const std::string saved = ::fx::testing::temporary_path("resnet18_folded.pt");
  Result r = fxrun(absl::StrCat("--model=", fixture("resnet18"),
                                " --passes=fold_bn,const_fold,dce{submodules=true} --print=none --save=",
                                saved));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  torch::jit::Module folded = torch::jit::load(saved);
  torch::jit::Module model = torch::jit::load(fixture("resnet18"));
  EXPECT_FALSE(folded.hasattr("bn1"));
  EXPECT_TRUE(folded.hasattr("conv1_weight_folded"));
  const at::Tensor x = at::randn({2, 3, 224, 224});
  EXPECT_TRUE(at::allclose(folded.forward({x}).toTensor(), model.forward({x}).toTensor(), 1e-4,
                           1e-5));
}

// A torch.export program: folded, saved as a program (the folded weights
// lifted as constants, the batch norm's state gone from the signature), read
// back and checked against what the eager model computed.
TEST(FoldingSaveTest, TheSavedProgramReadsBackAndChecks) {
  for (const char* version : {"2.6", "2.14"}) {
    SCOPED_TRACE(version);
    const std::string dir = ::fx::testing::runfile(absl::StrCat("tests/exported_programs/torch", version));
    const std::string saved = ::fx::testing::temporary_path(absl::StrCat("conv_net_folded_", version, ".pt2"));
    Result r = fxrun(absl::StrCat("--model=", dir, "/conv_net.pt2",
                                  " --passes=fold_bn,const_fold,dce{submodules=true} --print=none --save=",
                                  saved));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Result back = fxrun(absl::StrCat("--model=", saved, " --print=tabular --check --expected=", dir,
                                     "/conv_net.expected.pt"));
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_THAT(back.out, HasSubstr("check: max abs difference "));
    EXPECT_THAT(back.out, HasSubstr("conv_weight_folded"));
    EXPECT_THAT(back.out, Not(HasSubstr("running_mean")));
    EXPECT_THAT(back.out, Not(HasSubstr("batch_norm")));
  }
}

// oneDNN's layout on torch.export programs of torch 2.6 and 2.14; a graph
// holding its reordered weights is refused by every --save format, naming
// the attribute and what to do, and no file is left.
TEST(FoldingSaveTest, OneDnnsLayoutRunsExportedProgramsAndIsNotSaved) {
  if (!::fx::testing::onednn_binary_ops_work()) GTEST_SKIP() << ::fx::testing::kOneDnnBinaryOpsBroken;
  for (const char* version : {"2.6", "2.14"}) {
    SCOPED_TRACE(version);
    const std::string dir =
        ::fx::testing::runfile(absl::StrCat("tests/exported_programs/torch", version));
    // A program records every value's tensor_meta: no shape_prop needed.
    const std::string passes =
        " --passes=fold_bn,const_fold,cse,dce,mkldnn_layout{every_region=true},dce";
    Result r = fxrun(absl::StrCat("--model=", dir, "/conv_net.pt2", passes,
                                  " --print=tabular --check --expected=", dir,
                                  "/conv_net.expected.pt"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("aten.mkldnn_convolution"));
    EXPECT_THAT(r.out, HasSubstr(": ok\n"));
    for (const char* suffix : {".pt2", ".pt"}) {
      const std::string saved = ::fx::testing::temporary_path(absl::StrCat("mkldnn", suffix));
      Result s = fxrun(absl::StrCat("--model=", dir, "/conv_net.pt2", passes,
                                    " --print=none --save=", saved));
      EXPECT_NE(s.exit_code, 0);
      EXPECT_THAT(s.err, HasSubstr("is an MKLDNN tensor"));
      EXPECT_THAT(s.err, HasSubstr("save the graph before mkldnn_layout or mkldnn_fusion"));
      EXPECT_FALSE(std::ifstream(saved).good()) << saved << " was written";
    }
  }
}

}  // namespace
}  // namespace fx
