// Copyright 2026 The FX for C++ Authors.
#include "tools/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace {

// Appended to the target's name for the temporary file (mkstemp's X's).
constexpr char kTemporarySuffix[] = ".fxrun-XXXXXX";

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status os_error(absl::string_view what, const std::string& path, int err,
                      absl::string_view fix = {}) {
  return absl::InvalidArgumentError(absl::StrCat(what, " ", path_for_message(path), ": ",
                                                 std::strerror(err), fix.empty() ? "" : " (", fix,
                                                 fix.empty() ? "" : ")"));
}

}  // namespace

absl::StatusOr<OutputFile> OutputFile::prepare(std::string path, std::string flag) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " is empty; give a file name"));
  // What the path names in the end (/dev/stdout is a link to a pipe, whose
  // link text "pipe:[123]" is no path), refused under the name the user gave.
  if (struct stat target; ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) &&
      !S_ISDIR(target.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " ", path_for_message(path),
        " is not a regular file (a device, FIFO, pipe or socket), which writing the result would "
        "replace; give a file name", flag == "--output" ? ", or leave --output out to write to "
        "standard output" : ""));
  }
  // Follow symbolic links to the file they name (a bounded number of hops, as
  // the kernel does), so that the rename replaces it and not the link.
  struct stat st;
  for (int hops = 0; ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode); ++hops) {
    char target[4096];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof(target) - 1);
    if (n < 0 || hops == 40) return os_error(absl::StrCat("cannot write ", flag), path, n < 0 ? errno : ELOOP);
    target[n] = '\0';
    path = target[0] == '/' ? std::string(target) : absl::StrCat(directory_of(path), "/", target);
  }
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", path_for_message(path), " is a directory; give a file name"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " ", path_for_message(path),
          " is not a regular file (a device, FIFO or socket), which writing the result would "
          "replace; give a file name"));
    }
  }
  const std::string dir = directory_of(path);
  // The temporary file is the name plus kTemporarySuffix: a name the file
  // system takes may be one its temporary copy cannot have.
  const size_t name_length = path.size() - (path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && name_length + std::strlen(kTemporarySuffix) > static_cast<size_t>(name_max)) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " ", path_for_message(path), ": the name has ", name_length,
        " characters; fxrun writes the result first to a temporary file with ",
        std::strlen(kTemporarySuffix), " more, beyond the file system's ", name_max,
        ": give a name of at most ", name_max - static_cast<long>(std::strlen(kTemporarySuffix)),
        " characters"));
  }
  if (::stat(dir.c_str(), &st) != 0) {
    return os_error(absl::StrCat("cannot write ", flag), path, errno, "its directory does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return os_error(absl::StrCat("cannot write ", flag), path, errno, "the directory is not writable");
  }
  return OutputFile(std::move(path), std::move(flag));
}

absl::Status OutputFile::commit() {
  std::string temporary = absl::StrCat(path_, kTemporarySuffix);
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return os_error(absl::StrCat("cannot write ", flag_), path_, errno);
  const std::string data = buffer_.str();
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return os_error(absl::StrCat("cannot write ", flag_), path_, err);
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp makes the file private: give it the permissions a new file gets.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    return os_error(absl::StrCat("cannot write ", flag_), path_, err);
  }
  if (::rename(temporary.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    return os_error(absl::StrCat("cannot write ", flag_), path_, err);
  }
  return absl::OkStatus();
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa;
  struct stat sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace fx
