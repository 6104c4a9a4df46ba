// Copyright 2026 The FX for C++ Authors.
//
// fxrun_process.h: runs the fxrun binary from the test's runfiles, as a user
// would from a shell, within a time limit.
//
//   fx::testing::FxrunResult r = fx::testing::run_fxrun("--print=code");
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#ifndef FX_TESTS_TESTING_FXRUN_PROCESS_H_
#define FX_TESTS_TESTING_FXRUN_PROCESS_H_

#include <string>

namespace fx {
namespace testing {

struct FxrunResult {
  int exit_code = -1;  // -1: killed by a signal (a crash), or the time limit hit
  std::string out;
  std::string err;
};

// Runs `tools/fxrun <args>` (`args` in shell syntax) for at most `seconds`,
// with the environment changed by `env`, assignments in shell syntax as
// env(1) takes them (`PATH=/empty`).
FxrunResult run_fxrun(const std::string& args, const std::string& env = "", int seconds = 60);

// Expects `r` to be fxrun's answer to a bad input: exit status 1 and one line
// `fxrun: error: ...` holding `message`. `what` names the case in failures.
void expect_one_error_line(const FxrunResult& r, const std::string& message,
                           const std::string& what);

// `name` in the test's temporary directory ($TEST_TMPDIR).
std::string temporary_path(const std::string& name);

// Writes `bytes` to `path`, replacing it.
void write_file(const std::string& path, const std::string& bytes);

// `text` written `n` times: the deeply nested inputs hostile tests are made of.
std::string repeat(const std::string& text, int n);

// Starts `tools/fxrun <args>` (shell syntax; standard output and error to
// /dev/null) without waiting: its process id, for kill(2) and waitpid(2);
// -1 when it cannot start.
int start_fxrun(const std::string& args);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_FXRUN_PROCESS_H_
