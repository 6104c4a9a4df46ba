// Copyright 2026 The FX for C++ Authors.
#include "tracer/exec_order/exec_order.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace fx {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> strings(const MetaValue& list) {
  std::vector<std::string> out;
  for (const MetaValue& v : list.to_list()) out.push_back(v.to_string());
  return out;
}

TEST(ExecOrderTest, ResNet18MatchesTheSeedsAlgorithmRunByTorchFx) {
  auto ext = std::make_shared<ExecOrderTracer>();
  Tracer tracer;
  tracer.add_extension(ext);
  auto gm = tracer.trace(testing::load_fixture("resnet18.pt"));
  ASSERT_TRUE(gm.ok()) << gm.status();

  std::ifstream in(testing::fixture_path("resnet18.exec_order.json"));
  const nlohmann::json want = nlohmann::json::parse(in);
  const Meta& got = gm->meta().find("exec_order")->to_map();

  EXPECT_EQ(strings(*got.find("module_forward_order")),
            want["module_forward_order"].get<std::vector<std::string>>());
  EXPECT_EQ(strings(*got.find("param_forward_order")),
            want["param_forward_order"].get<std::vector<std::string>>());
  const Meta& usage = got.find("module_param_usage")->to_map();
  ASSERT_EQ(usage.size(), want["module_param_usage"].size());
  for (const auto& [module, groups] : want["module_param_usage"].items()) {
    const MetaValue* ours = usage.find(module);
    ASSERT_NE(ours, nullptr) << module;
    ASSERT_EQ(ours->to_list().size(), groups.size()) << module;
    for (size_t i = 0; i < groups.size(); ++i) {
      const Meta& group = ours->to_list()[i].to_map();
      EXPECT_EQ(group.find("module")->to_string(), groups[i]["module"].get<std::string>());
      EXPECT_EQ(strings(*group.find("params")), groups[i]["params"].get<std::vector<std::string>>());
    }
  }
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
  auto gm = tracer.trace(testing::load_fixture("my_module.pt"));
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
