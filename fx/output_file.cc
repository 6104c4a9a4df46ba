// Copyright 2026 The FX for C++ Authors.
#include "fx/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "plugins/signal_disposition.h"

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
        " characters; the result is written first to a temporary file with ",
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

namespace {

// A random tail for a temporary file's name, as mkstemp's XXXXXX.
std::string random_suffix() {
  static constexpr char kChars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static thread_local std::mt19937_64 random(std::random_device{}() ^
                                             (static_cast<uint64_t>(::getpid()) << 32));
  std::string out(6, 'X');
  for (char& c : out) c = kChars[random() % (sizeof(kChars) - 1)];
  return out;
}

}  // namespace

absl::Status OutputFile::error(int err) const {
  return os_error(absl::StrCat("cannot write ", flag_), path_, err);
}

OutputFile::~OutputFile() { abandon(); }

void OutputFile::abandon() {
  if (temporary_.empty()) return;
  ::unlink(temporary_.c_str());
  temporary_.clear();
  removed_.reset();
}

absl::Status OutputFile::commit() {
  if (absl::Status s = write(); !s.ok()) return s;
  return replace();
}

absl::Status OutputFile::write() {
  abandon();
  // The file replaced, whose mode and owner the replacement keeps.
  struct stat target;
  const bool replaces = ::stat(path_.c_str(), &target) == 0 && S_ISREG(target.st_mode);
  // The temporary's name is registered before the file exists, so that a
  // signal at any point after its creation removes it.
  std::string temporary;
  std::unique_ptr<RemovedOnSignal> removed;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = absl::StrCat(path_, ".fxrun-", random_suffix());
    removed = std::make_unique<RemovedOnSignal>(temporary);
    // Private while written when it replaces a file; otherwise with the
    // permissions any new file gets (the umask applies).
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replaces ? 0600 : 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) return error(errno);
  }
  auto give_up = [&](int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    return error(err);
  };
  const std::string data = buffer_.str();
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return give_up(errno);  // EFBIG past a file-size limit too (fxrun ignores SIGXFSZ)
    }
    written += static_cast<size_t>(n);
  }
  if (replaces) {
    // Owner and group first (changing them clears set-user-ID bits, which
    // the mode then restores); the owner only where the user may give it
    // (root), the group where the user is in it.
    if (::fchown(fd, target.st_uid, target.st_gid) != 0) {
      (void)::fchown(fd, static_cast<uid_t>(-1), target.st_gid);
    }
    if (::fchmod(fd, target.st_mode & 07777) != 0) return give_up(errno);
  }
  if (::fsync(fd) != 0) return give_up(errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return give_up(errno);
  temporary_ = std::move(temporary);
  removed_ = std::move(removed);
  return absl::OkStatus();
}

absl::Status OutputFile::replace() {
  if (temporary_.empty()) return absl::FailedPreconditionError(absl::StrCat(flag_, " was not written"));
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    abandon();
    return error(err);
  }
  temporary_.clear();
  removed_.reset();
  return absl::OkStatus();
}

absl::Status commit_all(const std::vector<OutputFile*>& files) {
  for (OutputFile* f : files) {
    if (absl::Status s = f->write(); !s.ok()) {
      for (OutputFile* other : files) other->abandon();
      return s;
    }
  }
  for (OutputFile* f : files) {
    if (absl::Status s = f->replace(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// RemovedOnSignal's registry: fixed slots, read by the signal handler with
// lock-free atomics only.
constexpr int kMaxRemovedOnSignal = 16;
struct RemovedPath {
  std::atomic<bool> taken{false};  // claimed by a RemovedOnSignal
  std::atomic<bool> armed{false};  // `path` is complete: the handler removes it
  char path[PATH_MAX];
};
RemovedPath removed_paths[kMaxRemovedOnSignal];

// What handled SIGINT and SIGTERM before (another part of the program's
// report, such as plugins/plugin_guard.h's): called after the paths are
// removed.
struct sigaction previous_actions[2];
struct sigaction& previous_action(int signal_number) {
  return previous_actions[signal_number == SIGINT ? 0 : 1];
}

// Async-signal-safe: unlink(2), sigaction(2) and raise(3) only, and the
// previous handler, which must be.
extern "C" void remove_paths_and_raise_again(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // Where the signal ends the process, its partial files go first; where
  // the program's own handler decides (a server that lets the save finish),
  // they stay.
  const struct sigaction& previous = previous_action(signal_number);
  if (signal_ends_process(previous, signal_number)) {
    for (RemovedPath& r : removed_paths) {
      if (r.armed.load(std::memory_order_acquire)) ::unlink(r.path);
    }
  }
  const bool handler = previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN;
  if (handler && (previous.sa_flags & SA_SIGINFO) != 0) {
    previous.sa_sigaction(signal_number, info, context);
    errno = saved_errno;
    return;
  }
  if (handler) {
    previous.sa_handler(signal_number);
    errno = saved_errno;
    return;
  }
  struct sigaction default_action;
  std::memset(&default_action, 0, sizeof(default_action));
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  // Blocked while this handler runs: delivered, with the default action,
  // when it returns.
  ::raise(signal_number);
  errno = saved_errno;
}

void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal_number : {SIGINT, SIGTERM}) {
      struct sigaction previous;
      if (::sigaction(signal_number, nullptr, &previous) != 0) continue;
      // An ignored signal stays ignored; a handler someone else installed
      // runs after the paths are removed.
      if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler == SIG_IGN) continue;
      previous_action(signal_number) = previous;
      struct sigaction action;
      std::memset(&action, 0, sizeof(action));
      action.sa_sigaction = remove_paths_and_raise_again;
      action.sa_flags = SA_SIGINFO | (previous.sa_flags & SA_ONSTACK);
      sigemptyset(&action.sa_mask);
      sigaddset(&action.sa_mask, SIGINT);
      sigaddset(&action.sa_mask, SIGTERM);
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

}  // namespace

RemovedOnSignal::RemovedOnSignal(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  install_signal_handlers();
  for (int i = 0; i < kMaxRemovedOnSignal; ++i) {
    RemovedPath& r = removed_paths[i];
    bool expected = false;
    if (!r.taken.compare_exchange_strong(expected, true)) continue;
    std::memcpy(r.path, path.c_str(), path.size() + 1);
    r.armed.store(true, std::memory_order_release);
    slot_ = i;
    return;
  }
}

RemovedOnSignal::~RemovedOnSignal() {
  if (slot_ < 0) return;
  removed_paths[slot_].armed.store(false, std::memory_order_release);
  removed_paths[slot_].taken.store(false, std::memory_order_release);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa;
  struct stat sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace fx
