// Copyright 2026 The FX for C++ Authors.
//
// Loading plugins through the shared core (libfx.so), as fxrun does: the
// registrations land in the one registry, and every loading error is a clear
// message naming the file, the versions or the plugins involved.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/fx_plugin.h"
#include "plugins/plugin_loader.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::fx::testing::runfile;

std::string message_of(const absl::Status& s) { return std::string(s.message()); }

TEST(PluginLoaderTest, LoadsAPluginIntoTheGlobalRegistry) {
  auto loaded = load_plugin(runfile("tests/plugins/libhello.so"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->name, "hello");
  EXPECT_EQ(loaded->version, "0.1");
  const PassInfo* pass = Registry::global().find_pass("hello");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->plugin.name, "hello");
  EXPECT_EQ(pass->options.at(0).name, "who");
  EXPECT_NE(Registry::global().find_tracer_extension("hello"), nullptr);
  auto table = Registry::global().table("invert.inverses");
  EXPECT_THAT(table, ::testing::Contains(std::make_pair(std::string("erf"),
                                                        std::string("erfinv"))));
  // Loading the same file again is harmless.
  auto again = load_plugin(runfile("tests/plugins/libhello.so"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->path, loaded->path);
  EXPECT_EQ(Registry::global().table("invert.inverses").size(), table.size());
}

TEST(PluginLoaderTest, MissingFile) {
  auto s = load_plugin("/no/such/plugin.so").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(message_of(s), HasSubstr("plugin file not found: /no/such/plugin.so"));
}

TEST(PluginLoaderTest, NotASharedLibrary) {
  const std::string path = runfile("tests/plugins/not_a_library.txt");
  auto s = load_plugin(path).status();
  EXPECT_THAT(message_of(s), HasSubstr("cannot load plugin " + path));
  EXPECT_THAT(message_of(s), HasSubstr("invalid ELF header"));  // dlerror's text
}

TEST(PluginLoaderTest, NoEntryPoint) {
  auto s = load_plugin(runfile("tests/plugins/libno_entry_point.so")).status();
  EXPECT_THAT(message_of(s), HasSubstr("is not an FX plugin: it exports no fxGetPluginInfo"));
}

TEST(PluginLoaderTest, EntryPointThatIsDataIsRefusedNotCalled) {
  auto s = load_plugin(runfile("tests/plugins/libdata_entry_point.so")).status();
  EXPECT_THAT(message_of(s), HasSubstr("is not an FX plugin: its fxGetPluginInfo is not a function"));
}

TEST(PluginLoaderTest, RegistrationThatThrowsIsRefusedAndLeavesNothing) {
  auto s = load_plugin(runfile("tests/plugins/libthrowing.so")).status();
  EXPECT_THAT(message_of(s), HasSubstr("threw while registering: cannot find my configuration file"));
  EXPECT_EQ(Registry::global().find_pass("throwing_pass"), nullptr);
  for (const PluginRecord& p : Registry::global().plugins()) EXPECT_NE(p.name, "throwing");
}

TEST(PluginLoaderTest, WrongApiVersionNamesBothVersions) {
  auto s = load_plugin(runfile("tests/plugins/libwrong_version.so")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(message_of(s), HasSubstr("built for plugin API version 999"));
  EXPECT_THAT(message_of(s), HasSubstr(absl::StrCat("implements version ", FX_PLUGIN_API_VERSION)));
}

// Loading it would map the other libfx, which aborts the process (as a real
// second libfx does in libtorch's registration of its operators).
TEST(PluginLoaderTest, PluginLinkingAnotherLibfxIsRefusedBeforeItLoads) {
  const std::string path = runfile("tests/plugins/liblinks_other_libfx.so");
  auto s = load_plugin(path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(message_of(s), HasSubstr("plugin " + path + " links libfx.so.0.1 but this program runs libfx.so ("));
  EXPECT_THAT(message_of(s), HasSubstr("rebuild the plugin against the SDK"));
  for (const PluginRecord& p : Registry::global().plugins()) EXPECT_NE(p.name, "links_other_libfx");
}

TEST(PluginLoaderTest, NameClashNamesBothPlugins) {
  ASSERT_TRUE(load_plugin(runfile("passes/dce/libfx_dce.so")).ok());
  auto s = load_plugin(runfile("tests/plugins/libduplicate_pass.so")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(message_of(s), HasSubstr("plugin 'duplicate_pass'"));
  EXPECT_THAT(message_of(s), HasSubstr("registers pass 'dce', which plugin 'dce'"));
  EXPECT_THAT(message_of(s), HasSubstr("libfx_dce.so"));
  // Nothing of the refused plugin was registered.
  EXPECT_EQ(Registry::global().find_pass("dce")->plugin.name, "dce");
}

TEST(PluginLoaderTest, InTreePluginsLoadLikeAnyOther) {
  for (const char* path :
       {"tracer/module_path/libfx_module_path.so", "tracer/tagging/libfx_tagging.so",
        "tracer/exec_order/libfx_exec_order.so", "tracer/leaf_policy/libfx_leaf_policy.so"}) {
    auto loaded = load_plugin(runfile(path));
    EXPECT_TRUE(loaded.ok()) << path << ": " << loaded.status();
  }
  for (const char* name : {"module_path", "tagging", "exec_order", "leaf_policy"}) {
    EXPECT_NE(Registry::global().find_tracer_extension(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace fx
