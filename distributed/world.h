// Copyright 2026 The FX for C++ Authors.
//
// world.h: who this process is in a pipeline of processes, from the variables
// torchrun sets (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK) or
// flags of the same names, so torchrun, Slurm or Kubernetes can start it.
//
//   fx::WorldFlags flags;               // --rank=... etc. when given
//   fx::World world = *fx::world_from(flags, fx::process_environment());
//   if (world.hosts_store()) ...        // rank 0 opens the TCPStore
//
// Contracts:
//   * A flag wins over its variable. MASTER_ADDR, MASTER_PORT, RANK and
//     WORLD_SIZE are required; LOCAL_RANK defaults to RANK (one machine).
//   * Errors (InvalidArgument) name the variable or flag, the value and the
//     fix: a value that is not a number, a port outside 1..65535, a world
//     size below 1, a rank outside 0..WORLD_SIZE-1, an empty address.
//   * TORCHELASTIC_USE_AGENT_STORE=True (torchrun's agent, or fxrun's own
//     launcher, hosts the store) makes every rank a client of the store;
//     otherwise rank 0 hosts it, as torch.distributed's env:// does.
#ifndef FX_DISTRIBUTED_WORLD_H_
#define FX_DISTRIBUTED_WORLD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

// The most processes a pipeline has (WORLD_SIZE, --stages).
inline constexpr int kMaxWorldSize = 1 << 16;

// Values given as flags (--master-addr, --master-port, --rank, --world-size,
// --local-rank); unset ones come from the environment.
struct WorldFlags {
  std::optional<std::string> master_addr;
  std::optional<int64_t> master_port;
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::optional<int64_t> local_rank;
};

struct World {
  std::string master_addr;
  int master_port = 0;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  // Another process (torchrun's agent, fxrun's launcher) hosts the store.
  bool store_hosted_elsewhere = false;

  bool hosts_store() const { return rank == 0 && !store_hosted_elsewhere; }
  bool is_last() const { return rank == world_size - 1; }
};

// Reads a variable: its value, or nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

// The process's own environment (getenv).
EnvironmentLookup process_environment();

// True when this process was started as one rank of a world: RANK is set
// (or --rank given).
bool started_as_rank(const WorldFlags& flags, const EnvironmentLookup& env);

absl::StatusOr<World> world_from(const WorldFlags& flags, const EnvironmentLookup& env);

// The variables that start rank `rank` of a world of `world_size` processes
// on this machine whose store another process hosts at 127.0.0.1:`port`
// (what fxrun's launcher gives each worker).
std::vector<std::pair<std::string, std::string>> local_rank_variables(int rank, int world_size,
                                                                      int port);

}  // namespace fx

#endif  // FX_DISTRIBUTED_WORLD_H_
