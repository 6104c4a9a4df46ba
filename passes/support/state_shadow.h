// Copyright 2026 The FX for C++ Authors.
//
// state_shadow.h: running a graph without changing its module's state.
//
// A pass that runs the graph to learn something (shape_prop, split's
// cost=time) must leave the module as it found it: a model that advances a
// step counter or a batch norm's running statistics in forward would
// otherwise compute its second call from then on, and `--save` would write the
// advanced state. While a StateShadow lives, every tensor of the module's
// state is a copy (GraphModule::replace_state_tensors); destroying it puts the
// originals back, untouched whatever the runs wrote.
//
//   auto shadow = StateShadow::enter(module);   // copies swapped in
//   if (!shadow.ok()) return shadow.status();
//   ... run the graph (an Interpreter made now) ...
//   (*shadow)->renew();                         // fresh copies, for a run from the start
//   shadow->reset();                            // the originals back
//
// The copies suit a run with autograd, as the originals may not: a tensor
// that requires grad is copied into one that is no leaf (a graph that writes a
// parameter in forward -- weight clipping, Embedding's max_norm -- then runs,
// as it does in PyTorch under no_grad), and an inference tensor into a
// normal one (autograd may save it). Values, sizes, strides, storage offsets,
// dtypes and requires_grad are the originals'; tensors sharing storage share
// the copy's (views of one another stay views), except across dtypes.
//
// Contracts: one copy of the state is held while it lives; an Interpreter or
// plan made before `enter` or `renew` still reads the tensors it read then
// (make it after: the module's version() advances at each swap); errors
// (memory) are statuses, and leave the originals in place.
#ifndef FX_PASSES_SUPPORT_STATE_SHADOW_H_
#define FX_PASSES_SUPPORT_STATE_SHADOW_H_

#include <memory>

#include <ATen/core/Tensor.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {

class FX_API StateShadow {
 public:
  static absl::StatusOr<std::unique_ptr<StateShadow>> enter(GraphModule& module);
  ~StateShadow();
  StateShadow(const StateShadow&) = delete;
  StateShadow& operator=(const StateShadow&) = delete;

  // Replaces the copies by fresh ones of the originals.
  absl::Status renew();

 private:
  explicit StateShadow(GraphModule& module) : module_(module) {}
  absl::Status swap_in();
  void swap_out();

  GraphModule& module_;
  // Each copy's original, by the copy's TensorImpl.
  absl::flat_hash_map<const c10::TensorImpl*, at::Tensor> original_of_;
};

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_STATE_SHADOW_H_
