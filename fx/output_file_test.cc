// Copyright 2026 The FX for C++ Authors.
#include "fx/output_file.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

std::string temp_path(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/output_file_test";
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/" + name;
  std::remove(path.c_str());
  return path;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Files in the directory of `path` whose names start with its own.
std::vector<std::string> files_beside(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::vector<std::string> out;
  DIR* dir = ::opendir(path.substr(0, slash).c_str());
  for (dirent* e = ::readdir(dir); e != nullptr; e = ::readdir(dir)) {
    if (absl::StartsWith(e->d_name, path.substr(slash + 1) + ".")) out.push_back(e->d_name);
  }
  ::closedir(dir);
  return out;
}

void write_through_output_file(const std::string& path, const std::string& text) {
  auto out = OutputFile::prepare(path);
  ASSERT_TRUE(out.ok()) << out.status();
  out->stream() << text;
  ASSERT_TRUE(out->commit().ok());
}

// A file only its owner may read stays so when replaced (it was left 0644).
TEST(OutputFileTest, TheReplacementKeepsTheModeOfTheFileItReplaces) {
  for (mode_t mode : {0600, 0640, 0604, 0700}) {
    const std::string path = temp_path("private.txt");
    write_file(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    write_through_output_file(path, "new");
    EXPECT_EQ(read_file(path), "new");
    EXPECT_EQ(mode_of(path), mode) << std::oct << mode;
    EXPECT_THAT(files_beside(path), ::testing::IsEmpty());
  }
}

TEST(OutputFileTest, ANewFileGetsThePermissionsTheUmaskAllows) {
  const mode_t mask = ::umask(027);
  const std::string path = temp_path("new.txt");
  write_through_output_file(path, "new");
  ::umask(mask);
  EXPECT_EQ(mode_of(path), 0640u);
}

// Only root may give a file away (and in a user namespace only to the users
// it maps); where the test cannot, it has nothing to check.
TEST(OutputFileTest, TheReplacementKeepsTheOwnerAndGroupWhereAllowed) {
  const std::string path = temp_path("owned.txt");
  write_file(path, "old");
  if (::chown(path.c_str(), 4321, 8765) != 0) {
    GTEST_SKIP() << "this test cannot give a file to another user: " << std::strerror(errno);
  }
  write_through_output_file(path, "new");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 8765u);
}

// The handler runs in a fresh process (the threadsafe death-test style
// re-executes the test binary), as in fxrun.
class RemovedOnSignalTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_P(RemovedOnSignalTest, TheSignalRemovesRegisteredPathsAndStillEndsTheProcess) {
  const int signal_number = GetParam();
  const std::string registered = temp_path("registered.tmp");
  const std::string released = temp_path("released.tmp");
  EXPECT_EXIT(
      {
        write_file(registered, "partial");
        write_file(released, "kept");
        { RemovedOnSignal r(released); }
        RemovedOnSignal r(registered);
        if (!r.registered()) std::_Exit(3);
        ::raise(signal_number);
        std::_Exit(4);  // not reached: the signal ends the process
      },
      ::testing::KilledBySignal(signal_number), "");
  EXPECT_NE(::access(registered.c_str(), F_OK), 0) << "the signal left " << registered;
  EXPECT_EQ(read_file(released), "kept");
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, RemovedOnSignalTest, ::testing::Values(SIGINT, SIGTERM));

TEST(RemovedOnSignalIgnoredTest, AnIgnoredSignalStaysIgnored) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = temp_path("ignored.tmp");
  EXPECT_EXIT(
      {
        write_file(path, "partial");
        ::signal(SIGINT, SIG_IGN);
        RemovedOnSignal r(path);
        ::raise(SIGINT);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(read_file(path), "partial");
}

// A program with a SIGTERM handler of its own (a server that lets work in
// progress finish): the handler runs, the process goes on, and the file
// being written is still there for the write to finish.
extern "C" void note_termination(int) {}

TEST(RemovedOnSignalProgramHandlerTest, AProgramsOwnHandlerKeepsTheFileBeingWritten) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = temp_path("server.tmp");
  EXPECT_EXIT(
      {
        write_file(path, "partial");
        ::signal(SIGTERM, note_termination);
        RemovedOnSignal r(path);
        ::raise(SIGTERM);
        std::_Exit(::access(path.c_str(), F_OK) == 0 ? 0 : 5);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(read_file(path), "partial");
}

}  // namespace
}  // namespace fx
