// Copyright 2026 The FX for C++ Authors.
#include "tools/graphviz.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"

extern char** environ;

namespace fx {
namespace {

// The largest PNG drawn, in inches a side (9600 pixels at Graphviz's 96 dpi):
// larger ones are scaled down to fit. In full, cairo's bitmap of inlined
// ResNet-50 took dot 52 s and 2.4 GB; scaled, 4 s and 230 MB.
constexpr int kMaxPngInches = 100;

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A close-on-exec pipe whose ends are not 0, 1 or 2, so that the child's
// dup2 onto those always makes a fresh, inheritable descriptor.
absl::Status make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe to dot: ", std::strerror(errno)));
  }
  for (int& fd : fds) {
    if (fd > 2) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  if (fds[0] < 0 || fds[1] < 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe to dot: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Blocks SIGPIPE in this thread while alive, so that writing to a dot that
// has exited gives EPIPE; a SIGPIPE raised meanwhile is taken off the thread
// before the old mask comes back.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero = {0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

// Whether fontconfig can keep its cache in `dir`: the directory exists, or
// can be made as fontconfig would make it (mkdir -p), and can be written.
// Making it is the check: access() says yes to root on a directory such as
// /proc where nothing can be created.
bool cache_directory_usable(const std::string& dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         ::access(dir.c_str(), W_OK | X_OK) == 0;
}

// The cache home fontconfig uses for its `<cachedir prefix="xdg">`, or "".
std::string user_cache_home() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return xdg;
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return absl::StrCat(home, "/.cache");
  return "";
}

// `$TMPDIR/fxrun-<uid>-cache` (or /tmp's), made if missing; "" unless it is
// a directory of this user that nobody else can write (another user could
// otherwise plant a cache there, or a link to elsewhere).
std::string make_private_cache_home() {
  const uid_t uid = ::geteuid();
  std::vector<std::string> bases;
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && tmp[0] == '/') {
    bases.push_back(tmp);
  }
  bases.push_back("/tmp");
  for (const std::string& base : bases) {
    const std::string dir = absl::StrCat(absl::StripSuffix(base, "/"), "/fxrun-", uid, "-cache");
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) continue;
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 || ::access(dir.c_str(), W_OK | X_OK) != 0) {
      continue;
    }
    return dir;
  }
  return "";
}

// The environment for dot: the caller's, with XDG_CACHE_HOME replaced by
// `cache_home` when that is not empty.
std::vector<std::string> dot_environment(const std::string& cache_home) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!cache_home.empty() && absl::StartsWith(*e, "XDG_CACHE_HOME=")) continue;
    env.emplace_back(*e);
  }
  if (!cache_home.empty()) env.push_back(absl::StrCat("XDG_CACHE_HOME=", cache_home));
  return env;
}

}  // namespace

absl::StatusOr<std::string> find_graphviz_dot() {
  const char* env = std::getenv("PATH");
  // A shell's search path when PATH is unset.
  const std::string search = env != nullptr ? env : "/bin:/usr/bin";
  for (absl::string_view dir : absl::StrSplit(search, ':')) {
    const std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/dot");
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "Graphviz's dot program is not on PATH (", path_for_message(search),
      "); install Debian's graphviz: apt-get install graphviz (tools/bootstrap.sh does)"));
}

absl::StatusOr<RenderedPicture> render_with_graphviz(const std::string& dot_program,
                                                     absl::string_view dot_text,
                                                     absl::string_view format,
                                                     absl::Duration limit) {
  if (format != "svg" && format != "png") {
    return absl::InvalidArgumentError(
        absl::StrCat("Graphviz renders svg or png here, not ", quote_for_message(format)));
  }
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  for (auto [r, w] : {std::pair<Fd*, Fd*>{&in_read, &in_write}, {&out_read, &out_write},
                      {&err_read, &err_write}}) {
    if (absl::Status s = make_pipe(*r, *w); !s.ok()) return s;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  const std::string type_flag = absl::StrCat("-T", format);
  const std::string size_flag = absl::StrCat("-Gsize=", kMaxPngInches, ",", kMaxPngInches);
  std::vector<char*> argv = {const_cast<char*>("dot"), const_cast<char*>(type_flag.c_str())};
  if (format == "png") argv.push_back(const_cast<char*>(size_flag.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  std::vector<std::string> env = dot_environment(graphviz_private_cache_home());
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int spawned =
      posix_spawn(&pid, dot_program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::InternalError(absl::StrCat("cannot run Graphviz's dot (", path_for_message(dot_program),
                                            "): ", std::strerror(spawned)));
  }
  in_read.reset();
  out_write.reset();
  err_write.reset();
  for (int fd : {in_write.get(), out_read.get(), err_read.get()}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  // Feed stdin while draining stdout and stderr: dot may write before it has
  // read everything, and either side's pipe fills up at 64 KiB.
  std::string output, errors;
  absl::Status io_error;
  const absl::Time deadline = absl::Now() + limit;
  bool timed_out = false;
  {
    SigpipeBlock no_sigpipe;
    size_t written = 0;
    if (dot_text.empty()) in_write.reset();
    char buffer[1 << 16];
    while (out_read.get() >= 0 || err_read.get() >= 0) {
      pollfd fds[3] = {{in_write.get(), POLLOUT, 0},
                       {out_read.get(), POLLIN, 0},
                       {err_read.get(), POLLIN, 0}};
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) {
        timed_out = true;
        ::kill(pid, SIGKILL);
        break;
      }
      const int ready = ::poll(fds, 3, static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000)));
      if (ready < 0) {
        if (errno == EINTR) continue;
        io_error = absl::InternalError(absl::StrCat("waiting for dot: ", std::strerror(errno)));
        break;
      }
      if (ready == 0) continue;
      if (fds[0].revents != 0) {
        const ssize_t n = ::write(in_write.get(), dot_text.data() + written, dot_text.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        // Done, or dot stopped reading (EPIPE): it says why on stderr.
        if (written == dot_text.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          in_write.reset();
        }
      }
      for (auto [index, fd, sink] : {std::tuple<int, Fd*, std::string*>{1, &out_read, &output},
                                     {2, &err_read, &errors}}) {
        if (fds[index].revents == 0) continue;
        const ssize_t n = ::read(fd->get(), buffer, sizeof buffer);
        if (n > 0) {
          sink->append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          fd->reset();
        }
      }
    }
    in_write.reset();
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for dot: ", std::strerror(errno)));
    }
  }
  if (!io_error.ok()) return io_error;
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(
        "Graphviz's dot did not finish in ", absl::FormatDuration(limit),
        " and was stopped: the graph may be too large to lay out; write --emit=dot and run dot "
        "yourself, or draw less (--emit-scope)"));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status)
                                ? absl::StrCat("exit status ", WEXITSTATUS(status))
                                : absl::StrCat("killed by signal ", WTERMSIG(status));
    return absl::InternalError(absl::StrCat(
        "Graphviz's dot failed (", how, ")",
        absl::StripAsciiWhitespace(errors).empty()
            ? ""
            : absl::StrCat(": ", escape_for_message(first_line_of(errors), 200))));
  }
  RenderedPicture picture;
  picture.output = std::move(output);
  for (absl::string_view line : absl::StrSplit(errors, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) picture.warnings.push_back(std::string(line));
  }
  return picture;
}

std::string graphviz_private_cache_home() {
  const std::string user = user_cache_home();
  if (!user.empty() && cache_directory_usable(user + "/fontconfig")) return "";
  return make_private_cache_home();
}

}  // namespace fx
