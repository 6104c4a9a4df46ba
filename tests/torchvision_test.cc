// Copyright 2026 The FX for C++ Authors.
//
// torchvision classification models, scripted with Debian's torchvision, trace:
// their call_module nodes come in the order Python's torch.fx records them,
// the graphs lint, and they compute what the scripted models compute.
#include <fstream>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

class TorchvisionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchvisionTest, TracesLikeTorchFx) {
  const std::string name = GetParam();
  torch::jit::Module model = testing::load_fixture(name + ".pt");
  auto gm = Tracer().trace(model);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_TRUE(gm->lint().ok()) << gm->lint();

  std::vector<std::string> ours;
  for (const Node* n : gm->graph().find_nodes(Op::kCallModule)) ours.push_back(n->target());
  const std::vector<std::string> reference =
      testing::read_lines(testing::fixture_path(name + ".fx_call_modules.txt"));
  ASSERT_FALSE(reference.empty());
  if (reference[0].rfind("# torch.fx cannot trace", 0) == 0) {
    // Python's torch.fx fails on this model (see the file); we must not.
    EXPECT_FALSE(ours.empty());
  } else {
    EXPECT_EQ(ours, reference);
  }
  testing::expect_runs_like_the_module(*gm, model, testing::example_inputs(name));
}

INSTANTIATE_TEST_SUITE_P(Models, TorchvisionTest,
                         ::testing::Values("resnet18", "resnet50", "mobilenet_v2",
                                           "shufflenet_v2_x1_0", "googlenet"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace fx
