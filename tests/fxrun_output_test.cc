// Copyright 2026 The FX for C++ Authors.
//
// What fxrun's --output and --save do to the file they replace: keep its
// mode, and leave it untouched or complete, with no temporary file beside
// it, when a signal ends fxrun while it writes.
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::fx::testing::read_file;
using ::fx::testing::runfile;
using Result = ::fx::testing::FxrunResult;

std::string temp_dir(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  for (dirent* e = ::readdir(d); e != nullptr; e = ::readdir(d)) {
    if (e->d_name[0] != '.') out.push_back(e->d_name);
  }
  ::closedir(d);
  return out;
}

TEST(FxrunOutputTest, OutputAndSaveKeepTheModeOfTheFilesTheyReplace) {
  const std::string dir = temp_dir("modes");
  const std::string table = dir + "/table.txt";
  const std::string saved = dir + "/saved.pt";
  for (const std::string& path : {table, saved}) {
    write_file(path, "private");
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  }
  const std::string model = runfile("tests/fixtures/m_relu_add.pt");
  Result r = ::fx::testing::run_fxrun(
      absl::StrCat("--model=", model, " --output=", table, " --save=", saved));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(read_file(table), ::testing::HasSubstr("placeholder"));
  EXPECT_EQ(mode_of(table), 0600u);
  EXPECT_EQ(mode_of(saved), 0600u);
  EXPECT_NO_THROW(torch::jit::load(saved));
}

// A model whose --save writes 64 MiB: fxrun is still writing the temporary
// file well after it appears.
std::string large_model(const std::string& dir) {
  const std::string path = dir + "/large.pt";
  if (::access(path.c_str(), F_OK) == 0) return path;
  torch::jit::Module m(c10::QualifiedName("__torch__.Large"),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.register_parameter("weight", at::zeros({16 << 20}), /*is_buffer=*/false);
  m.define("def forward(self, x):\n    return x * self.weight\n");
  m.save(path);
  return path;
}

// Starts `fxrun --save=TARGET` and sends `signal_number` the moment the
// temporary TARGET.fxrun-XXXXXX appears (inotify tells when; no sleeping).
// True when the signal ended fxrun; false when fxrun finished first (the
// caller tries again).
bool interrupt_save(const std::string& model, const std::string& target, int signal_number) {
  const std::string dir = target.substr(0, target.rfind('/'));
  const std::string prefix = target.substr(target.rfind('/') + 1) + ".fxrun-";
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  EXPECT_GE(watch, 0);
  EXPECT_GE(::inotify_add_watch(watch, dir.c_str(), IN_CREATE), 0);
  const int pid = ::fx::testing::start_fxrun(
      absl::StrCat("--model=", model, " --print=none --save=", target));
  EXPECT_GT(pid, 0);
  bool signalled = false;
  int status = 0;
  for (int waited_ms = 0; !signalled && waited_ms < 120000; waited_ms += 100) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ::close(watch);
      return false;  // finished before its temporary file was seen
    }
    pollfd p{watch, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    alignas(inotify_event) char events[8192];
    const ssize_t n = ::read(watch, events, sizeof(events));
    for (ssize_t at = 0; at < n && !signalled;) {
      const auto* e = reinterpret_cast<const inotify_event*>(events + at);
      if (e->len > 0 && absl::StartsWith(e->name, prefix)) {
        ::kill(pid, signal_number);
        signalled = true;
      }
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
  }
  ::close(watch);
  if (!signalled) ::kill(pid, SIGKILL);
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(signalled) << "fxrun --save never created its temporary file";
  return WIFSIGNALED(status) && WTERMSIG(status) == signal_number;
}

class FxrunSignalTest : public ::testing::TestWithParam<int> {};

// Issues 20 and 25: the partial TARGET.fxrun-XXXXXX (up to 512 MiB) stayed
// beside the intact target.
TEST_P(FxrunSignalTest, ASignalWhileSaveWritesLeavesTheTargetAsItWasAndNoTemporary) {
  const int signal_number = GetParam();
  const std::string dir = temp_dir(absl::StrCat("signal_", signal_number));
  const std::string model = large_model(temp_dir("models"));
  const std::string target = dir + "/saved.pt";
  bool caught = false;
  for (int attempt = 0; attempt < 5 && !caught; ++attempt) {
    write_file(target, "the previous file");
    caught = interrupt_save(model, target, signal_number);
    if (!caught) continue;
    EXPECT_EQ(read_file(target), "the previous file");
    if (signal_number == SIGKILL) {
      // Not catchable: what it leaves is the partial temporary, as documented.
      for (const std::string& name : files_in(dir)) {
        if (name != "saved.pt") std::remove((dir + "/" + name).c_str());
      }
    }
    EXPECT_THAT(files_in(dir), ::testing::ElementsAre("saved.pt"));
  }
  EXPECT_TRUE(caught) << "fxrun always finished before the signal";
}

INSTANTIATE_TEST_SUITE_P(Signals, FxrunSignalTest, ::testing::Values(SIGINT, SIGTERM, SIGKILL),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGINT    ? "SIGINT"
                                              : info.param == SIGTERM ? "SIGTERM"
                                                                      : "SIGKILL");
                         });

}  // namespace
}  // namespace fx
