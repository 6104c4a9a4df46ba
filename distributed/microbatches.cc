// Copyright 2026 The FX for C++ Authors.
#include "distributed/microbatches.h"

#include <string>

#include <ATen/ATen.h>

#include "absl/strings/str_cat.h"

namespace fx {
namespace {

absl::StatusOr<c10::IValue> concat(const std::vector<c10::IValue>& parts, const std::string& name) {
  const c10::IValue& first = parts.front();
  const std::string shown = name.empty() ? "the output" : absl::StrCat("output ", name);
  if (first.isTensor()) {
    std::vector<at::Tensor> tensors;
    for (const c10::IValue& p : parts) {
      if (!p.isTensor()) return absl::InvalidArgumentError(absl::StrCat(shown, " is not a tensor in every micro-batch"));
      tensors.push_back(p.toTensor());
      if (tensors.back().dim() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            shown, " is a 0-dim tensor, which micro-batches cannot be concatenated into: run "
            "with --microbatches=1"));
      }
    }
    return at::cat(tensors, 0);
  }
  if (first.isTuple() || first.isList()) {
    const size_t n = first.isTuple() ? first.toTupleRef().elements().size() : first.toListRef().size();
    std::vector<c10::IValue> items;
    for (size_t i = 0; i < n; ++i) {
      std::vector<c10::IValue> column;
      for (const c10::IValue& p : parts) {
        const bool same_kind = first.isTuple() ? p.isTuple() : p.isList();
        const size_t size = !same_kind ? 0 : p.isTuple() ? p.toTupleRef().elements().size() : p.toListRef().size();
        if (size != n) {
          return absl::InvalidArgumentError(absl::StrCat(
              shown, " has another structure in another micro-batch"));
        }
        column.push_back(p.isTuple() ? p.toTupleRef().elements()[i] : p.toListRef()[i]);
      }
      auto item = concat(column, name.empty() ? std::to_string(i) : absl::StrCat(name, ".", i));
      if (!item.ok()) return item.status();
      items.push_back(*std::move(item));
    }
    if (first.isTuple()) return c10::ivalue::Tuple::create(std::move(items));
    c10::impl::GenericList list(first.toList().elementType());
    for (c10::IValue& item : items) list.push_back(std::move(item));
    return list;
  }
  if (first.isGenericDict()) {
    c10::impl::GenericDict dict(first.toGenericDict().keyType(), first.toGenericDict().valueType());
    for (const auto& entry : first.toGenericDict()) {
      std::vector<c10::IValue> column;
      for (const c10::IValue& p : parts) {
        if (!p.isGenericDict() || !p.toGenericDict().contains(entry.key())) {
          return absl::InvalidArgumentError(absl::StrCat(shown, " has another structure in another micro-batch"));
        }
        column.push_back(p.toGenericDict().at(entry.key()));
      }
      const std::string key = entry.key().isString() ? entry.key().toStringRef() : entry.key().tagKind();
      auto item = concat(column, name.empty() ? key : absl::StrCat(name, ".", key));
      if (!item.ok()) return item.status();
      dict.insert(entry.key(), *std::move(item));
    }
    return dict;
  }
  for (const c10::IValue& p : parts) {
    if (!(p == first)) {
      return absl::InvalidArgumentError(absl::StrCat(
          shown, " is a ", first.tagKind(), " that differs between micro-batches, which cannot "
          "be put back together: run with --microbatches=1"));
    }
  }
  return first;
}

}  // namespace

std::vector<int64_t> microbatch_sizes(int64_t rows, int count) {
  std::vector<int64_t> sizes;
  for (int i = 0; i < count; ++i) sizes.push_back(rows / count + (i < rows % count ? 1 : 0));
  return sizes;
}

absl::StatusOr<std::vector<std::vector<c10::IValue>>> split_microbatches(
    const std::vector<c10::IValue>& inputs, int count) {
  if (count < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--microbatches=", count, ": give at least 1"));
  }
  std::vector<std::vector<c10::IValue>> parts(count);
  if (count == 1) {
    parts[0] = inputs;
    return parts;
  }
  int64_t rows = -1;
  size_t rows_input = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor()) continue;
    const at::Tensor& t = inputs[i].toTensor();
    if (t.dim() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--microbatches cuts every tensor input along dim 0, and input ", i,
          " is a 0-dim tensor: run with --microbatches=1"));
    }
    if (rows >= 0 && t.size(0) != rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--microbatches cuts every tensor input along dim 0 (the batch), and input ",
          rows_input, " has ", rows, " rows where input ", i, " has ", t.size(0),
          ": give inputs of one batch size, or --microbatches=1"));
    }
    if (rows < 0) rows_input = i;
    rows = t.size(0);
  }
  if (rows < 0) {
    return absl::InvalidArgumentError(
        "--microbatches cuts the tensor inputs along dim 0, and the graph takes none: run with "
        "--microbatches=1");
  }
  if (rows < count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--microbatches=", count, " needs a batch of at least ", count, " rows (dim 0 of the "
        "inputs), and it has ", rows, ": give fewer micro-batches or a larger batch"));
  }
  for (const c10::IValue& input : inputs) {
    if (!input.isTensor()) {
      for (auto& part : parts) part.push_back(input);
      continue;
    }
    // libtorch's own cut: views, the first rows % count pieces one row longer
    // (microbatch_sizes, which the reports print).
    std::vector<at::Tensor> pieces = at::tensor_split(input.toTensor(), count, 0);
    for (int k = 0; k < count; ++k) parts[k].emplace_back(std::move(pieces[k]));
  }
  return parts;
}

absl::StatusOr<c10::IValue> concat_microbatches(const std::vector<c10::IValue>& outputs, int count) {
  if (static_cast<int>(outputs.size()) != count) {
    return absl::DataLossError(absl::StrCat("the last stage has ", outputs.size(),
                                            " micro-batch outputs of ", count,
                                            ": a micro-batch was lost"));
  }
  if (count == 1) return outputs.front();
  return concat(outputs, "");
}

}  // namespace fx
