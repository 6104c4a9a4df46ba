// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/allocation_cache.h"

#include <atomic>
#include <map>
#include <unordered_map>
#include <mutex>
#include <utility>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/version.h>

// libtorch 2.3 made Allocator::allocate non-const and added copy_data.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define FX_ALLOCATOR_2_3 1
#else
#define FX_ALLOCATOR_2_3 0
#endif

namespace fx {

struct AllocationCache::Pool {
  std::mutex mutex;
  std::multimap<size_t, void*> free;  // by size
  size_t free_bytes = 0;
  size_t reused = 0;

  ~Pool() {
    for (auto& [bytes, p] : free) c10::free_cpu(p);
  }
};

namespace {

// The pool of the innermost Scope on this thread (the cache's own pointer).
thread_local const std::shared_ptr<AllocationCache::Pool>* current_pool = nullptr;

// Cached blocks in use, by address: a block's DataPtr has the block's own
// address as its context (as libtorch's allocator gives), so that
// Allocator::raw_allocate, which oneDNN's allocations go through, takes it,
// and the deleter finds the block here.
struct Block {
  std::shared_ptr<AllocationCache::Pool> pool;  // kept alive by the block
  size_t bytes;
};
std::mutex& blocks_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::unordered_map<void*, Block>& blocks() {
  static auto* b = new std::unordered_map<void*, Block>();
  return *b;
}

// What the allocator wraps (libtorch's CPU allocator when it was installed)
// and its deleter. libtorch publishes an installed allocator with a plain
// store (c10::SetAllocator) and reads it with a plain load, so a thread that
// allocates through it has not synchronised with the thread that installed
// it. What install_once writes is stored with release and read with
// acquire, and a release fence comes before the allocator is published; the
// load of the allocator pointer itself stays libtorch's, ordered on weakly
// ordered CPUs only by the dependency of every read on that pointer.
std::atomic<c10::DeleterFnPtr> wrapped_deleter{nullptr};

// Frees a block of this allocator: a cached one goes back to its pool; any
// other (raw_deallocate of memory the wrapped allocator gave) to that one.
void release(void* data) {
  Block block;
  {
    std::lock_guard<std::mutex> lock(blocks_mutex());
    auto it = blocks().find(data);
    if (it == blocks().end()) {
      if (c10::DeleterFnPtr deleter = wrapped_deleter.load(std::memory_order_acquire)) deleter(data);
      return;
    }
    block = std::move(it->second);
    blocks().erase(it);
  }
  std::lock_guard<std::mutex> lock(block.pool->mutex);
  block.pool->free.emplace(block.bytes, data);
  block.pool->free_bytes += block.bytes;
}

class CachingCpuAllocator final : public c10::Allocator {
 public:
  explicit CachingCpuAllocator(c10::Allocator* wrapped) {
    wrapped_.store(wrapped, std::memory_order_release);
  }

#if FX_ALLOCATOR_2_3
  c10::DataPtr allocate(size_t bytes) override {
#else
  c10::DataPtr allocate(size_t bytes) const override {
#endif
    if (current_pool == nullptr || bytes < AllocationCache::kMinBytes) {
      return wrapped_.load(std::memory_order_acquire)->allocate(bytes);
    }
    AllocationCache::Pool* pool = current_pool->get();
    void* data = nullptr;
    {
      std::lock_guard<std::mutex> lock(pool->mutex);
      auto it = pool->free.find(bytes);
      if (it != pool->free.end()) {
        data = it->second;
        pool->free.erase(it);
        pool->free_bytes -= bytes;
        ++pool->reused;
      }
    }
    if (data == nullptr) data = c10::alloc_cpu(bytes);
    {
      std::lock_guard<std::mutex> lock(blocks_mutex());
      blocks()[data] = Block{*current_pool, bytes};
    }
    return c10::DataPtr(data, data, &release, c10::Device(c10::kCPU));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

#if FX_ALLOCATOR_2_3
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 private:
  std::atomic<c10::Allocator*> wrapped_{nullptr};
};

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::Allocator* wrapped = c10::GetCPUAllocator();
    wrapped_deleter.store(wrapped->raw_deleter(), std::memory_order_release);
    static auto* allocator = new CachingCpuAllocator(wrapped);
    std::atomic_thread_fence(std::memory_order_release);
    c10::SetCPUAllocator(allocator, /*priority=*/0);
  });
}

}  // namespace

AllocationCache::AllocationCache() : pool_(std::make_shared<Pool>()) {}

AllocationCache::~AllocationCache() = default;

AllocationCache::Scope::Scope(AllocationCache& cache) : previous_(current_pool) {
  install_once();
  current_pool = &cache.pool_;
}

AllocationCache::Scope::~Scope() {
  current_pool = static_cast<const std::shared_ptr<Pool>*>(previous_);
}

size_t AllocationCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(pool_->mutex);
  return pool_->free_bytes;
}

size_t AllocationCache::reused() const {
  std::lock_guard<std::mutex> lock(pool_->mutex);
  return pool_->reused;
}

}  // namespace fx
