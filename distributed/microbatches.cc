// Copyright 2026 The FX for C++ Authors.
#include "distributed/microbatches.h"

#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/tensor_split.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/batch_independence.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/meta_device.h"

namespace fx {
namespace {

// The tensors of an output, named by position ("1.0", dict keys by name).
void flatten_tensor_leaves(const c10::IValue& v, const std::string& name,
                           std::vector<std::pair<std::string, at::Tensor>>& out) {
  auto child = [&](const std::string& key) { return name.empty() ? key : absl::StrCat(name, ".", key); };
  if (v.isTensor()) {
    out.emplace_back(name, v.toTensor());
  } else if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    for (size_t i = 0; i < items.size(); ++i) flatten_tensor_leaves(items[i], child(std::to_string(i)), out);
  } else if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) {
      const std::string key = entry.key().isString() ? entry.key().toStringRef() : entry.key().tagKind();
      flatten_tensor_leaves(entry.value(), child(key), out);
    }
  }
}

std::string describe(const at::Tensor& t) {
  return absl::StrCat(absl::AsciiStrToLower(c10::toString(t.scalar_type())), "[", absl::StrJoin(t.sizes(), ", "), "]");
}

absl::Status not_along_the_batch(const std::string& shown, const at::Tensor& t, int64_t rows,
                                 absl::string_view batch) {
  return absl::InvalidArgumentError(absl::StrCat(
      shown, " is ", describe(t), " for ", batch, " of ", rows,
      " rows: its dim 0 is not the batch, so the micro-batches' outputs cannot be put back "
      "together along it (a Gram matrix, a statistic over the batch): run with "
      "--microbatches=1"));
}

absl::StatusOr<c10::IValue> concat(const std::vector<c10::IValue>& parts, const std::vector<int64_t>& rows,
                                   const std::string& name) {
  const c10::IValue& first = parts.front();
  const std::string shown = name.empty() ? "the output" : absl::StrCat("output ", name);
  if (first.isTensor()) {
    std::vector<at::Tensor> tensors;
    for (size_t k = 0; k < parts.size(); ++k) {
      const c10::IValue& p = parts[k];
      if (!p.isTensor()) return absl::InvalidArgumentError(absl::StrCat(shown, " is not a tensor in every micro-batch"));
      tensors.push_back(p.toTensor());
      if (tensors.back().dim() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            shown, " is a 0-dim tensor, which micro-batches cannot be concatenated into: run "
            "with --microbatches=1"));
      }
      if (tensors.back().size(0) != rows[k]) {
        return not_along_the_batch(shown, tensors.back(), rows[k], absl::StrCat("micro-batch ", k));
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
      auto item = concat(column, rows, name.empty() ? std::to_string(i) : absl::StrCat(name, ".", i));
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
      auto item = concat(column, rows, name.empty() ? key : absl::StrCat(name, ".", key));
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
  if (count == 1) return std::vector<std::vector<c10::IValue>>{inputs};
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
  // Only now, once the rows bound `count`, its parts are made.
  std::vector<std::vector<c10::IValue>> parts(count);
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

absl::StatusOr<c10::IValue> concat_microbatches(const std::vector<c10::IValue>& outputs,
                                                const std::vector<int64_t>& rows) {
  if (outputs.size() != rows.size()) {
    return absl::DataLossError(absl::StrCat("the last stage has ", outputs.size(),
                                            " micro-batch outputs of ", rows.size(),
                                            ": a micro-batch was lost"));
  }
  if (rows.size() == 1) return outputs.front();
  return concat(outputs, rows, "");
}

namespace {

// Dim 0 of every tensor output is the rows, at the whole batch and at a
// micro-batch (issue 35).
absl::Status check_dim_zero(const GraphModule& module, const std::vector<c10::IValue>& inputs,
                            const std::vector<std::vector<c10::IValue>>* parts) {
  PlanOptions on_meta;
  on_meta.device = c10::Device(c10::kMeta);
  auto plan = ExecutionPlan::compile(module, on_meta);
  if (!plan.ok()) return absl::OkStatus();  // left to concat_microbatches
  for (const std::vector<c10::IValue>* batch :
       std::initializer_list<const std::vector<c10::IValue>*>{&inputs, &parts->front()}) {
    std::vector<c10::IValue> shapes;
    for (const c10::IValue& v : *batch) shapes.push_back(to_meta(v));
    absl::StatusOr<c10::IValue> out = (*plan)->run(std::move(shapes));
    if (!out.ok()) return absl::OkStatus();  // the meta device cannot run it
    int64_t rows = 0;
    for (const c10::IValue& v : *batch) {
      if (v.isTensor()) rows = v.toTensor().size(0);
    }
    std::vector<std::pair<std::string, at::Tensor>> leaves;
    flatten_tensor_leaves(*out, "", leaves);
    for (const auto& [name, t] : leaves) {
      const std::string shown = name.empty() ? "the output" : absl::StrCat("output ", name);
      if (t.dim() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            shown, " is a 0-dim tensor, which micro-batches cannot be concatenated into: run "
            "with --microbatches=1"));
      }
      if (t.size(0) != rows) {
        return not_along_the_batch(shown, t, rows, batch == &inputs ? "the whole batch" : "a micro-batch");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status check_outputs_follow_the_batch(const GraphModule& module, const std::vector<c10::IValue>& inputs,
                                            int count) {
  if (count <= 1) return absl::OkStatus();
  auto parts = split_microbatches(inputs, count);
  if (!parts.ok()) return parts.status();
  if (absl::Status s = check_dim_zero(module, inputs, &*parts); !s.ok()) return s;
  // Issue 53: dims that follow the batch are not enough (x @ x.t() is
  // [rows, rows]): every sample's outputs must depend on that sample alone.
  return check_samples_kept_apart(module, inputs, count);
}

}  // namespace fx
