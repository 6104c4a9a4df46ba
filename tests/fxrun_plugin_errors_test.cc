// Copyright 2026 The FX for C++ Authors.
//
// fxrun under a hostile user, plugins: plugin code that throws (anything) or
// crashes, and registrations no pipeline can use. An exception is one
// `fxrun: error: ...` line naming the plugin and what it was doing, exit
// status 1; a crash prints that line before fxrun dies of the signal.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::fx::testing::expect_one_error_line;
using ::fx::testing::read_file;
using ::fx::testing::runfile;
using ::fx::testing::temporary_path;
using ::fx::testing::write_file;

using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args, const std::string& env = "") {
  return ::fx::testing::run_fxrun(args, env);
}

std::string crashy() { return "--plugin=" + runfile("tests/plugins/libcrashy.so"); }

TEST(FxrunPluginErrorsTest, PluginCodeThatThrowsIsAnErrorNamingThePluginAndThePass) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt") + " --print=none ";
  const std::string plugin = "libcrashy.so)";
  for (const auto& [how, what] : std::vector<std::pair<std::string, std::string>>{
           {"throw_std", "the plugin's own std::runtime_error"},
           {"throw_c10", "the plugin's own c10::Error"},
           {"throw_int", "an exception that is not a std::exception"}}) {
    expect_one_error_line(fxrun(m1 + crashy() + " --passes='crash{how=" + how + "}'"),
                 plugin + " threw while running pass 'crash': " + what, how);
    expect_one_error_line(fxrun(m1 + crashy() + " --tracer='module_path,crash{how=" + how + "}'"),
                 plugin + " threw while in create_node of tracer extension 'crash': " + what, how);
  }
  const std::string misbehaving = "--plugin=" + runfile("tests/plugins/libmisbehaving.so");
  for (const auto& [how, what] : std::vector<std::pair<std::string, std::string>>{
           {"entry_throws_std", "threw while calling its fxGetPluginInfo: the entry point's own exception"},
           {"entry_throws_int", "threw while calling its fxGetPluginInfo: an exception that is not"},
           {"register_throws_int", "threw while registering: an exception that is not"}}) {
    expect_one_error_line(fxrun(m1 + misbehaving, "FX_TEST_MISBEHAVE=" + how), what, how);
  }
}

TEST(FxrunPluginErrorsTest, APluginThatCrashesIsNamedWithWhatItWasDoing) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt") + " --print=none ";
  // (The plugin's path is its real path, not the runfiles link.)
  const std::string plugin = "fxrun: error: plugin 'crashy' (";
  for (const auto& [how, signal] : std::vector<std::pair<std::string, std::string>>{
           {"segv", "SIGSEGV"}, {"stack", "SIGSEGV"}, {"fpe", "SIGFPE"}, {"abort", "SIGABRT"}}) {
    // fxrun still dies of the signal (the shell's status 128 + signal), after one line.
    Result pass = fxrun(m1 + crashy() + " --passes='crash{how=" + how + "}'");
    EXPECT_TRUE(pass.exit_code == -1 || pass.exit_code > 128) << how << ": " << pass.exit_code;
    EXPECT_THAT(pass.err, ::testing::StartsWith(plugin)) << how << ": " << pass.err;
    EXPECT_THAT(pass.err, HasSubstr("libcrashy.so) crashed (" + signal)) << how << ": " << pass.err;
    EXPECT_THAT(pass.err, HasSubstr(") while running pass 'crash'\n")) << how;
    Result extension = fxrun(m1 + crashy() + " --tracer='module_path,crash{how=" + how + "}'");
    EXPECT_TRUE(extension.exit_code == -1 || extension.exit_code > 128) << how;
    EXPECT_THAT(extension.err, HasSubstr(") while in create_node of tracer extension 'crash'\n"))
        << how << ": " << extension.err;
  }
}

// Issue 36 (round 3's malicious plugins): a pass that raises SIGTERM died
// with no line; an abort in a plugin's static initializer did not name the
// plugin; an extension whose create_node returned null made fxrun blame
// module_path; a pass that never returns: nothing named it.
TEST(FxrunPluginErrorsTest, PluginsThatEndTheProcessHangOrReturnNothingAreNamed) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt") + " --print=none ";
  Result term = fxrun(m1 + crashy() + " --passes='crash{how=sigterm}'");
  EXPECT_TRUE(term.exit_code == -1 || term.exit_code > 128) << term.exit_code;
  EXPECT_THAT(term.err, ::testing::StartsWith("fxrun: error: SIGTERM ended the process while plugin 'crashy' ("));
  EXPECT_THAT(term.err, HasSubstr(" was running pass 'crash'"));

  Result load = fxrun(m1 + "--plugin=" + runfile("tests/plugins/libmisbehaving.so"),
                      "FX_TEST_MISBEHAVE=static_abort");
  EXPECT_TRUE(load.exit_code == -1 || load.exit_code > 128) << load.exit_code;
  EXPECT_THAT(load.err, ::testing::StartsWith("fxrun: error: plugin "));
  EXPECT_THAT(load.err, HasSubstr("libmisbehaving.so crashed (SIGABRT, an abort) while being loaded"));

  expect_one_error_line(fxrun(m1 + crashy() + " --tracer='module_path,crash{how=null}'"),
                        "plugin 'crashy' (", "null node");
  Result null = fxrun(m1 + crashy() + " --tracer='module_path,crash{how=null}'");
  EXPECT_THAT(null.err, HasSubstr("tracer extension 'crash' returned no node from create_node"));
  EXPECT_THAT(null.err, Not(HasSubstr("module_path")));

  Result loop = fxrun(m1 + crashy() + " --passes='crash{how=loop}' --pass-timeout=1");
  expect_one_error_line(loop, "plugin 'crashy' (", "endless pass");
  EXPECT_THAT(loop.err, HasSubstr(") did not finish running pass 'crash' in 1s; stopped (--pass-timeout sets the limit)"));
  expect_one_error_line(fxrun(m1 + "--pass-timeout=-1"), "--pass-timeout takes the seconds", "negative");
}

TEST(FxrunPluginErrorsTest, RegistrationsNoPipelineCanUseAreRefused) {
  const std::string m1 = "--model=" + runfile("tests/fixtures/m1.pt") + " --print=none ";
  const std::string misbehaving = "--plugin=" + runfile("tests/plugins/libmisbehaving.so");
  for (const auto& [how, what] : std::vector<std::pair<std::string, std::string>>{
           {"empty_name", "names itself '' (FxPluginInfo::name)"},
           {"escape_name", "names itself 'bad\\x1b[2Jname'"},
           {"comma_pass", "registers pass 'a,b': a name of letters"},
           {"brace_pass", "registers pass 'a{b'"},
           {"space_pass", "registers pass 'a b'"},
           {"fixpoint_pass", "registers pass 'fixpoint': 'fixpoint' is the pass manager's group"},
           {"duplicate_option", "registers pass 'two_levels': option 'level' is declared twice"},
           {"default_not_a_choice", "option 'mode': its default 'medium' is not one of its choices"},
           {"second_inverse", "adds key 'exp' to table 'invert.inverses', which plugin 'invert'"},
           {"two_line_description", "its description is not one line of printable text"}}) {
    Result r = fxrun(m1 + misbehaving, "FX_TEST_MISBEHAVE=" + how);
    expect_one_error_line(r, what, how);
    EXPECT_THAT(r.err, Not(HasSubstr("\x1b"))) << how;
  }
  // Without misbehaviour it loads.
  Result fine = fxrun(m1 + misbehaving + " --passes=nothing");
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

TEST(FxrunPluginErrorsTest, ACutShortLibraryIsRefusedBeforeItIsMapped) {
  // dlopen maps the segments the file lacks and dies of SIGBUS touching them.
  const std::string cut = temporary_path("libcut.so");
  write_file(cut, read_file(runfile("tests/plugins/libhello.so")).substr(0, 20000));
  expect_one_error_line(fxrun("--plugin=" + cut), "plugin " + cut + " is cut short: it has 20000 bytes",
               "plugin");
  expect_one_error_line(fxrun("--op-library=" + cut), "--op-library " + cut + " is cut short", "op library");
}

}  // namespace
}  // namespace fx
