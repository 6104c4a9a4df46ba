// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/exec_order_reference.h"

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace fx {
namespace testing {
namespace {

std::vector<std::string> strings(const MetaValue& list) {
  std::vector<std::string> out;
  for (const MetaValue& v : list.to_list()) out.push_back(v.to_string());
  return out;
}

}  // namespace

void expect_seed_exec_order_of_resnet18(const GraphModule& gm) {
  std::ifstream in(fixture_path("resnet18.exec_order.json"));
  const nlohmann::json want = nlohmann::json::parse(in);
  const MetaValue* found = gm.meta().find("exec_order");
  ASSERT_NE(found, nullptr) << "no exec_order meta: was the exec_order extension on the tracer?";
  const Meta& got = found->to_map();
  SCOPED_TRACE("reference: " + want.value("reference", std::string("?")));
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
      EXPECT_EQ(group.find("module")->to_string(), groups[i]["module"].get<std::string>()) << module;
      EXPECT_EQ(strings(*group.find("params")), groups[i]["params"].get<std::vector<std::string>>())
          << module;
    }
  }
}

}  // namespace testing
}  // namespace fx
