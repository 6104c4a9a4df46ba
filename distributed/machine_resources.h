// Copyright 2026 The FX for C++ Authors.
//
// machine_resources.h: what this machine can give the processes of a
// pipeline, read before they start (a launcher must not start more ranks
// than fit, only to see them killed by the kernel's OOM killer) and before a
// rank allocates what a peer announced.
//
//   fx::MachineResources machine = fx::this_machine();
//   absl::Status s = fx::check_ranks_fit(24, per_rank, "...", machine);
//
// Contracts:
//   * `available_memory` is Linux's MemAvailable (/proc/meminfo), lowered to
//     what the memory limit of this process's cgroup (v2 memory.max, v1
//     memory.limit_in_bytes, of its cgroup and each above it) leaves above
//     its usage: a container of 3 GiB on a machine of 64 has 3. 0 when
//     unknown (then memory bounds nothing).
//   * `physical_memory` is the machine's RAM, `cores` the CPUs this process
//     may run on (its affinity); 0 when unknown.
//   * `check_ranks_fit` refuses, naming both sides and the most ranks that
//     fit, `ranks` processes of about `bytes_per_rank` each (`per_rank` says
//     what that estimate is made of) that need more than the available
//     memory, or more than kMaxRanksPerCore per core.
#ifndef FX_DISTRIBUTED_MACHINE_RESOURCES_H_
#define FX_DISTRIBUTED_MACHINE_RESOURCES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fx {

struct MachineResources {
  uint64_t physical_memory = 0;   // bytes
  uint64_t available_memory = 0;  // bytes
  int cores = 0;
};

// This machine; `root` prefixes /proc and /sys/fs/cgroup (tests give a tree
// of their own).
MachineResources this_machine(const std::string& root = "");

// Pipeline ranks beyond this many per core only wait for each other: a
// stage computes while its neighbours wait, so more stages than cores run no
// faster, and far more make every rank's waits (and --timeout) a matter of
// the scheduler.
inline constexpr int kMaxRanksPerCore = 8;

// `flag` names the setting in messages ("--stages=24").
absl::Status check_ranks_fit(int ranks, uint64_t bytes_per_rank, absl::string_view per_rank,
                             absl::string_view flag, const MachineResources& machine);

// "12 KiB", "334 MiB", "7.8 GiB" for sizes in messages.
std::string bytes_for_message(uint64_t bytes);

}  // namespace fx

#endif  // FX_DISTRIBUTED_MACHINE_RESOURCES_H_
