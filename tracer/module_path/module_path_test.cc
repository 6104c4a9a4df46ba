// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/runfiles.h"
#include "tracer/module_path/module_path.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"

namespace fx {
namespace {

TEST(ModulePathTest, ResNet18NodesCarryTheSeedsModulePaths) {
  Tracer tracer;
  tracer.add_extension(std::make_shared<ModulePathTracer>());
  auto gm = testing::trace_fixture_result("resnet18.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();
  const std::vector<std::string> want =
      testing::read_lines(testing::runfile("tests/seeds/000_resnet18_module_paths.txt"));
  std::vector<std::string> got;
  for (const Node* n : gm->graph().nodes()) {
    const MetaValue* path = n->meta().find("module_path");
    got.push_back(std::string(absl::StripTrailingAsciiWhitespace(absl::StrCat(
        "Node ", n->name(), " is from module ", path == nullptr ? "None" : path->to_string()))));
  }
  EXPECT_EQ(got, want);
}

TEST(ModulePathTest, RegistersAsAnExtensionWithoutOptions) {
  Registry registry;
  PluginRegistrar r({"module_path", "1.0", ""});
  register_module_path(r);
  ASSERT_TRUE(registry.commit(r).ok());
  const TracerExtensionInfo* info = registry.find_tracer_extension("module_path");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(info->options.empty());
  EXPECT_TRUE(info->factory(OptionValues()).ok());
}

}  // namespace
}  // namespace fx
