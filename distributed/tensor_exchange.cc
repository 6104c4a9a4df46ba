// Copyright 2026 The FX for C++ Authors.
#include "distributed/tensor_exchange.h"

#include <chrono>
#include <cstring>

#include <ATen/ATen.h>

#include "absl/strings/str_cat.h"

namespace fx {
namespace {

// Header layout (int64 words): kMagic, sequence, count, then per value its
// kind and payload: a tensor's dtype, rank and sizes; a scalar's value; an
// int list's length and items.
constexpr int64_t kMagic = 0x66786d62;  // "fxmb"
enum Kind : int64_t { kTensor = 1, kNone = 2, kInt = 3, kDouble = 4, kBool = 5, kIntList = 6 };

// Tags: a message's parts (the header's length, the header, one per tensor)
// each get their own, a non-negative int (c10d's tags are ints); numbers
// past kMaxSequence reuse tags, long after those messages ended.
constexpr int64_t kPartsPerMessage = 1024;
constexpr int64_t kMaxSequence = int64_t{1} << 20;

int tag_of(int64_t sequence, int64_t part) {
  return static_cast<int>((sequence % kMaxSequence) * kPartsPerMessage + part);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string value_name(const std::vector<std::string>& names, size_t i) {
  return i < names.size() ? names[i] : absl::StrCat("#", i);
}

// The tensors of `values` that have elements, in order (an empty one is
// all in the header).
std::vector<at::Tensor> tensors_of(const std::vector<c10::IValue>& values) {
  std::vector<at::Tensor> out;
  for (const c10::IValue& v : values) {
    if (v.isTensor() && v.toTensor().numel() > 0) out.push_back(v.toTensor());
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> encode_header(const std::vector<c10::IValue>& values,
                                                   const std::vector<std::string>& names,
                                                   int64_t sequence) {
  std::vector<int64_t> header = {kMagic, sequence, static_cast<int64_t>(values.size())};
  size_t tensors = 0;
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
      header.push_back(kTensor);
      header.push_back(static_cast<int64_t>(t.scalar_type()));
      header.push_back(t.dim());
      for (int64_t size : t.sizes()) header.push_back(size);
      ++tensors;
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
  if (tensors + 2 >= kPartsPerMessage) {
    return absl::InvalidArgumentError(absl::StrCat(
        tensors, " tensors cross to the next stage; a pipeline carries at most ",
        kPartsPerMessage - 2, " per cut: cut elsewhere (split{points=...})"));
  }
  return header;
}

absl::StatusOr<std::vector<c10::IValue>> decode_header(const std::vector<int64_t>& header,
                                                       const std::vector<std::string>& names,
                                                       int64_t sequence, int peer,
                                                       const c10::Device& device) {
  const std::string from = absl::StrCat("the message from rank ", peer);
  if (header.size() < 3 || header[0] != kMagic) {
    return absl::DataLossError(absl::StrCat(from, " is not a pipeline's header: is rank ", peer,
                                            " another program, or another version of fxrun?"));
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
  std::vector<c10::IValue> values;
  size_t at = 3;
  auto word = [&](int64_t& out) {
    if (at >= header.size()) return false;
    out = header[at++];
    return true;
  };
  const auto truncated = absl::DataLossError(absl::StrCat(from, " has a truncated header"));
  for (size_t i = 0; i < names.size(); ++i) {
    int64_t kind = 0, a = 0;
    if (!word(kind)) return truncated;
    switch (kind) {
      case kTensor: {
        int64_t dtype = 0, dims = 0;
        if (!word(dtype) || !word(dims) || dims < 0 || dims > 64 ||
            dtype < 0 || dtype >= static_cast<int64_t>(c10::ScalarType::NumOptions)) {
          return truncated;
        }
        std::vector<int64_t> sizes(dims);
        for (int64_t& s : sizes) {
          if (!word(s) || s < 0) return truncated;
        }
        values.emplace_back(at::empty(sizes, at::TensorOptions()
                                                 .dtype(static_cast<c10::ScalarType>(dtype))
                                                 .device(device)));
        break;
      }
      case kNone:
        values.emplace_back();
        break;
      case kInt:
        if (!word(a)) return truncated;
        values.emplace_back(a);
        break;
      case kDouble: {
        if (!word(a)) return truncated;
        double d = 0;
        std::memcpy(&d, &a, sizeof d);
        values.emplace_back(d);
        break;
      }
      case kBool:
        if (!word(a)) return truncated;
        values.emplace_back(a != 0);
        break;
      case kIntList: {
        if (!word(a) || a < 0 || a > static_cast<int64_t>(header.size())) return truncated;
        std::vector<int64_t> items(a);
        for (int64_t& item : items) {
          if (!word(item)) return truncated;
        }
        values.emplace_back(c10::IValue(items));
        break;
      }
      default:
        return absl::DataLossError(absl::StrCat(from, " has a value of unknown kind ", kind,
                                                " (", value_name(names, i), ")"));
    }
  }
  return values;
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
  std::vector<at::Tensor> parts = {
      at::full({1}, length, longs),
      at::from_blob(header->data(), {length}, at::kLong).clone().to(group.device())};
  for (const at::Tensor& t : tensors_of(values)) {
    parts.push_back(t.to(group.device()).contiguous());
  }
  for (size_t part = 0; part < parts.size(); ++part) {
    auto transfer = group.start_send(parts[part], peer, tag_of(sequence, part));
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
  const auto start = std::chrono::steady_clock::now();
  const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong).device(group.device());
  auto length = group.start_recv(at::empty({1}, longs), peer, tag_of(sequence, 0));
  if (!length.ok()) return length.status();
  const at::Tensor length_tensor = length->tensors[0];
  if (absl::Status s = group.wait(*length, what); !s.ok()) return s;
  const int64_t words = length_tensor.to(at::kCPU).item<int64_t>();
  if (words < 3 || words > (int64_t{1} << 20)) {
    return absl::DataLossError(absl::StrCat("the message from rank ", peer, " announces a ",
                                            words, "-word header: not a pipeline's message"));
  }
  auto header_part = group.start_recv(at::empty({words}, longs), peer, tag_of(sequence, 1));
  if (!header_part.ok()) return header_part.status();
  const at::Tensor header_tensor = header_part->tensors[0];
  if (absl::Status s = group.wait(*header_part, what); !s.ok()) return s;
  const auto arrived = std::chrono::steady_clock::now();
  const at::Tensor header_cpu = header_tensor.to(at::kCPU).contiguous();
  std::vector<int64_t> header(header_cpu.data_ptr<int64_t>(),
                              header_cpu.data_ptr<int64_t>() + words);
  // Tensors arrive on the group's device, then go where the stage runs.
  auto values = decode_header(header, names, sequence, peer, group.device());
  if (!values.ok()) return values.status();
  std::vector<Transfer> transfers;
  int64_t part = 2;
  for (const at::Tensor& t : tensors_of(*values)) {
    auto transfer = group.start_recv(t, peer, tag_of(sequence, part++));
    if (!transfer.ok()) return transfer.status();
    transfers.push_back(*std::move(transfer));
  }
  for (Transfer& transfer : transfers) {
    if (absl::Status s = group.wait(transfer, what); !s.ok()) return s;
  }
  if (device != group.device()) {
    for (c10::IValue& v : *values) {
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
