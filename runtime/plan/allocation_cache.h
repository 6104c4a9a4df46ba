// Copyright 2026 The FX for C++ Authors.
//
// allocation_cache.h (internal to runtime/): CPU memory that a run's
// operators allocate themselves, kept for the next run.
//
// The memory planner places the results of operators with an out= overload
// in the plan's arena. The others (oneDNN's fused convolutions,
// mkldnn::_convolution_pointwise, have none) allocate their results through
// libtorch's CPU allocator at every run, and glibc hands blocks above 32 MiB
// (MobileNetV2's activations at batch 8) straight back to the kernel when
// they are freed: the next run faults every page in again, zero-filled (40%
// of the time of such a run). ONNX Runtime keeps an arena for this; here,
// while a Scope lives on a thread, libtorch's CPU allocations on that thread
// of at least kMinBytes are served from the cache's freed blocks of the same
// size, and go back to it when freed (whenever, on whichever thread), to be
// freed with the cache:
//
//   AllocationCache cache;                 // one per RunState
//   { AllocationCache::Scope scope(cache);  run the steps }
//
// Contracts:
//   * The first Scope installs a CPU allocator that wraps libtorch's (the one
//     it finds, through c10::SetCPUAllocator, at libtorch's default
//     priority: an allocator installed at a higher one stays, and the cache
//     then caches nothing). Outside a Scope it allocates as libtorch's did.
//   * The cache holds at most what one run allocated and freed (blocks are
//     reused by exact size: runs of one input signature allocate the same
//     sizes); it frees them when it is destroyed; a block still in a tensor
//     then is freed when the tensor is.
//   * A cache is used by one thread at a time (as a RunState is); its blocks
//     may be freed from any thread.
#ifndef FX_RUNTIME_PLAN_ALLOCATION_CACHE_H_
#define FX_RUNTIME_PLAN_ALLOCATION_CACHE_H_

#include <cstddef>
#include <memory>

namespace fx {

class AllocationCache {
 public:
  // Smaller allocations go to libtorch's allocator as they did.
  static constexpr size_t kMinBytes = size_t{1} << 16;

  AllocationCache();
  ~AllocationCache();
  AllocationCache(const AllocationCache&) = delete;
  AllocationCache& operator=(const AllocationCache&) = delete;

  class Scope {
   public:
    explicit Scope(AllocationCache& cache);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const void* previous_;
  };

  // Bytes in freed blocks the cache holds now.
  size_t cached_bytes() const;
  // Allocations served from the cache so far.
  size_t reused() const;

  struct Pool;

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_ALLOCATION_CACHE_H_
