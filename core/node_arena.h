// Copyright 2026 The FX for C++ Authors.
//
// node_arena.h: storage for a Graph's Nodes (internal to core/).
//
// Nodes are allocated in chunks that never move, so a Node* stays valid for the
// lifetime of its Graph, including after the node is erased (iterators standing
// on an erased node still follow its links). Chunks grow geometrically: building
// a graph costs one allocation per few thousand nodes instead of one per node.
#ifndef FX_CORE_NODE_ARENA_H_
#define FX_CORE_NODE_ARENA_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace fx {

template <typename T>
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    // Destroy in allocation order, chunk by chunk.
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t used = c + 1 == chunks_.size() ? used_in_last_ : chunks_[c].capacity;
      for (size_t i = 0; i < used; ++i) chunks_[c].at(i)->~T();
    }
  }

  template <typename... Args>
  T* make(Args&&... args) {
    if (chunks_.empty() || used_in_last_ == chunks_.back().capacity) {
      const size_t capacity = chunks_.empty() ? kFirstChunk
                                              : std::min(chunks_.back().capacity * 2, kMaxChunk);
      // Raw storage: not zeroed, each slot is constructed when handed out.
      chunks_.push_back(Chunk{std::unique_ptr<Slot[]>(new Slot[capacity]), capacity});
      used_in_last_ = 0;
    }
    T* object = new (chunks_.back().at(used_in_last_)) T(std::forward<Args>(args)...);
    ++used_in_last_;
    return object;
  }

 private:
  static constexpr size_t kFirstChunk = 16;
  static constexpr size_t kMaxChunk = 4096;
  struct alignas(T) Slot {
    unsigned char bytes[sizeof(T)];
  };
  struct Chunk {
    std::unique_ptr<Slot[]> slots;
    size_t capacity;
    T* at(size_t i) const { return std::launder(reinterpret_cast<T*>(slots[i].bytes)); }
  };
  std::vector<Chunk> chunks_;
  size_t used_in_last_ = 0;
};

}  // namespace fx

#endif  // FX_CORE_NODE_ARENA_H_
