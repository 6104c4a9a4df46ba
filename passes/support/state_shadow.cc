// Copyright 2026 The FX for C++ Authors.
#include "passes/support/state_shadow.h"

#include <tuple>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// `copy` made a non-leaf that requires grad, with the same values (x * 1 is
// x, signed zeros and NaNs included).
at::Tensor requiring_grad(const at::Tensor& copy) {
  return copy.mul(at::ones({}, copy.options()).requires_grad_(true));
}

bool shares_by_storage(const at::Tensor& t) {
  return t.layout() == c10::kStrided && !t.is_quantized() && t.has_storage() &&
         t.storage().unsafeGetStorageImpl() != nullptr && t.itemsize() > 0;
}

// Copies of `originals`, by TensorImpl: tensors of one storage and dtype are
// views of one copy of that storage, at their own sizes, strides and offset.
absl::flat_hash_map<const c10::TensorImpl*, at::Tensor> copies_of(
    const std::vector<at::Tensor>& originals) {
  using Key = std::pair<const c10::StorageImpl*, c10::ScalarType>;
  absl::flat_hash_map<Key, bool> grad_in_group;
  for (const at::Tensor& t : originals) {
    if (!shares_by_storage(t)) continue;
    bool& grad = grad_in_group[Key(t.storage().unsafeGetStorageImpl(), t.scalar_type())];
    grad = grad || t.requires_grad();
  }
  absl::flat_hash_map<Key, at::Tensor> bases;
  absl::flat_hash_map<const c10::TensorImpl*, at::Tensor> copies;
  for (const at::Tensor& t : originals) {
    at::Tensor copy;
    if (shares_by_storage(t)) {
      const Key key(t.storage().unsafeGetStorageImpl(), t.scalar_type());
      auto [it, fresh] = bases.try_emplace(key);
      if (fresh) {
        const int64_t elements = static_cast<int64_t>(t.storage().nbytes() / t.itemsize());
        at::Tensor whole = at::empty({0}, t.options()).set_(t.storage(), 0, {elements}, {1});
        it->second = whole.clone();
        if (grad_in_group.at(key)) it->second = requiring_grad(it->second);
      }
      copy = it->second.as_strided(t.sizes(), t.strides(), t.storage_offset());
    } else {
      copy = t.detach().clone();
      if (t.requires_grad()) copy = requiring_grad(copy);
    }
    if (!t.requires_grad() && copy.requires_grad()) copy = copy.detach();
    copies.emplace(t.unsafeGetTensorImpl(), std::move(copy));
  }
  return copies;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateShadow>> StateShadow::enter(GraphModule& module) {
  std::unique_ptr<StateShadow> shadow(new StateShadow(module));
  if (absl::Status s = shadow->swap_in(); !s.ok()) return s;
  return shadow;
}

StateShadow::~StateShadow() { swap_out(); }

absl::Status StateShadow::renew() {
  swap_out();
  return swap_in();
}

absl::Status StateShadow::swap_in() {
  std::vector<at::Tensor> originals;
  absl::flat_hash_set<const c10::TensorImpl*> seen;
  module_.replace_state_tensors([&](const at::Tensor& t) {
    if (t.defined() && seen.insert(t.unsafeGetTensorImpl()).second) originals.push_back(t);
    return t;
  });
  absl::flat_hash_map<const c10::TensorImpl*, at::Tensor> copies;
  try {
    // Copies for a run with autograd, made normal tensors whatever the caller's mode.
    c10::InferenceMode normal_tensors(false);
    c10::AutoGradMode grad(true);
    copies = copies_of(originals);
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot copy the module's state (", originals.size(),
        " tensors) to run the graph without changing it: ", exception_message(e)));
  }
  for (const at::Tensor& t : originals) original_of_.emplace(copies.at(t.unsafeGetTensorImpl()).unsafeGetTensorImpl(), t);
  module_.replace_state_tensors([&](const at::Tensor& t) {
    if (!t.defined()) return t;
    auto it = copies.find(t.unsafeGetTensorImpl());
    return it == copies.end() ? t : it->second;
  });
  return absl::OkStatus();
}

void StateShadow::swap_out() {
  if (original_of_.empty()) return;
  module_.replace_state_tensors([&](const at::Tensor& t) {
    if (!t.defined()) return t;
    auto it = original_of_.find(t.unsafeGetTensorImpl());
    return it == original_of_.end() ? t : it->second;
  });
  original_of_.clear();
}

}  // namespace fx
