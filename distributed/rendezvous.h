// Copyright 2026 The FX for C++ Authors.
//
// rendezvous.h: how the processes of a pipeline find each other: c10d's
// TCPStore (a key-value server one process hosts, the others connect to),
// and waits on it that name the ranks that did not come.
//
//   auto store = *fx::host_store(0, timeout);          // a launcher: any free port
//   int port = store->getPort();
//   ...
//   auto store = *fx::connect_store(world, timeout);    // a rank
//   absl::Status s = fx::wait_for_ranks(*store, world, "ready", timeout);
//
// Contracts:
//   * `host_store` listens on every address at `port`; 0 takes a free port,
//     which getPort() returns (no collision between pipelines started at
//     once). A port in use or not allowed is an error naming it.
//   * `connect_store` hosts the store on rank 0 (unless another process hosts
//     it, World::store_hosted_elsewhere) and connects the others; an address
//     that does not resolve, or no store answering within `timeout`, is an
//     error naming MASTER_ADDR:MASTER_PORT and what to check.
//   * `wait_for_ranks` marks this rank as having reached `phase` and waits
//     until every rank has; past `timeout` it fails naming each rank that did
//     not (DeadlineExceeded), never hangs.
//   * Keys live under "fx/" (a PrefixStore may wrap the store further).
#ifndef FX_DISTRIBUTED_RENDEZVOUS_H_
#define FX_DISTRIBUTED_RENDEZVOUS_H_

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "distributed/world.h"

namespace fx {

absl::StatusOr<c10::intrusive_ptr<c10d::TCPStore>> host_store(int port,
                                                              std::chrono::milliseconds timeout);

absl::StatusOr<c10::intrusive_ptr<c10d::Store>> connect_store(const World& world,
                                                              std::chrono::milliseconds timeout);

absl::Status wait_for_ranks(c10d::Store& store, const World& world, absl::string_view phase,
                            std::chrono::milliseconds timeout);

// Stores `text` under this rank's key for `topic`; `gather_from_ranks` reads
// every rank's (waiting up to `timeout`, naming the ranks that gave none).
absl::Status publish(c10d::Store& store, const World& world, absl::string_view topic,
                     const std::string& text);
absl::StatusOr<std::vector<std::string>> gather_from_ranks(c10d::Store& store, const World& world,
                                                           absl::string_view topic,
                                                           std::chrono::milliseconds timeout);

// c10d logs its retries and timeouts itself, on standard error, in lines a
// pipeline's own errors repeat in one line: this raises libtorch's minimum
// log level to FATAL (glog's where c10 logs through glog, as Debian's 1.13
// does; c10's own elsewhere), unless TORCH_CPP_LOG_LEVEL or GLOG_minloglevel
// asks for another level.
void quiet_c10d_logging();

// A c10d (or Gloo) exception's message as one line, without libtorch's backtrace.
std::string c10d_error(const std::exception& e);

// "12 s" for a duration in messages.
std::string seconds_for_message(std::chrono::milliseconds duration);

}  // namespace fx

#endif  // FX_DISTRIBUTED_RENDEZVOUS_H_
