// Copyright 2026 The FX for C++ Authors.
//
// Values and module state on the meta device (meta_device.h). The kernels
// are in meta_kernels.cc.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>

#include "absl/container/flat_hash_map.h"
#include "runtime/meta_device.h"

namespace fx {
namespace {

// A tensor of `t`'s sizes, strides and dtype on the meta device, a leaf where
// `t` is one and an autograd result where `t` is (in-place operators accept
// the one only when they accept the other); for a module's state
// (`as_state`), an autograd result wherever `t` requires grad.
at::Tensor meta_like(const at::Tensor& t, bool as_state) {
  const at::TensorOptions options = t.options().device(c10::kMeta);
  if (!t.requires_grad() || (t.is_leaf() && !as_state)) {
    at::Tensor m = at::empty_strided(t.sizes(), t.strides(), options);
    return t.requires_grad() ? m.requires_grad_(true) : m;
  }
  int64_t extent = 1;  // elements the strides reach
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 0) extent = 0;
  }
  for (int64_t d = 0; extent > 0 && d < t.dim(); ++d) extent += (t.size(d) - 1) * t.stride(d);
  return at::empty({extent}, options).requires_grad_(true).clone().as_strided(t.sizes(),
                                                                               t.strides());
}

// `v` with its tensors replaced by meta_like ones (quantized and sparse ones
// stay).
c10::IValue on_meta(const c10::IValue& v, bool as_state) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || t.is_meta() || t.layout() != c10::kStrided || t.is_quantized()) return v;
    return meta_like(t, as_state);
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& item : v.toTupleRef().elements()) items.push_back(on_meta(item, as_state));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  if (v.isList()) {
    c10::impl::GenericList list = v.toList();
    c10::impl::GenericList out(list.elementType());
    out.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) out.push_back(on_meta(list.get(i), as_state));
    return out;
  }
  if (v.isGenericDict()) {
    c10::impl::GenericDict dict = v.toGenericDict();
    c10::impl::GenericDict out(dict.keyType(), dict.valueType());
    for (const auto& entry : dict) out.insert(entry.key(), on_meta(entry.value(), as_state));
    return out;
  }
  return v;
}

}  // namespace

c10::IValue to_meta(const c10::IValue& value) { return on_meta(value, /*as_state=*/false); }

c10::IValue state_to_meta(const c10::IValue& value) { return on_meta(value, /*as_state=*/true); }

std::shared_ptr<Module> module_on_meta(const Module& module) {
  std::shared_ptr<Module> copy =
      module.with_tensors([](const at::Tensor& t) { return state_to_meta(t).toTensor(); });
  // Tensors inside lists, tuples and dicts too.
  copy->replace_values([](const c10::IValue& v) { return v.isTensor() ? v : state_to_meta(v); });
  return copy;
}

}  // namespace fx
