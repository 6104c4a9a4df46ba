// Copyright 2026 The FX for C++ Authors.
#include "fx/builtin_plugins.h"

#include <string>
#include <vector>

#include "fx/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"

namespace fx {
namespace {

using ::testing::Contains;

std::vector<std::string> plugin_names(const Registry& registry) {
  std::vector<std::string> names;
  for (const PluginRecord& p : registry.plugins()) names.push_back(p.name);
  return names;
}

// Every in-tree pass and tracer extension, in-process: what loading the
// in-tree plugins' files would register, each under its own name.
TEST(BuiltinPluginsTest, RegistersEveryInTreePluginUnderItsName) {
  Registry registry;
  ASSERT_TRUE(register_builtin_plugins(registry).ok());
  EXPECT_EQ(plugin_names(registry), builtin_plugin_names());
  for (const PluginRecord& p : registry.plugins()) {
    EXPECT_EQ(p.version, kFxVersion) << p.name;
    EXPECT_EQ(p.path, "") << p.name;
  }
  for (const char* pass : {"compile", "const_fold", "cse", "dce", "fold_bn", "inline", "invert",
                           "mkldnn_layout", "normalize_args",
                           "rewrite", "shape_prop", "split", "transpose_linear"}) {
    EXPECT_NE(registry.find_pass(pass), nullptr) << pass;
  }
  std::vector<std::string> extensions;
  for (const TracerExtensionInfo& e : registry.tracer_extensions()) extensions.push_back(e.name);
  for (const char* extension : {"exec_order", "leaf_policy", "module_path", "tagging"}) {
    EXPECT_THAT(extensions, Contains(extension));
  }
  EXPECT_TRUE(PassManager::create("inline,fold_bn,const_fold,cse,dce", registry).ok());
}

// Twice, or after one of them came from elsewhere: nothing is registered twice.
TEST(BuiltinPluginsTest, APluginTheRegistryHoldsIsLeftAsItIs) {
  Registry registry;
  PluginRegistrar own({"dce", "7.0", "/opt/libfx_dce.so"});
  ASSERT_TRUE(registry.commit(own).ok());
  ASSERT_TRUE(register_builtin_plugins(registry).ok());
  ASSERT_TRUE(register_builtin_plugins(registry).ok());
  EXPECT_EQ(registry.plugins().size(), builtin_plugin_names().size());
  for (const PluginRecord& p : registry.plugins()) {
    if (p.name == "dce") {
      EXPECT_EQ(p.version, "7.0");
    }
  }
}

}  // namespace
}  // namespace fx
