// Copyright 2026 The FX for C++ Authors.
#include "passes/support/tensor_readers.h"

#include "runtime/value_conversion.h"

namespace fx {

TensorReaders::TensorReaders(const GraphModule& gm) {
  const auto add = [this](const at::Tensor& t, const Node& reader) {
    readers_[storage_identity(t)].push_back(&reader);
  };
  for (const Node* n : gm.graph().nodes()) {
    if (n->op() == Op::kGetAttr && !n->users().empty()) {
      auto v = gm.get_attr(n->target());
      if (v.ok() && v->isTensor()) add(v->toTensor(), *n);
    } else if (n->op() == Op::kCallModule) {
      auto m = gm.get_submodule(n->target());
      if (!m.ok()) continue;
      for (const auto& [name, tensor] : (*m)->named_tensors()) add(tensor, *n);
    }
  }
}

const std::vector<const Node*>& TensorReaders::readers(const at::Tensor& t) const {
  static const std::vector<const Node*> kNone;
  auto it = readers_.find(storage_identity(t));
  return it == readers_.end() ? kNone : it->second;
}

}  // namespace fx
