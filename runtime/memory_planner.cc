// Copyright 2026 The FX for C++ Authors.
#include "runtime/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace fx {
namespace {

size_t round_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

ArenaLayout plan_arena(const std::vector<PlannedTensor>& tensors, size_t alignment) {
  ArenaLayout layout;
  layout.offsets.assign(tensors.size(), 0);
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tensors[a].bytes > tensors[b].bytes; });
  // Placed tensors as (offset, end, index), kept sorted by offset.
  struct Placed {
    size_t offset, end, index;
  };
  std::vector<Placed> placed;
  for (size_t i : order) {
    const PlannedTensor& t = tensors[i];
    const size_t bytes = round_up(std::max<size_t>(t.bytes, 1), alignment);
    layout.total_bytes += t.bytes;
    // The lowest gap between tensors alive at the same time that fits.
    size_t offset = 0;
    for (const Placed& p : placed) {
      const PlannedTensor& other = tensors[p.index];
      const bool overlaps_in_time = !(other.last < t.first || t.last < other.first);
      if (!overlaps_in_time) continue;
      if (p.offset >= offset + bytes) break;  // fits below this one
      offset = std::max(offset, p.end);
    }
    layout.offsets[i] = offset;
    Placed mine{offset, offset + bytes, i};
    placed.insert(std::upper_bound(placed.begin(), placed.end(), mine,
                                   [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
                  mine);
    layout.arena_bytes = std::max(layout.arena_bytes, offset + bytes);
  }
  return layout;
}

}  // namespace fx
