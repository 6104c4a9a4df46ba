// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/allocation_cache.h"

#include <memory>
#include <thread>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <c10/core/CPUAllocator.h>

#include "gtest/gtest.h"

namespace fx {
namespace {

constexpr int64_t kLarge = 1 << 18;  // floats: 1 MiB, above kMinBytes

TEST(AllocationCache, ReusesFreedBlocksOfTheSameSizeInsideAScope) {
  AllocationCache cache;
  void* first = nullptr;
  {
    AllocationCache::Scope scope(cache);
    at::Tensor t = at::empty({kLarge});
    first = t.data_ptr();
  }
  EXPECT_EQ(cache.cached_bytes(), kLarge * sizeof(float));
  {
    AllocationCache::Scope scope(cache);
    at::Tensor again = at::ones({kLarge});
    EXPECT_EQ(again.data_ptr(), first);
    EXPECT_EQ(again.sum().item<float>(), static_cast<float>(kLarge));
    at::Tensor other_size = at::empty({kLarge + 1});
    EXPECT_NE(other_size.data_ptr(), first);
  }
  EXPECT_EQ(cache.reused(), 1u);
}

TEST(AllocationCache, SmallAllocationsAndOtherThreadsAreLibtorchs) {
  AllocationCache cache;
  AllocationCache::Scope scope(cache);
  { at::Tensor small = at::empty({16}); }
  EXPECT_EQ(cache.cached_bytes(), 0u);
  std::thread([] { at::Tensor elsewhere = at::empty({kLarge}); }).join();
  EXPECT_EQ(cache.cached_bytes(), 0u);
}

// A block freed on another thread goes back to its cache; one that outlives
// its cache is freed when its tensor is.
TEST(AllocationCache, BlocksGoBackFromAnyThreadAndMayOutliveTheCache) {
  auto cache = std::make_unique<AllocationCache>();
  at::Tensor kept, moved;
  {
    AllocationCache::Scope scope(*cache);
    kept = at::full({kLarge}, 2.0);
    moved = at::empty({kLarge});
  }
  std::thread([t = std::move(moved)]() mutable { t = at::Tensor(); }).join();
  EXPECT_EQ(cache->cached_bytes(), kLarge * sizeof(float));
  cache.reset();
  EXPECT_EQ(kept.sum().item<float>(), 2.0f * kLarge);
  kept = at::Tensor();  // freed now, its cache gone
}

// oneDNN allocates through raw_allocate/raw_deallocate, which need a block's
// context to be its address: cached blocks and others alike.
TEST(AllocationCache, RawAllocationsWork) {
  AllocationCache cache;
  AllocationCache::Scope scope(cache);
  c10::Allocator* allocator = c10::GetCPUAllocator();
  void* large = allocator->raw_allocate(kLarge * sizeof(float));
  void* small = allocator->raw_allocate(64);
  static_cast<float*>(large)[kLarge - 1] = 1.0f;
  allocator->raw_deallocate(large);
  allocator->raw_deallocate(small);
  EXPECT_EQ(cache.cached_bytes(), kLarge * sizeof(float));
  EXPECT_EQ(allocator->raw_allocate(kLarge * sizeof(float)), large);
  allocator->raw_deallocate(large);
}

TEST(AllocationCache, ScopesNest) {
  AllocationCache outer, inner;
  AllocationCache::Scope a(outer);
  {
    AllocationCache::Scope b(inner);
    at::Tensor t = at::empty({kLarge});
  }
  { at::Tensor t = at::empty({kLarge}); }
  EXPECT_EQ(inner.cached_bytes(), kLarge * sizeof(float));
  EXPECT_EQ(outer.cached_bytes(), kLarge * sizeof(float));
}

}  // namespace
}  // namespace fx
