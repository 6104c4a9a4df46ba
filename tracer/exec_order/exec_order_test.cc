// Copyright 2026 The FX for C++ Authors.
#include "tracer/exec_order/exec_order.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/exec_order_reference.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"

namespace fx {
namespace {

using ::testing::ElementsAre;

TEST(ExecOrderTest, ResNet18MatchesTheSeedsAlgorithmRunByTorchFx) {
  auto ext = std::make_shared<ExecOrderTracer>();
  Tracer tracer;
  tracer.add_extension(ext);
  auto gm = testing::trace_fixture_result("resnet18.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();

  testing::expect_seed_exec_order_of_resnet18(*gm);
  // The spot checks.
  EXPECT_THAT(std::vector<std::string>(ext->module_forward_order().begin(),
                                       ext->module_forward_order().begin() + 8),
              ElementsAre("", "conv1", "bn1", "relu", "maxpool", "layer1", "layer1.0",
                          "layer1.0.conv1"));
  EXPECT_THAT(std::vector<std::string>(ext->param_forward_order().begin(),
                                       ext->param_forward_order().begin() + 3),
              ElementsAre("conv1.weight", "bn1.weight", "bn1.bias"));
}

TEST(ExecOrderTest, DirectParameterUseComesFirst) {
  // MyModule reads linear.weight in `x + self.linear.weight` before calling linear.
  auto ext = std::make_shared<ExecOrderTracer>();
  Tracer tracer;
  tracer.add_extension(ext);
  auto gm = testing::trace_fixture_result("my_module.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_THAT(ext->param_forward_order(), ElementsAre("linear.weight", "linear.bias"));
  EXPECT_THAT(ext->module_forward_order(), ElementsAre("", "linear"));
  const auto& root = ext->param_usage("");
  ASSERT_EQ(root.size(), 2u);
  EXPECT_EQ(root[0].module, "");  // the root used linear.weight itself
  EXPECT_THAT(root[0].params, ElementsAre("linear.weight"));
  EXPECT_EQ(root[1].module, "linear");  // then called linear
  EXPECT_THAT(root[1].params, ElementsAre("linear.weight", "linear.bias"));
}

}  // namespace
}  // namespace fx
