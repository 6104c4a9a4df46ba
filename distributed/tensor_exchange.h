// Copyright 2026 The FX for C++ Authors.
//
// tensor_exchange.h: the values crossing a cut between two pipeline stages,
// sent as a small header (how many, of what kind, dtypes and sizes) then the
// tensors in one payload, so that the receiver needs to know nothing up front.
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
//   * `send_values` copies the tensors before it returns: the caller may
//     change or reuse them at once.
//   * A peer is not trusted: everything its header says is checked before
//     anything is allocated or handed to libtorch (the magic words; the
//     sequence and the count of values; each kind; a tensor's dtype, one of
//     the dense dtypes kDenseDtypes lists, its rank, at most kMaxDims, its
//     sizes, non-negative, and the bytes they make, without overflow and at
//     most the machine's memory; a list's length; no word left over).
//     Tensors arrive dense and contiguous (the header has no layout to
//     choose). Parts shorter than announced (the header, the payload) are
//     errors: the receiver zeroes the mark each part ends with, and a part
//     that stops short never writes it. A part longer than announced makes
//     Gloo's own thread throw, where no caller can catch it: the process
//     then ends with one line (process_group.h's report_broken_transport).
//   * Errors name the peer rank and the micro-batch (PeerGroup::wait).
#ifndef FX_DISTRIBUTED_TENSOR_EXCHANGE_H_
#define FX_DISTRIBUTED_TENSOR_EXCHANGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
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

// The dtypes a tensor may cross in: the dense ones every libtorch has.
inline constexpr c10::ScalarType kDenseDtypes[] = {
    c10::ScalarType::Byte,        c10::ScalarType::Char,       c10::ScalarType::Short,
    c10::ScalarType::Int,         c10::ScalarType::Long,       c10::ScalarType::Half,
    c10::ScalarType::Float,       c10::ScalarType::Double,     c10::ScalarType::ComplexHalf,
    c10::ScalarType::ComplexFloat, c10::ScalarType::ComplexDouble, c10::ScalarType::Bool,
    c10::ScalarType::BFloat16};
inline constexpr int64_t kMaxDims = 64;

// Messages a pipeline numbers apart (their tags differ): a round's
// micro-batches are all under way at once, so there are at most this many.
inline constexpr int64_t kMaxMessagesInFlight = int64_t{1} << 20;

// The header of `values` (exposed for tests and their rogue peers): int64
// words.
absl::StatusOr<std::vector<int64_t>> encode_header(const std::vector<c10::IValue>& values,
                                                   const std::vector<std::string>& names,
                                                   int64_t sequence);

// What a header announces: the values, where tensors come the tensors (of
// their dtype and sizes, on `device`) that the payload fills, and the
// payload, which ends with its mark (undefined when no tensor has elements).
struct IncomingValues {
  std::vector<c10::IValue> values;
  at::Tensor payload;  // bytes
};
absl::StatusOr<IncomingValues> decode_header(const std::vector<int64_t>& header,
                                             const std::vector<std::string>& names,
                                             int64_t sequence, int peer,
                                             const c10::Device& device);

// The tag of part `part` of message `sequence` (0: the header's length, 1:
// the header, 2: the payload); exposed for tests' rogue peers.
int exchange_tag(int64_t sequence, int64_t part);

}  // namespace fx

#endif  // FX_DISTRIBUTED_TENSOR_EXCHANGE_H_
