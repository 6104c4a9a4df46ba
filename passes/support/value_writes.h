// Copyright 2026 The FX for C++ Authors.
//
// value_writes.h: whether a graph may write a value, directly or through a
// view or alias of it, as passes must know before they keep a value in
// another layout (mkldnn_layout: a strided copy would be written instead) or
// replace a tensor by one computed from it once (fold_bn, const_fold: the
// graph would write the original, and the folded copy would not follow;
// transpose_linear: nothing may read the stored transpose but its linear
// calls). One analysis, shared by every pass that asks.
//
//   if (const fx::Node* w = fx::writer_of(*get_attr, {})) ...   // w may write it
//
// Contracts: reads the graph only; conservative (what cannot be seen into,
// modules and Python functions, may write).
#ifndef FX_PASSES_SUPPORT_VALUE_WRITES_H_
#define FX_PASSES_SUPPORT_VALUE_WRITES_H_

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "absl/container/flat_hash_set.h"
#include "core/export.h"
#include "core/graph.h"
#include "passes/support/tensor_readers.h"

namespace fx {

// Users that read only a value's rank or sizes (which an MKLDNN tensor has,
// and folding leaves as they were).
FX_API bool reads_sizes_only(const Node& user);

// Whether `user` may write its argument `value`: an impure call, one whose
// schema writes the parameter taking `value` (or a list holding it: an
// out= list), a leaf function called in place, an in-place method (`add_`,
// Python's `__ior__` and the other augmented assignments) or one given
// `out=`, any module.
FX_API bool may_write(const Node& user, const Node& value);

// Whether the result of `user` may share its operands' storage.
FX_API bool may_alias(const Node& user);

// Whether `user` only reads `value`: a call_function that may not write it
// and whose result may not share its storage, so that it neither writes
// `value` nor hands it out (the output, a module call, a view do).
FX_API bool only_reads(const Node& user, const Node& value);

// A node outside `skip` that may write `value`, directly or through a view or
// alias of it; nullptr when none.
FX_API const Node* writer_of(const Node& value, const absl::flat_hash_set<Node*>& skip);

// A node outside `skip` that may write `value` or a tensor it may view (the
// base of a slice, and that base's other views); nullptr when none.
FX_API const Node* value_writer(Node& value, const absl::flat_hash_set<Node*>& skip);

// Whether a node outside `skip` may write `value` or a tensor it may view.
FX_API bool may_be_written(Node& value, const absl::flat_hash_set<Node*>& skip);

// Whether the graph may write the attribute `target`, through any get_attr of it.
FX_API bool attribute_may_be_written(const Graph& graph, const std::string& target);

// A node outside `skip` that may write the tensor `t` of the module, found by
// its storage (so also through a view or a tied attribute of it): a get_attr
// reading it whose value a node may write, directly or through a view, or a
// call_module whose submodule holds it (a module's forward may update its
// buffers); nullptr when none.
FX_API const Node* tensor_writer(const TensorReaders& readers, const at::Tensor& t,
                                 const absl::flat_hash_set<Node*>& skip);

// Who may write the storage a value reads, module state and graph inputs
// included: the one question every pass that moves, merges, folds or
// re-lays-out work asks before reading a value at another place than the
// graph does.
//
//   const fx::StorageWrites writes(gm);
//   if (const fx::Node* w = writes.writer(*value, {})) ...   // w may write it
//
// Beside value_writer's answer (a node that writes `value`, a view of it or
// what it views), a node outside `skip` that may write:
//   * a tensor of the module that `value` is or may view (a get_attr, or a
//     view of one: `self.bn.running_mean.view(8)`): a call_module whose
//     submodule holds that storage (its forward may update any of its
//     tensors in place, a BatchNorm's statistics in training, a cache's
//     memory), or a writer of another get_attr of the same storage;
//   * another graph input, when `value` is or views a graph input: a caller
//     may pass one tensor as two inputs, and a write to one is a write to the
//     other.
// Contracts: a snapshot of the graph and module when constructed; reads only;
// conservative.
class FX_API StorageWrites {
 public:
  explicit StorageWrites(const GraphModule& gm);

  const Node* writer(Node& value, const absl::flat_hash_set<Node*>& skip) const;

 private:
  const GraphModule& gm_;
  TensorReaders readers_;
  std::vector<Node*> placeholders_;
};

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_VALUE_WRITES_H_
