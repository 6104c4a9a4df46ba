// Copyright 2026 The FX for C++ Authors.
//
// tensor_exchange.h: the values crossing a cut between two pipeline stages,
// sent as a small header (how many, of what kind, dtypes and sizes) then the
// tensors, so that the receiver needs to know nothing up front.
//
//   fx::OutgoingValues sending = *fx::send_values(group, values, names, next, seq);
//   ...                                            // compute the next micro-batch
//   absl::Status s = fx::finish_sending(group, sending);
//   std::vector<c10::IValue> got = *fx::recv_values(group, names, previous, seq, &stats);
//
// Contracts:
//   * What crosses: tensors (any dtype and shape, sent contiguous, moved to
//     the group's device and back to `device` on arrival) and the scalars a
//     graph passes between nodes (int, float, bool, None, lists of ints),
//     carried in the header. Anything else is an error naming the value and
//     what it is, before anything is sent.
//   * Each message carries its sequence number (micro-batch, round); the
//     receiver checks it and the count of values against what it expects, so
//     a value dropped or out of order is an error, never a silent mix-up.
//   * Errors name the peer rank and the micro-batch (PeerGroup::wait).
#ifndef FX_DISTRIBUTED_TENSOR_EXCHANGE_H_
#define FX_DISTRIBUTED_TENSOR_EXCHANGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "distributed/process_group.h"

namespace fx {

// The values of one message under way (kept until finish_sending).
struct OutgoingValues {
  std::vector<Transfer> transfers;
  std::string what;  // "micro-batch 3 to rank 1"
};

// Time spent receiving, in seconds: waiting for the header (the sender still
// computing) and moving the tensors once it came.
struct ReceiveTimes {
  double waiting = 0;
  double moving = 0;
};

// Starts sending `values` (named `names`, for errors) to `peer` as message
// `sequence` (carried whole in the header).
absl::StatusOr<OutgoingValues> send_values(PeerGroup& group, const std::vector<c10::IValue>& values,
                                           const std::vector<std::string>& names, int peer,
                                           int64_t sequence);
absl::Status finish_sending(PeerGroup& group, OutgoingValues& outgoing);

// Receives message `sequence` from `peer`: as many values as `names`, on
// `device`. `times`, when given, accumulates the time spent.
absl::StatusOr<std::vector<c10::IValue>> recv_values(PeerGroup& group,
                                                     const std::vector<std::string>& names,
                                                     int peer, int64_t sequence,
                                                     const c10::Device& device,
                                                     ReceiveTimes* times = nullptr);

// The header of `values` (exposed for tests): int64 words.
absl::StatusOr<std::vector<int64_t>> encode_header(const std::vector<c10::IValue>& values,
                                                   const std::vector<std::string>& names,
                                                   int64_t sequence);
// What a header says: the values, with empty tensors of the right dtype and
// sizes on `device` where tensors come.
absl::StatusOr<std::vector<c10::IValue>> decode_header(const std::vector<int64_t>& header,
                                                       const std::vector<std::string>& names,
                                                       int64_t sequence, int peer,
                                                       const c10::Device& device);

}  // namespace fx

#endif  // FX_DISTRIBUTED_TENSOR_EXCHANGE_H_
