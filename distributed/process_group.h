// Copyright 2026 The FX for C++ Authors.
//
// process_group.h: point-to-point transfers between the ranks of a pipeline
// over a c10d process group (libtorch's own distributed engine): Gloo on the
// CPU, NCCL between CUDA devices where libtorch was built with it.
//
//   auto group = *fx::PeerGroup::connect(store, world, fx::CommBackend::kGloo, timeout);
//   fx::Transfer send = *group->start_send(tensor, /*peer=*/1, /*tag=*/7);
//   absl::Status s = group->wait(send, "micro-batch 3 to rank 1");
//
// Contracts:
//   * `connect` joins every rank of `world` through `store` (c10d's own
//     rendezvous, under the prefix "fx/group"); a rank missing past `timeout`
//     is an error, never a hang.
//   * NCCL is refused with the reason when this libtorch has no NCCL (a CPU
//     build, or one built without it) or no CUDA device is visible; Gloo when
//     libtorch was built without it.
//   * Tensors cross as they are: dense, contiguous, on device() (the CPU for
//     Gloo, cuda:LOCAL_RANK for NCCL). A transfer keeps its tensor alive until
//     waited on.
//   * `wait` returns within the group's timeout: a peer that died (its
//     connection closed) or never sends is an error naming the peer and
//     `what`.
//   * A peer that breaks Gloo's protocol (sends more bytes than the receive
//     it answers was made for) makes Gloo's own thread throw, where no caller
//     can catch it: the process would abort. report_broken_transport makes
//     it end with one line naming the peer instead.
//
// Version differences: ProcessGroupGloo derives c10d::ProcessGroup in 1.13
// and c10d::Backend from 2.0; both have the constructor, send and recv used
// here, so the group is held by its concrete type and nothing differs by
// version (the store's one difference is in rendezvous.cc).
#ifndef FX_DISTRIBUTED_PROCESS_GROUP_H_
#define FX_DISTRIBUTED_PROCESS_GROUP_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "distributed/world.h"

namespace fx {

enum class CommBackend { kGloo, kNccl };

// "gloo" or "nccl"; an error naming the choices otherwise.
absl::StatusOr<CommBackend> parse_backend(absl::string_view name);
const char* backend_name(CommBackend backend);

// OK when this libtorch can run `backend` here; otherwise why not and what to do.
absl::Status backend_available(CommBackend backend);

// A send or receive under way.
struct Transfer {
  c10::intrusive_ptr<c10d::Work> work;
  std::vector<at::Tensor> tensors;  // kept alive until the transfer ends
  int peer = -1;
};

// From now on, an exception escaping one of Gloo's threads (which would
// terminate the process: SIGABRT) ends it with one line on stderr,
// `line_prefix` then what the peer did, naming the rank this process was
// receiving from, and exit status `exit_status`. Other exceptions that
// terminate the process go to the handler there was before. Idempotent but
// for its arguments, which the last call sets.
void report_broken_transport(absl::string_view line_prefix, int exit_status);

class PeerGroup {
 public:
  static absl::StatusOr<std::unique_ptr<PeerGroup>> connect(
      const c10::intrusive_ptr<c10d::Store>& store, const World& world, CommBackend backend,
      std::chrono::milliseconds timeout);
  virtual ~PeerGroup() = default;

  absl::StatusOr<Transfer> start_send(at::Tensor tensor, int peer, int tag);
  absl::StatusOr<Transfer> start_recv(at::Tensor tensor, int peer, int tag);
  absl::Status wait(Transfer& transfer, absl::string_view what);

  // Where tensors must be to cross.
  virtual c10::Device device() const = 0;
  int rank() const { return world_.rank; }

 protected:
  PeerGroup(World world, std::chrono::milliseconds timeout) : world_(std::move(world)), timeout_(timeout) {}
  absl::StatusOr<Transfer> start(bool sending, at::Tensor tensor, int peer, int tag);
  virtual c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int peer, int tag) = 0;
  virtual c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int peer, int tag) = 0;

 private:
  World world_;
  std::chrono::milliseconds timeout_;
};

}  // namespace fx

#endif  // FX_DISTRIBUTED_PROCESS_GROUP_H_
