// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/fxrun_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace testing {

FxrunResult run_fxrun(const std::string& args, const std::string& env, int seconds) {
  const std::string err_path = absl::StrCat(getenv("TEST_TMPDIR"), "/fxrun.err");
  const std::string command = absl::StrCat("timeout ", seconds, " ", env.empty() ? "" : "env " + env + " ",
                                           runfile("tools/fxrun"), " ", args, " 2>", err_path);
  FxrunResult r;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (r.exit_code == 124) r.exit_code = -1;  // timeout's status
  r.err = read_file(err_path);
  return r;
}

void expect_one_error_line(const FxrunResult& r, const std::string& message,
                           const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err.substr(0, 2000);
  EXPECT_THAT(r.err, ::testing::StartsWith("fxrun: error: ")) << what;
  EXPECT_THAT(r.err, ::testing::HasSubstr(message)) << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err.substr(0, 2000);
}

std::string temporary_path(const std::string& name) {
  return absl::StrCat(getenv("TEST_TMPDIR"), "/", name);
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string repeat(const std::string& text, int n) {
  std::string out;
  out.reserve(text.size() * n);
  for (int i = 0; i < n; ++i) out += text;
  return out;
}

int start_fxrun(const std::string& args) {
  const std::string command =
      absl::StrCat("exec ", runfile("tools/fxrun"), " ", args, " >/dev/null 2>&1");
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace testing
}  // namespace fx
