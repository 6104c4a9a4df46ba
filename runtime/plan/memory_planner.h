// Copyright 2026 The FX for C++ Authors.
//
// memory_planner.h: where intermediate tensors live in one arena.
//
// Given each planned tensor's size in bytes and its lifetime (the steps from
// the one that writes it to the last that reads it or anything aliasing it),
// assigns byte offsets in one buffer so that tensors alive at the same time
// never overlap, and tensors that are not share bytes:
//
//   std::vector<PlannedTensor> t = {{4096, 0, 3}, {4096, 2, 5}, {4096, 4, 9}};
//   ArenaLayout layout = fx::plan_arena(t);
//   // layout.offsets == {0, 4096, 0}: the first and third share; arena 8 KiB.
//
// Contracts:
//   * Lifetimes are closed intervals [first, last]: two tensors whose
//     lifetimes share a step (one read while the other is written) never
//     overlap in memory.
//   * Offsets are multiples of `alignment`; `arena_bytes` is the end of the
//     highest placed tensor, rounded up to it.
//   * Best fit in time order (ONNX Runtime's planner): tensors are placed in
//     the order they are written (the larger first at one step), each in the
//     smallest free gap that fits, the bytes of dead tensors freed and merged
//     with free neighbours. O(n log n) in the number of tensors, so a plan of
//     200,000 steps is planned at once; not optimal: on the fixtures' plans
//     within 5% of greedy by size (largest first, lowest offset that fits,
//     which TFLite uses and which is quadratic).
#ifndef FX_RUNTIME_PLAN_MEMORY_PLANNER_H_
#define FX_RUNTIME_PLAN_MEMORY_PLANNER_H_

#include <cstddef>
#include <vector>

#include "core/export.h"

namespace fx {

struct FX_API PlannedTensor {
  size_t bytes = 0;
  int first = 0;  // the step that writes it
  int last = 0;   // the last step that reads it (or an alias of it)
};

struct FX_API ArenaLayout {
  std::vector<size_t> offsets;  // one per PlannedTensor, in the input's order
  size_t arena_bytes = 0;
  size_t total_bytes = 0;       // the sum of all tensors' sizes: what no sharing would need
};

FX_API ArenaLayout plan_arena(const std::vector<PlannedTensor>& tensors, size_t alignment = 64);

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_MEMORY_PLANNER_H_
