// Copyright 2026 The FX for C++ Authors.
#include "fx/input_file.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

std::string tmp(const std::string& name) { return absl::StrCat(getenv("TEST_TMPDIR"), "/", name); }

TEST(InputFileTest, OnlyRegularFilesAreReadAndNothingBlocks) {
  auto dir = read_regular_file(getenv("TEST_TMPDIR"), "--graph");
  EXPECT_THAT(dir.status().message(), HasSubstr(": it is a directory"));
  const std::string fifo = tmp("input.fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer: opening it for reading would wait for one.
  auto from_fifo = read_regular_file(fifo, "--flagfile");
  EXPECT_THAT(from_fifo.status().message(),
              HasSubstr("cannot read --flagfile " + fifo + ": it is not a regular file but a FIFO"));
  auto zeros = read_regular_file("/dev/zero", "--input");
  EXPECT_THAT(zeros.status().message(), HasSubstr("it is not a regular file but a device"));
  EXPECT_THAT(check_regular_file("/dev/null", "model", "give a .pt file").message(),
              HasSubstr("a device (give a .pt file)"));
  auto missing = read_regular_file("/no/such/file", "--graph");
  EXPECT_EQ(missing.status().message(), "cannot read --graph /no/such/file: No such file or directory");
}

TEST(InputFileTest, AFileIsReadUpToItsSize) {
  const std::string path = tmp("flags.txt");
  std::ofstream(path) << "--print=code\n";
  auto text = read_regular_file(path, "--flagfile");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "--print=code\n");
  // /proc files claim no size: read as empty, not for ever (pagemap has an
  // entry for every page of the address space).
  auto pagemap = read_regular_file("/proc/self/pagemap", "--graph");
  ASSERT_TRUE(pagemap.ok()) << pagemap.status();
  EXPECT_EQ(*pagemap, "");
}

// Feeds an endless stream of `byte` after `head` into a pipe until the
// reader closes it.
class EndlessPipe {
 public:
  EndlessPipe(std::string head, char byte) {
    ::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_fd_ = fds[0];
    writer_ = std::thread([fd = fds[1], head, byte] {
      std::string chunk = head + std::string(4096, byte);
      while (::write(fd, chunk.data(), chunk.size()) > 0) chunk.assign(4096, byte);
      ::close(fd);
    });
  }
  ~EndlessPipe() {
    ::close(read_fd_);
    writer_.join();
  }
  int fd() const { return read_fd_; }

 private:
  int read_fd_ = -1;
  std::thread writer_;
};

TEST(InputFileTest, AStreamIsReadUpToABound) {
  EndlessPipe zip_then_zeros("PK\x03\x04", '\0');
  auto data = read_stream(zip_then_zeros.fd(), "--model=-: standard input", 1 << 20, "PK\x03\x04");
  EXPECT_EQ(data.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(data.status().message(),
              HasSubstr("--model=-: standard input holds more than 1048576 bytes"));
}

TEST(InputFileTest, AStreamThatDoesNotStartWithTheMagicIsRefusedAtOnce) {
  EndlessPipe zeros("", '\0');
  // The bound is far beyond what the test could feed: the magic decides.
  auto data = read_stream(zeros.fd(), "--model=-: standard input", size_t{1} << 40, "PK\x03\x04");
  EXPECT_EQ(data.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(data.status().message(),
              HasSubstr("does not start as the file should ('\\x00\\x00\\x00\\x00' instead of "
                        "'PK\\x03\\x04')"));
}

}  // namespace
}  // namespace fx
