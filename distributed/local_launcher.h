// Copyright 2026 The FX for C++ Authors.
//
// local_launcher.h: a pipeline's ranks started as processes on this machine
// (fxrun --stages=N without RANK), supervised until they end, as torchrun
// does for one machine.
//
//   fx::LocalLaunch launch{"/proc/self/exe", {argv[0], "--run", ...}, 3, store->getPort()};
//   absl::Status s = fx::run_local_ranks(launch);
//
// Contracts:
//   * Rank r runs `program` with `args` and the environment of this process
//     plus local_rank_variables(r, world_size, port) (world.h),
//     kLaunchedVariable=1 and `env`.
//   * Their standard output is this process's; their standard error passes
//     through line by line, but a line another rank wrote already, but for
//     its number ("rank 2: " where it said "rank 0: "): N ranks failing
//     alike print one line; and but what a rank writes once the launcher
//     stopped it (a line the signal cut off, a handler saying it was
//     stopped): what it wrote before goes through.
//   * OK when every rank exits with status 0. When one fails (a non-zero
//     status or a signal), the others are stopped (SIGTERM, SIGKILL after
//     `grace`) and the error names the first rank that failed, how (exit
//     status or signal) and what its last error line says (without the
//     "...error: rank N: " the error itself begins with). Nothing is left
//     running.
//     A rank that failed because a peer did (kPeerFailedExitStatus: its
//     connection broke) does not count as the first while another rank may
//     still fail of its own cause: the launcher waits up to `grace` for one,
//     and names it.
//   * A program that cannot start is an error naming it, before any rank runs
//     on alone (those started are stopped).
#ifndef FX_DISTRIBUTED_LOCAL_LAUNCHER_H_
#define FX_DISTRIBUTED_LOCAL_LAUNCHER_H_

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace fx {

// The exit status of a rank whose failure is a peer's doing (a connection
// with it broke, it left a rendezvous): the cause is that peer's to report.
// Only ranks this launcher started use it (they have kLaunchedVariable set);
// ranks started otherwise (torchrun, by hand) exit 1 as for any error.
inline constexpr int kPeerFailedExitStatus = 75;
inline constexpr char kLaunchedVariable[] = "FX_LOCAL_LAUNCHER";

struct LocalLaunch {
  std::string program;
  std::vector<std::string> args;  // argv, argv[0] included
  int world_size = 1;
  int port = 0;
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds grace = std::chrono::seconds(5);
};

absl::Status run_local_ranks(const LocalLaunch& launch);

}  // namespace fx

#endif  // FX_DISTRIBUTED_LOCAL_LAUNCHER_H_
