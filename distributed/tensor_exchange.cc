// Copyright 2026 The FX for C++ Authors.
#include "distributed/tensor_exchange.h"

#include <chrono>
#include <cstring>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/machine_resources.h"
#include "distributed/rendezvous.h"

namespace fx {
namespace {

// Header layout (int64 words): kMagic, sequence, count, then per value its
// kind and payload (a tensor's dtype, rank and sizes; a scalar's value; an
// int list's length and items), then kHeaderEnd. The payload: the tensors
// with elements, each at a multiple of kAlignment bytes, then one int64, the
// payload's end mark (kPayloadEnd ^ the bytes before it).
constexpr int64_t kMagic = 0x66786d62;            // "fxmb"
constexpr int64_t kHeaderEnd = 0x66786d6220656eLL;  // "fxmb en"
constexpr int64_t kPayloadEnd = 0x66786d62206470LL; // "fxmb dp"
enum Kind : int64_t { kTensor = 1, kNone = 2, kInt = 3, kDouble = 4, kBool = 5, kIntList = 6 };
constexpr int64_t kMaxHeaderWords = int64_t{1} << 20;
constexpr uint64_t kAlignment = 64;

// Tags: a message's parts (the header's length, the header, the payload)
// each get their own, a non-negative int (c10d's tags are ints); numbers
// kMaxMessagesInFlight apart share tags, long after those messages ended.
constexpr int64_t kPartsPerMessage = 3;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string value_name(const std::vector<std::string>& names, size_t i) {
  return i < names.size() ? names[i] : absl::StrCat("#", i);
}

bool is_dense_dtype(int64_t dtype) {
  for (c10::ScalarType t : kDenseDtypes) {
    if (static_cast<int64_t>(t) == dtype) return true;
  }
  return false;
}

std::string dense_dtypes() {
  std::vector<std::string> names;
  for (c10::ScalarType t : kDenseDtypes) names.push_back(absl::AsciiStrToLower(c10::toString(t)));
  return absl::StrJoin(names, ", ");
}

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

// Where a tensor lies in the payload.
struct Slot {
  size_t value = 0;  // index among the message's values
  uint64_t offset = 0, bytes = 0;
};

// The tensors of `values` that have elements (an empty one is all in the
// header), placed: their slots, and the payload's end mark's offset.
uint64_t place_tensors(const std::vector<c10::IValue>& values, std::vector<Slot>& slots) {
  uint64_t end = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].isTensor() || values[i].toTensor().numel() == 0) continue;
    const at::Tensor& t = values[i].toTensor();
    Slot slot{i, round_up(end, kAlignment), uint64_t(t.numel()) * t.element_size()};
    end = slot.offset + slot.bytes;
    slots.push_back(slot);
  }
  return round_up(end, sizeof(int64_t));
}

// The payload's end mark, as a tensor over its 8 bytes (where it lives).
at::Tensor end_mark(const at::Tensor& payload, uint64_t offset) {
  return at::from_blob(static_cast<uint8_t*>(payload.data_ptr()) + offset, {1},
                       at::TensorOptions().dtype(at::kLong).device(payload.device()));
}

// The most bytes a peer's message may announce: this machine's memory.
uint64_t message_limit() {
  static const uint64_t memory = this_machine().physical_memory;
  return memory != 0 ? memory : uint64_t{1} << 40;
}

std::string tensor_text(int64_t dtype, const std::vector<int64_t>& sizes) {
  return absl::StrCat(absl::AsciiStrToLower(c10::toString(static_cast<c10::ScalarType>(dtype))),
                      "[", absl::StrJoin(sizes, ", "), "]");
}

std::string another_program(int peer) {
  return absl::StrCat(": is rank ", peer, " another program, or another version of fxrun?");
}

}  // namespace

int exchange_tag(int64_t sequence, int64_t part) {
  return static_cast<int>((sequence % kMaxMessagesInFlight) * kPartsPerMessage + part);
}

absl::StatusOr<std::vector<int64_t>> encode_header(const std::vector<c10::IValue>& values,
                                                   const std::vector<std::string>& names,
                                                   int64_t sequence) {
  std::vector<int64_t> header = {kMagic, sequence, static_cast<int64_t>(values.size())};
  for (size_t i = 0; i < values.size(); ++i) {
    const c10::IValue& v = values[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (t.is_sparse() || t.is_mkldnn() || t.is_meta() || t.is_quantized()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the value ", value_name(names, i), " crossing to the next stage is a ",
            t.is_meta() ? "meta" : "sparse, mkldnn or quantized",
            " tensor; a pipeline carries dense tensors: cut elsewhere (split{points=...})"));
      }
      if (!is_dense_dtype(static_cast<int64_t>(t.scalar_type())) || t.dim() > kMaxDims) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the value ", value_name(names, i), " crossing to the next stage is a ",
            c10::toString(t.scalar_type()), " tensor of ", t.dim(), " dims; a pipeline carries "
            "tensors of at most ", kMaxDims, " dims of the dtypes ", dense_dtypes(),
            ": cut elsewhere (split{points=...})"));
      }
      header.push_back(kTensor);
      header.push_back(static_cast<int64_t>(t.scalar_type()));
      header.push_back(t.dim());
      for (int64_t size : t.sizes()) header.push_back(size);
    } else if (v.isNone()) {
      header.push_back(kNone);
    } else if (v.isInt()) {
      header.insert(header.end(), {kInt, v.toInt()});
    } else if (v.isDouble()) {
      const double d = v.toDouble();
      int64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      header.insert(header.end(), {kDouble, bits});
    } else if (v.isBool()) {
      header.insert(header.end(), {kBool, v.toBool() ? 1 : 0});
    } else if (v.isIntList()) {
      const std::vector<int64_t> items = v.toIntVector();
      header.push_back(kIntList);
      header.push_back(static_cast<int64_t>(items.size()));
      header.insert(header.end(), items.begin(), items.end());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "the value ", value_name(names, i), " crossing to the next stage is a ", v.tagKind(),
          "; a pipeline carries tensors and scalars (int, float, bool, None, lists of ints) "
          "between stages: cut where only those cross (split{points=...})"));
    }
  }
  header.push_back(kHeaderEnd);
  if (static_cast<int64_t>(header.size()) > kMaxHeaderWords) {
    return absl::InvalidArgumentError(absl::StrCat(
        values.size(), " values (with their sizes and list items) cross to the next stage; a "
        "pipeline's header holds at most ", kMaxHeaderWords, " words: cut elsewhere "
        "(split{points=...})"));
  }
  return header;
}

absl::StatusOr<IncomingValues> decode_header(const std::vector<int64_t>& header,
                                             const std::vector<std::string>& names,
                                             int64_t sequence, int peer,
                                             const c10::Device& device) {
  const std::string from = absl::StrCat("the message from rank ", peer);
  if (header.size() < 4 || header[0] != kMagic) {
    return absl::DataLossError(absl::StrCat(from, " is not a pipeline's header", another_program(peer)));
  }
  if (header.back() != kHeaderEnd) {
    return absl::DataLossError(absl::StrCat(
        from, "'s header is shorter than the ", header.size(),
        " words it announced, or damaged (it does not end with the header's end mark)",
        another_program(peer)));
  }
  if (header[1] != sequence) {
    return absl::DataLossError(absl::StrCat(from, " is message ", header[1], " where ", sequence,
                                            " was expected: a micro-batch was lost or reordered"));
  }
  if (header[2] != static_cast<int64_t>(names.size())) {
    return absl::DataLossError(absl::StrCat(
        from, " carries ", header[2], " values where this stage takes ", names.size(),
        ": the ranks split the model differently (give every rank the same model and flags)"));
  }
  // The words between the count and the end mark.
  const size_t last = header.size() - 1;
  size_t at = 3;
  auto word = [&](int64_t& out) {
    if (at >= last) return false;
    out = header[at++];
    return true;
  };
  const auto truncated = [&](size_t i) {
    return absl::DataLossError(absl::StrCat(from, "'s header ends within value ",
                                            value_name(names, i), another_program(peer)));
  };
  struct Announced {
    size_t value;
    int64_t dtype;
    std::vector<int64_t> sizes;
    uint64_t offset, bytes;
  };
  std::vector<Announced> tensors;
  std::vector<c10::IValue> values;
  uint64_t end = 0;  // of the payload's tensors
  for (size_t i = 0; i < names.size(); ++i) {
    int64_t kind = 0, a = 0;
    if (!word(kind)) return truncated(i);
    switch (kind) {
      case kTensor: {
        int64_t dtype = 0, dims = 0;
        if (!word(dtype) || !word(dims)) return truncated(i);
        if (!is_dense_dtype(dtype)) {
          return absl::DataLossError(absl::StrCat(
              from, " announces value ", value_name(names, i), " as a tensor of dtype number ",
              dtype, ", not one a pipeline carries (", dense_dtypes(), ")", another_program(peer)));
        }
        if (dims < 0 || dims > kMaxDims) {
          return absl::DataLossError(absl::StrCat(
              from, " announces value ", value_name(names, i), " as a tensor of ", dims,
              " dims (a pipeline carries 0 to ", kMaxDims, ")", another_program(peer)));
        }
        std::vector<int64_t> sizes(dims);
        // Elements, then bytes: more than a tensor holds even with a size of
        // 0 among them (libtorch computes their product), or than the
        // machine holds with the values before.
        uint64_t elements = 1, bytes = 0;
        bool empty = false, overflow = false;
        for (int64_t& s : sizes) {
          if (!word(s)) return truncated(i);
          if (s < 0) {
            return absl::DataLossError(absl::StrCat(from, " announces value ", value_name(names, i),
                                                    " with a negative size, ", s, another_program(peer)));
          }
          empty = empty || s == 0;
          if (s != 0) overflow = overflow || __builtin_mul_overflow(elements, uint64_t(s), &elements);
        }
        overflow = overflow || elements > uint64_t{INT64_MAX} ||
                   __builtin_mul_overflow(elements, c10::elementSize(static_cast<c10::ScalarType>(dtype)),
                                          &bytes) ||
                   bytes > uint64_t{INT64_MAX};
        if (overflow) {
          return absl::DataLossError(absl::StrCat(
              from, " announces value ", value_name(names, i), " as ", tensor_text(dtype, sizes),
              ": more bytes than a tensor can hold", another_program(peer)));
        }
        if (empty) bytes = 0;
        const uint64_t offset = bytes == 0 ? end : round_up(end, kAlignment);
        if (bytes > message_limit() || offset + bytes + sizeof(int64_t) > message_limit()) {
          return absl::DataLossError(absl::StrCat(
              from, " announces value ", value_name(names, i), " as ", tensor_text(dtype, sizes),
              ", which with the values before it is more than this machine's memory (",
              bytes_for_message(message_limit()), ")", another_program(peer)));
        }
        end = offset + bytes;
        tensors.push_back({i, dtype, sizes, offset, bytes});
        values.emplace_back();  // the tensor, once the payload is made
        break;
      }
      case kNone:
        values.emplace_back();
        break;
      case kInt:
        if (!word(a)) return truncated(i);
        values.emplace_back(a);
        break;
      case kDouble: {
        if (!word(a)) return truncated(i);
        double d = 0;
        std::memcpy(&d, &a, sizeof d);
        values.emplace_back(d);
        break;
      }
      case kBool:
        if (!word(a)) return truncated(i);
        values.emplace_back(a != 0);
        break;
      case kIntList: {
        if (!word(a)) return truncated(i);
        if (a < 0 || a > static_cast<int64_t>(last - at)) return truncated(i);
        std::vector<int64_t> items(header.begin() + at, header.begin() + at + a);
        at += a;
        values.emplace_back(c10::IValue(items));
        break;
      }
      default:
        return absl::DataLossError(absl::StrCat(from, " has a value of unknown kind ", kind,
                                                " (", value_name(names, i), ")",
                                                another_program(peer)));
    }
  }
  if (at != last) {
    return absl::DataLossError(absl::StrCat(from, "'s header has ", last - at,
                                            " words after its values", another_program(peer)));
  }
  IncomingValues incoming;
  try {
    const uint64_t payload_end = round_up(end, sizeof(int64_t));
    if (payload_end > 0) {
      incoming.payload = at::empty({static_cast<int64_t>(payload_end + sizeof(int64_t))},
                                   at::TensorOptions().dtype(at::kByte).device(device));
      end_mark(incoming.payload, payload_end).zero_();
    }
    for (const Announced& t : tensors) {
      const at::TensorOptions options =
          at::TensorOptions().dtype(static_cast<c10::ScalarType>(t.dtype)).device(device);
      if (t.bytes == 0) {
        values[t.value] = at::empty(t.sizes, options);
        continue;
      }
      // A view of the payload, which it keeps alive.
      at::Tensor payload = incoming.payload;
      values[t.value] = at::from_blob(static_cast<uint8_t*>(payload.data_ptr()) + t.offset,
                                      t.sizes, [payload](void*) {}, options);
    }
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot make room for the ", bytes_for_message(end), " of tensors ", from,
        " announces: ", c10d_error(e)));
  }
  incoming.values = std::move(values);
  return incoming;
}

absl::StatusOr<OutgoingValues> send_values(PeerGroup& group, const std::vector<c10::IValue>& values,
                                           const std::vector<std::string>& names, int peer,
                                           int64_t sequence) {
  auto header = encode_header(values, names, sequence);
  if (!header.ok()) return header.status();
  OutgoingValues outgoing;
  outgoing.what = absl::StrCat("sending message ", sequence, " to rank ", peer);
  const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong).device(group.device());
  const int64_t length = static_cast<int64_t>(header->size());
  std::vector<at::Tensor> parts;
  try {
    parts.push_back(at::full({1}, length, longs));
    parts.push_back(at::from_blob(header->data(), {length}, at::kLong).clone().to(group.device()));
    std::vector<Slot> slots;
    const uint64_t end = place_tensors(values, slots);
    if (!slots.empty()) {
      // The tensors copied into one payload, which ends with its mark.
      at::Tensor payload =
          at::empty({static_cast<int64_t>(end + sizeof(int64_t))},
                    at::TensorOptions().dtype(at::kByte).device(group.device()));
      for (const Slot& slot : slots) {
        const at::Tensor& t = values[slot.value].toTensor();
        at::from_blob(static_cast<uint8_t*>(payload.data_ptr()) + slot.offset, t.sizes(),
                      at::TensorOptions().dtype(t.scalar_type()).device(group.device()))
            .copy_(t);
      }
      end_mark(payload, end).fill_(kPayloadEnd ^ static_cast<int64_t>(end));
      parts.push_back(std::move(payload));
    }
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat(outgoing.what, ": cannot copy the values: ",
                                                     c10d_error(e)));
  }
  for (size_t part = 0; part < parts.size(); ++part) {
    auto transfer = group.start_send(parts[part], peer, exchange_tag(sequence, part));
    if (!transfer.ok()) return transfer.status();
    outgoing.transfers.push_back(*std::move(transfer));
  }
  return outgoing;
}

absl::Status finish_sending(PeerGroup& group, OutgoingValues& outgoing) {
  for (Transfer& transfer : outgoing.transfers) {
    if (absl::Status s = group.wait(transfer, outgoing.what); !s.ok()) return s;
  }
  outgoing.transfers.clear();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<c10::IValue>> recv_values(PeerGroup& group,
                                                     const std::vector<std::string>& names,
                                                     int peer, int64_t sequence,
                                                     const c10::Device& device,
                                                     ReceiveTimes* times) {
  const std::string what = absl::StrCat("receiving message ", sequence, " from rank ", peer);
  const std::string from = absl::StrCat("the message from rank ", peer);
  const auto start = std::chrono::steady_clock::now();
  const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong).device(group.device());
  // Parts arrive into zeroed buffers: one that stops short leaves zeros
  // where its end mark belongs.
  auto length = group.start_recv(at::zeros({1}, longs), peer, exchange_tag(sequence, 0));
  if (!length.ok()) return length.status();
  const at::Tensor length_tensor = length->tensors[0];
  if (absl::Status s = group.wait(*length, what); !s.ok()) return s;
  const int64_t words = length_tensor.to(at::kCPU).item<int64_t>();
  if (words < 4 || words > kMaxHeaderWords) {
    return absl::DataLossError(absl::StrCat(from, " announces a ", words,
                                            "-word header: not a pipeline's message",
                                            another_program(peer)));
  }
  auto header_part = group.start_recv(at::zeros({words}, longs), peer, exchange_tag(sequence, 1));
  if (!header_part.ok()) return header_part.status();
  const at::Tensor header_tensor = header_part->tensors[0];
  if (absl::Status s = group.wait(*header_part, what); !s.ok()) return s;
  const auto arrived = std::chrono::steady_clock::now();
  const at::Tensor header_cpu = header_tensor.to(at::kCPU).contiguous();
  std::vector<int64_t> header(header_cpu.data_ptr<int64_t>(),
                              header_cpu.data_ptr<int64_t>() + words);
  // Tensors arrive on the group's device, then go where the stage runs.
  auto incoming = decode_header(header, names, sequence, peer, group.device());
  if (!incoming.ok()) return incoming.status();
  if (incoming->payload.defined()) {
    const at::Tensor payload = incoming->payload;
    auto transfer = group.start_recv(payload, peer, exchange_tag(sequence, 2));
    if (!transfer.ok()) return transfer.status();
    if (absl::Status s = group.wait(*transfer, what); !s.ok()) return s;
    const int64_t end = payload.numel() - static_cast<int64_t>(sizeof(int64_t));
    if (end_mark(payload, end).item<int64_t>() != (kPayloadEnd ^ end)) {
      return absl::DataLossError(absl::StrCat(
          from, " carried fewer bytes of tensors than its header announced (", end,
          "), or damaged ones (they do not end with the payload's end mark); nothing of it is "
          "used", another_program(peer)));
    }
  }
  std::vector<c10::IValue> values = std::move(incoming->values);
  if (device != group.device()) {
    for (c10::IValue& v : values) {
      if (v.isTensor()) v = v.toTensor().to(device);
    }
  }
  if (times != nullptr) {
    times->waiting += std::chrono::duration<double>(arrived - start).count();
    times->moving += seconds_since(arrived);
  }
  return values;
}

}  // namespace fx
