// Copyright 2026 The FX for C++ Authors.
#include "plugins/plugin_guard.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/crash.h"

namespace fx {
namespace {

const PluginRecord kPlugin{"crashy", "1.0", "/lib/libcrashy.so"};

// Crashes the way `how` says, as plugin code running pass 'crash'.
void crash_in_plugin(const std::string& how) {
  install_crash_report("host");
  PluginActivity activity(kPlugin, "running pass 'crash'");
  ::fx::testing::fail_by(how);
}

TEST(PluginGuardDeathTest, ACrashInPluginCodeNamesThePluginAndWhatItDid) {
  const std::string line =
      "host: error: plugin 'crashy' \\(/lib/libcrashy.so\\) crashed \\(%s\\) while running pass "
      "'crash'";
  auto expected = [&](const char* sig) {
    char buffer[512];
    std::snprintf(buffer, sizeof(buffer), line.c_str(), sig);
    return std::string(buffer);
  };
  // The process still dies of the signal, as without the report.
  EXPECT_EXIT(crash_in_plugin("segv"), ::testing::KilledBySignal(SIGSEGV),
              expected("SIGSEGV, a segmentation fault or stack overflow"));
  // On the handler's own stack: the thread's is used up.
  EXPECT_EXIT(crash_in_plugin("stack"), ::testing::KilledBySignal(SIGSEGV),
              expected("SIGSEGV, a segmentation fault or stack overflow"));
  EXPECT_EXIT(crash_in_plugin("fpe"), ::testing::KilledBySignal(SIGFPE),
              expected("SIGFPE, an arithmetic error"));
  EXPECT_EXIT(crash_in_plugin("abort"), ::testing::KilledBySignal(SIGABRT),
              expected("SIGABRT, an abort"));
}

TEST(PluginGuardDeathTest, ACrashInHostCodeIsNotBlamedOnThePlugin) {
  auto crash_in_host_called_from_plugin = [] {
    install_crash_report("host");
    PluginActivity activity(kPlugin, "running pass 'crash'");
    PluginActivity::Host host;  // the rest of a hook chain
    std::abort();
  };
  EXPECT_EXIT(crash_in_host_called_from_plugin(), ::testing::KilledBySignal(SIGABRT),
              "host: error: crashed \\(SIGABRT, an abort\\); this is a bug");
  auto crash_after_plugin_code = [] {
    install_crash_report("host");
    { PluginActivity activity(kPlugin, "running pass 'crash'"); }
    std::abort();
  };
  EXPECT_EXIT(crash_after_plugin_code(), ::testing::KilledBySignal(SIGABRT),
              "host: error: crashed \\(SIGABRT, an abort\\); this is a bug");
}

TEST(PluginGuardTest, ExceptionsBecomeErrorsNamingThePlugin) {
  EXPECT_EQ(call_plugin(kPlugin, "running pass 'crash'",
                        []() -> absl::Status { throw std::runtime_error("disk full\nmore"); })
                .message(),
            "plugin 'crashy' (/lib/libcrashy.so) threw while running pass 'crash': disk full");
  EXPECT_EQ(call_plugin(kPlugin, "registering", []() -> absl::Status { throw 42; }).message(),
            "plugin 'crashy' (/lib/libcrashy.so) threw while registering: an exception that is "
            "not a std::exception");
  EXPECT_EQ(call_plugin(kPlugin, "registering", [] { return absl::NotFoundError("own"); }),
            absl::NotFoundError("own"));
  // Before its entry point said its name, a plugin is its file.
  EXPECT_EQ(describe_plugin(PluginRecord{"", "", "/lib/libx.so"}), "/lib/libx.so");
  EXPECT_EQ(describe_plugin(PluginRecord{"x", "", ""}), "'x' (built in)");
}

}  // namespace
}  // namespace fx
