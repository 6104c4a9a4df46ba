// Copyright 2026 The FX for C++ Authors.
//
// Seed 000's inliner and inverter as the in-tree pass plugins, loaded through
// the same loader fxrun uses and run from pipeline strings.
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/api/module.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"
#include "plugins/fx_plugin.h"
#include "plugins/plugin_loader.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/runfiles.h"
#include "tracer/symbolic_trace.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::fx::testing::runfile;

class SeedPassesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* plugin : {"passes/inline/libfx_inline.so", "passes/invert/libfx_invert.so",
                               "passes/dce/libfx_dce.so"}) {
      auto loaded = load_plugin(runfile(plugin));
      ASSERT_TRUE(loaded.ok()) << loaded.status();
    }
  }

  absl::Status run(GraphModule& gm, absl::string_view pipeline) {
    auto pm = PassManager::create(pipeline, Registry::global());
    if (!pm.ok()) return pm.status();
    PassContext ctx(Registry::global());
    return pm->run(gm, ctx);
  }
};

TEST_F(SeedPassesTest, InlineReplacesSelfReluInM) {
  torch::jit::Module m = testing::load_fixture("m_relu_add.pt");
  auto gm = Tracer().trace(m);
  ASSERT_TRUE(gm.ok());
  ASSERT_EQ(gm->graph().find_nodes(Op::kCallModule, "relu").size(), 1u);
  at::Tensor x = at::randn({3, 4});
  const at::Tensor before = (*gm)({x})->toTensor();
  ASSERT_TRUE(run(*gm, "inline{modules=relu},dce").ok());
  EXPECT_THAT(gm->graph().find_nodes(Op::kCallModule), IsEmpty());
  EXPECT_EQ(gm->code(),
            "def forward(self, x):\n"
            "    relu_1 = torch.nn.functional.relu(x, inplace = False);  x = None\n"
            "    add = torch.ops.aten.add.Scalar(relu_1, 1.0);  relu_1 = None\n"
            "    return add\n");
  EXPECT_TRUE(at::allclose((*gm)({x})->toTensor(), before));
}

TEST_F(SeedPassesTest, InvertUndoesExpTan) {
  auto f = [](auto x) { return exp(tan(x)); };
  GraphModule res = symbolic_trace(f, "x");
  ASSERT_TRUE(run(res, "invert").ok());
  at::Tensor x = at::arange(5) + 1;
  at::Tensor back = f(res({x})->toTensor());
  EXPECT_TRUE(at::allclose(back, x.to(at::kFloat), 1e-4, 1e-4)) << back;

  // The scripted module f, traced, inverted the same way.
  auto gm = Tracer().trace(testing::load_fixture("exp_tan.pt"));
  ASSERT_TRUE(run(*gm, "invert,dce").ok());
  EXPECT_TRUE(at::allclose(f((*gm)({x})->toTensor()), x.to(at::kFloat), 1e-4, 1e-4));
}

TEST_F(SeedPassesTest, ResNet18InlinedByThePlugin) {
  torch::jit::Module m = testing::load_fixture("resnet18.pt");
  auto gm = Tracer().trace(m);
  ASSERT_TRUE(run(*gm, "inline,dce{submodules=true}").ok());
  EXPECT_THAT(gm->graph().find_nodes(Op::kCallModule), IsEmpty());
  EXPECT_TRUE(gm->lint().ok());
  // Only what the graph reads is left: parameters and buffers, in fresh
  // containers; the modules themselves (layer1.0.relu, ...) are gone.
  EXPECT_FALSE(gm->has_submodule("layer1.0.relu"));
  EXPECT_TRUE(gm->get_attr("layer1.0.conv1.weight").ok());
  EXPECT_TRUE(gm->get_attr("layer1.0.bn1.running_mean").ok());
  at::Tensor x = at::rand({1, 3, 224, 224});
  EXPECT_TRUE(at::allclose((*gm)({x})->toTensor(), m.forward({x}).toTensor(), 1e-4, 1e-5));
}

TEST_F(SeedPassesTest, PipelineErrorsComeFromTheRegistry) {
  auto gm = Tracer().trace(testing::load_fixture("m1.pt"));
  EXPECT_THAT(std::string(run(*gm, "inlne").message()), HasSubstr("did you mean 'inline'?"));
  EXPECT_THAT(std::string(run(*gm, "invert").message()),
              HasSubstr("pass 'invert' failed: node 'relu' (call_module relu)"));
}

}  // namespace
}  // namespace fx
