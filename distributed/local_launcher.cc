// Copyright 2026 The FX for C++ Authors.
#include "distributed/local_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "distributed/world.h"

extern char** environ;

namespace fx {
namespace {

struct Rank {
  pid_t pid = -1;
  int err = -1;          // read end of its standard error, -1 once closed
  std::string pending;   // a line not yet ended
  std::string last_error;
  bool running = false;
  bool stopped = false;  // the launcher sent it a signal
};

// The lines passed through so far, each without its rank's number, with the
// rank that wrote it: N ranks failing alike print one line.
using LinesSeen = absl::flat_hash_map<std::string, int>;

// `line` with the first "rank <index>: " in it made "rank *: ".
std::string without_rank(const std::string& line, int index) {
  const std::string mark = absl::StrCat("rank ", index, ": ");
  const size_t at = line.find(mark);
  if (at == std::string::npos) return line;
  return absl::StrCat(line.substr(0, at), "rank *: ", line.substr(at + mark.size()));
}

// What an error line says, without the program's "...error: " and the
// rank's "rank <index>: " before it.
std::string error_text(const std::string& line, int index) {
  absl::string_view text = line;
  const size_t at = text.find("error: ");
  if (at != absl::string_view::npos) text.remove_prefix(at + 7);
  absl::ConsumePrefix(&text, absl::StrCat("rank ", index, ": "));
  return std::string(text);
}

// This process's environment with `overrides` replacing or adding variables.
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  absl::flat_hash_set<std::string> replaced;
  for (const auto& [name, value] : overrides) replaced.insert(name);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!replaced.contains(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(absl::StrCat(name, "=", value));
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Passes complete lines of rank `index`'s standard error through, but those
// another rank wrote already (`seen`), remembering its last error line.
// `flush`: the rank ended; its unended last line goes too. Nothing goes of
// what a rank wrote after the launcher stopped it: a line the signal cut
// off, or one saying it was stopped (fxrun's handlers name the plugin code
// it interrupted), which is not the pipeline's failure.
void pass_through(Rank& rank, int index, bool flush, LinesSeen& seen) {
  if (rank.stopped) {
    rank.pending.clear();
    return;
  }
  size_t end;
  while ((end = rank.pending.find('\n')) != std::string::npos || (flush && !rank.pending.empty())) {
    const bool unended = end == std::string::npos;
    const std::string line = unended ? rank.pending : rank.pending.substr(0, end);
    rank.pending.erase(0, unended ? std::string::npos : end + 1);
    if (absl::StrContains(line, "error:")) rank.last_error = line;
    const auto [first, inserted] = seen.try_emplace(without_rank(line, index), index);
    if (!inserted && first->second != index) continue;
    const std::string out = line + "\n";
    if (write(STDERR_FILENO, out.data(), out.size()) < 0) {
      // Nothing to do: standard error is gone.
    }
  }
}

// Reads what `rank` wrote and is in its pipe now, without waiting (a child
// of the rank may hold the pipe open).
void read_available(Rank& rank) {
  if (rank.err < 0) return;
  fcntl(rank.err, F_SETFL, fcntl(rank.err, F_GETFL) | O_NONBLOCK);
  char buffer[4096];
  ssize_t n;
  while ((n = read(rank.err, buffer, sizeof buffer)) > 0) rank.pending.append(buffer, n);
}

// Passes through what `rank` wrote and is still in its pipe, and closes it.
void drain(Rank& rank, int index, LinesSeen& seen) {
  if (rank.err < 0) return;
  read_available(rank);
  pass_through(rank, index, true, seen);
  close(rank.err);
  rank.err = -1;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  }
  return absl::StrCat("exit status ", WEXITSTATUS(status));
}

}  // namespace

absl::Status run_local_ranks(const LocalLaunch& launch) {
  std::vector<Rank> ranks(launch.world_size);
  std::optional<absl::Status> failure;
  LinesSeen seen;
  int running = 0;
  // What a rank wrote before it is stopped goes through; what it writes
  // after does not (pass_through).
  auto stop_all = [&](int signal) {
    for (int i = 0; i < launch.world_size; ++i) {
      Rank& r = ranks[i];
      if (!r.running) continue;
      if (!r.stopped) {
        read_available(r);
        pass_through(r, i, false, seen);
        r.stopped = true;
      }
      kill(r.pid, signal);
    }
  };

  for (int i = 0; i < launch.world_size; ++i) {
    auto overrides = local_rank_variables(i, launch.world_size, launch.port);
    overrides.emplace_back(kLaunchedVariable, "1");
    overrides.insert(overrides.end(), launch.env.begin(), launch.env.end());
    std::vector<std::string> env = environment_with(overrides);
    std::vector<std::string> args = launch.args;
    std::vector<char*> argv = pointers(args);
    std::vector<char*> envp = pointers(env);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      failure = absl::ResourceExhaustedError(absl::StrCat("cannot make a pipe for rank ", i, ": ",
                                                          std::strerror(errno)));
      break;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    pid_t pid = -1;
    const int error = posix_spawn(&pid, launch.program.c_str(), &actions, nullptr, argv.data(),
                                  envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (error != 0) {
      close(fds[0]);
      failure = absl::FailedPreconditionError(absl::StrCat(
          "cannot start rank ", i, " (", path_for_message(launch.program), "): ",
          std::strerror(error)));
      break;
    }
    ranks[i].pid = pid;
    ranks[i].err = fds[0];
    ranks[i].running = true;
    ++running;
  }
  if (failure) stop_all(SIGKILL);

  std::optional<std::chrono::steady_clock::time_point> kill_at;
  // A rank that failed because a peer did, while the peer's own failure is
  // awaited (until `cause_by`).
  std::optional<absl::Status> after_peer;
  std::chrono::steady_clock::time_point cause_by;
  auto fail_with = [&](absl::Status s) {
    failure = std::move(s);
    stop_all(SIGTERM);
    kill_at = std::chrono::steady_clock::now() + launch.grace;
  };
  // Until every rank ended (a pipe a rank's own child holds open is not waited for).
  while (running > 0) {
    std::vector<pollfd> polled;
    std::vector<int> owner;
    for (int i = 0; i < launch.world_size; ++i) {
      if (ranks[i].err >= 0) {
        polled.push_back({ranks[i].err, POLLIN, 0});
        owner.push_back(i);
      }
    }
    if (!polled.empty()) {
      poll(polled.data(), polled.size(), 100);
      for (size_t p = 0; p < polled.size(); ++p) {
        if (polled[p].revents == 0) continue;
        Rank& r = ranks[owner[p]];
        char buffer[4096];
        const ssize_t n = read(r.err, buffer, sizeof buffer);
        if (n > 0) {
          r.pending.append(buffer, n);
          pass_through(r, owner[p], false, seen);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          pass_through(r, owner[p], true, seen);
          close(r.err);
          r.err = -1;
        }
      }
    } else {
      usleep(100 * 1000);
    }
    for (int i = 0; i < launch.world_size; ++i) {
      Rank& r = ranks[i];
      if (!r.running) continue;
      int status = 0;
      if (waitpid(r.pid, &status, WNOHANG) != r.pid) continue;
      r.running = false;
      --running;
      if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) || failure) continue;
      // The first failure: drain what it said, then stop the others.
      drain(r, i, seen);
      absl::Status this_failure = absl::AbortedError(absl::StrCat(
          "rank ", i, " of ", launch.world_size, " failed (", how_it_ended(status), ")",
          r.last_error.empty() ? "" : absl::StrCat(": ", error_text(r.last_error, i)),
          "; stopped the other ranks"));
      if (WIFEXITED(status) && WEXITSTATUS(status) == kPeerFailedExitStatus) {
        if (!after_peer) {
          after_peer = std::move(this_failure);
          cause_by = std::chrono::steady_clock::now() + launch.grace;
        }
        continue;
      }
      fail_with(std::move(this_failure));
    }
    if (!failure && after_peer && std::chrono::steady_clock::now() >= cause_by) fail_with(*after_peer);
    if (kill_at && std::chrono::steady_clock::now() >= *kill_at) {
      stop_all(SIGKILL);
      kill_at.reset();
    }
  }
  // What the ranks wrote last, without waiting on their children.
  for (int i = 0; i < launch.world_size; ++i) drain(ranks[i], i, seen);
  if (!failure && after_peer) failure = after_peer;
  return failure ? *failure : absl::OkStatus();
}

}  // namespace fx
