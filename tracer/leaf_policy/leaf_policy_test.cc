// Copyright 2026 The FX for C++ Authors.
#include "tracer/leaf_policy/leaf_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"

namespace fx {
namespace {

absl::StatusOr<GraphModule> trace_with(const std::string& fixture, OptionValues options) {
  Registry registry;
  PluginRegistrar r({"leaf_policy", "1.0", ""});
  register_leaf_policy(r);
  EXPECT_TRUE(registry.commit(r).ok());
  auto ext = registry.find_tracer_extension("leaf_policy")->factory(options);
  if (!ext.ok()) return ext.status();
  Tracer tracer;
  tracer.add_extension(*ext);
  return testing::trace_fixture_result(fixture, tracer);
}

TEST(LeafPolicyTest, TraceThroughReluIsTheSeedsLowerReluTracer) {
  auto gm = trace_with("m1.pt", OptionValues({{"trace_through", "ReLU"}}));
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_EQ(gm->graph().find_node("relu")->op(), Op::kCallFunction);
}

TEST(LeafPolicyTest, LeavesByClassOrQualifiedName) {
  auto blocks = trace_with("resnet18.pt", OptionValues({{"leaves", "BasicBlock"}}));
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  std::vector<std::string> modules;
  for (const Node* n : blocks->graph().find_nodes(Op::kCallModule)) modules.push_back(n->target());
  EXPECT_THAT(modules, ::testing::ElementsAre("conv1", "bn1", "relu", "maxpool", "layer1.0",
                                              "layer1.1", "layer2.0", "layer2.1", "layer3.0",
                                              "layer3.1", "layer4.0", "layer4.1", "avgpool", "fc"));
  auto one = trace_with("resnet18.pt", OptionValues({{"leaves", "layer4.1"}}));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->graph().find_nodes(Op::kCallModule, "layer4.1").size(), 1u);
}

TEST(LeafPolicyTest, NeedsAnOption) {
  auto gm = trace_with("m1.pt", OptionValues());
  EXPECT_THAT(std::string(gm.status().message()), ::testing::HasSubstr("needs trace_through= or leaves="));
}

}  // namespace
}  // namespace fx
