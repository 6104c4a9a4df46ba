// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/memory_planner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

namespace fx {
namespace {

size_t round_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// The free bytes of the arena below its top: blocks by offset (to merge
// neighbours) and by size (to find the smallest that fits).
class FreeBlocks {
 public:
  // Frees [offset, offset + bytes), merged with free neighbours; a block
  // reaching `top` lowers it instead.
  void release(size_t offset, size_t bytes, size_t& top) {
    auto next = by_offset_.lower_bound(offset);
    if (next != by_offset_.end() && next->first == offset + bytes) {
      bytes += next->second;
      next = erase(next);
    }
    if (next != by_offset_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        bytes += prev->second;
        erase(prev);
      }
    }
    if (offset + bytes == top) {
      top = offset;
      return;
    }
    by_offset_.emplace(offset, bytes);
    by_size_.emplace(bytes, offset);
  }

  // The offset of the smallest block of at least `bytes` (the lowest of
  // equal ones), its rest kept free; false when none fits.
  bool take(size_t bytes, size_t* offset) {
    auto it = by_size_.lower_bound({bytes, 0});
    if (it == by_size_.end()) return false;
    const auto [size, at] = *it;
    by_size_.erase(it);
    by_offset_.erase(at);
    if (size > bytes) {
      by_offset_.emplace(at + bytes, size - bytes);
      by_size_.emplace(size - bytes, at + bytes);
    }
    *offset = at;
    return true;
  }

 private:
  std::map<size_t, size_t>::iterator erase(std::map<size_t, size_t>::iterator it) {
    by_size_.erase({it->second, it->first});
    return by_offset_.erase(it);
  }
  std::map<size_t, size_t> by_offset_;        // offset -> bytes
  std::set<std::pair<size_t, size_t>> by_size_;  // (bytes, offset)
};

}  // namespace

ArenaLayout plan_arena(const std::vector<PlannedTensor>& tensors, size_t alignment) {
  ArenaLayout layout;
  layout.offsets.assign(tensors.size(), 0);
  // Tensors in the order they are written, the larger first at one step.
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tensors[a].first != tensors[b].first) return tensors[a].first < tensors[b].first;
    return tensors[a].bytes > tensors[b].bytes;
  });
  // Live tensors by their last step (the earliest first): (last, index).
  using Live = std::pair<int, size_t>;
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
  FreeBlocks free;
  size_t top = 0;
  for (size_t i : order) {
    const PlannedTensor& t = tensors[i];
    // Lifetimes are closed: a tensor last read at step s is still alive
    // while step s writes another.
    while (!live.empty() && live.top().first < t.first) {
      const size_t dead = live.top().second;
      live.pop();
      free.release(layout.offsets[dead], round_up(std::max<size_t>(tensors[dead].bytes, 1), alignment),
                   top);
    }
    const size_t bytes = round_up(std::max<size_t>(t.bytes, 1), alignment);
    layout.total_bytes += t.bytes;
    size_t offset = 0;
    if (!free.take(bytes, &offset)) {
      offset = top;
      top += bytes;
    }
    layout.offsets[i] = offset;
    live.emplace(t.last, i);
    layout.arena_bytes = std::max(layout.arena_bytes, offset + bytes);
  }
  return layout;
}

}  // namespace fx
