// Copyright 2026 The FX for C++ Authors.
#include "fx/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/message_text.h"

namespace fx {
namespace {

// What a file that is not a regular one is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "it is not a regular file but a FIFO or pipe";
  if (S_ISSOCK(mode)) return "it is not a regular file but a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is not a regular file but a device";
  return "it is not a regular file";
}

std::string gib(uint64_t bytes) { return absl::StrFormat("%.1f GiB", bytes / double(1 << 30)); }

// Opens `path` without blocking (a FIFO with no writer would block) and
// checks it is a regular file; returns the descriptor, and its size in `size`.
absl::StatusOr<int> open_regular_file(const std::string& path, absl::string_view flag,
                                      absl::string_view fix, off_t* size) {
  const std::string shown = path_for_message(path);
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " is empty (an unset variable?); give a file"));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::NotFoundError(absl::StrCat("cannot read ", flag, " ", shown, ": ", std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("cannot read ", flag, " ", shown, ": ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", flag, " ", shown, ": ",
                                                   kind_of(st.st_mode), fix.empty() ? "" : " (", fix,
                                                   fix.empty() ? "" : ")"));
  }
  const uint64_t memory = physical_memory_bytes();
  if (memory != 0 && static_cast<uint64_t>(st.st_size) > memory) {
    ::close(fd);
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot read ", flag, " ", shown, ": it is ", gib(st.st_size),
        ", more than this machine's memory (", gib(memory), ")"));
  }
  *size = st.st_size;
  return fd;
}

}  // namespace

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

absl::Status check_regular_file(const std::string& path, absl::string_view flag,
                                absl::string_view fix) {
  off_t size = 0;
  auto fd = open_regular_file(path, flag, fix, &size);
  if (!fd.ok()) return fd.status();
  ::close(*fd);
  return absl::OkStatus();
}

absl::StatusOr<std::string> read_regular_file(const std::string& path, absl::string_view flag) {
  off_t size = 0;
  auto fd = open_regular_file(path, flag, {}, &size);
  if (!fd.ok()) return fd.status();
  std::string data(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::read(*fd, data.data() + done, data.size() - done);
    if (n == 0) break;  // the file shrank
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(*fd);
      return absl::UnavailableError(
          absl::StrCat("cannot read ", flag, " ", path_for_message(path), ": ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  ::close(*fd);
  data.resize(done);
  return data;
}

absl::StatusOr<std::string> read_stream(int fd, absl::string_view what, size_t max_bytes,
                                        absl::string_view magic) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    // Until the magic is checked, read no more than it.
    const size_t want = data.size() < magic.size() ? magic.size() - data.size() : sizeof(buffer);
    const ssize_t n = ::read(fd, buffer, std::min(want, sizeof(buffer)));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(errno)));
    }
    data.append(buffer, static_cast<size_t>(n));
    if (data.size() >= magic.size() && data.size() - n < magic.size() &&
        absl::string_view(data).substr(0, magic.size()) != magic) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " does not start as the file should (", quote_for_message(data.substr(0, magic.size())),
          " instead of ", quote_for_message(magic), ")"));
    }
    if (data.size() > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          what, " holds more than ", max_bytes, " bytes, the most fxrun reads from a stream; give "
          "a file instead"));
    }
  }
  if (!data.empty() && data.size() < magic.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ends after ", data.size(), " bytes, too short to be the file"));
  }
  return data;
}

absl::StatusOr<std::string> read_standard_input(absl::string_view what, absl::string_view magic) {
  return read_stream(STDIN_FILENO, what, kMaxStandardInputBytes, magic);
}

}  // namespace fx
