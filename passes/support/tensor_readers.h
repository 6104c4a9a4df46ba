// Copyright 2026 The FX for C++ Authors.
//
// tensor_readers.h: which nodes of a graph read each tensor of its module,
// by storage, for passes that replace a tensor with a computed copy
// (fold_bn's folded weights, transpose_linear's transposed ones) and must
// know whether anything else reads or may write it.
//
//   fx::TensorReaders readers(gm);
//   for (const fx::Node* r : readers.readers(weight)) ...   // get_attr / call_module nodes
//
// Contracts: a snapshot of the graph when constructed; a tensor is found by
// its storage, so views and tied attributes of one storage share readers.
#ifndef FX_PASSES_SUPPORT_TENSOR_READERS_H_
#define FX_PASSES_SUPPORT_TENSOR_READERS_H_

#include <vector>

#include <ATen/core/Tensor.h>

#include "absl/container/flat_hash_map.h"
#include "core/export.h"
#include "core/node.h"
#include "runtime/graph_module.h"

namespace fx {

class FX_API TensorReaders {
 public:
  explicit TensorReaders(const GraphModule& gm);

  // The nodes that read `t`'s storage, in graph order, once per read: get_attr
  // nodes that are used, and call_module nodes whose submodule holds it (as a
  // parameter, buffer or tensor attribute, at any depth).
  const std::vector<const Node*>& readers(const at::Tensor& t) const;

 private:
  absl::flat_hash_map<const void*, std::vector<const Node*>> readers_;
};

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_TENSOR_READERS_H_
