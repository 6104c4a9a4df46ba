// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/memory_planner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;

bool overlap(size_t a_offset, size_t a_bytes, size_t b_offset, size_t b_bytes) {
  return a_offset < b_offset + b_bytes && b_offset < a_offset + a_bytes;
}

TEST(MemoryPlannerTest, TensorsAliveAtDifferentTimesShareBytes) {
  const ArenaLayout layout = plan_arena({{4096, 0, 3}, {4096, 2, 5}, {4096, 4, 9}});
  EXPECT_THAT(layout.offsets, ElementsAre(0, 4096, 0));
  EXPECT_EQ(layout.arena_bytes, 8192u);
  EXPECT_EQ(layout.total_bytes, 3u * 4096);
}

// A tensor read by the step that writes another is alive at that step.
TEST(MemoryPlannerTest, LifetimesTouchingAtAStepOverlap) {
  const ArenaLayout layout = plan_arena({{100, 0, 1}, {100, 1, 2}});
  EXPECT_NE(layout.offsets[0], layout.offsets[1]);
}

TEST(MemoryPlannerTest, OffsetsAreAlignedAndSmallTensorsFillGaps) {
  const ArenaLayout layout = plan_arena({{1000, 0, 10}, {10, 0, 10}, {1000, 0, 4}, {500, 5, 10}});
  for (size_t offset : layout.offsets) EXPECT_EQ(offset % 64, 0u);
  // The 500-byte tensor reuses the bytes of the 1000-byte one that died at 4.
  EXPECT_EQ(layout.offsets[3], layout.offsets[2]);
}

// Of two free gaps, the smaller that fits: the 4096-byte gap stays whole for
// a larger tensor.
TEST(MemoryPlannerTest, PlacesATensorInTheSmallestGapThatFits) {
  const ArenaLayout layout =
      plan_arena({{4096, 0, 1}, {1024, 0, 10}, {1024, 0, 1}, {1024, 0, 10}, {1024, 2, 3}});
  EXPECT_THAT(layout.offsets, ElementsAre(0, 4096, 5120, 6144, 5120));
  EXPECT_EQ(layout.arena_bytes, 7168u);
}

TEST(MemoryPlannerTest, FreedNeighboursMergeIntoOneGap) {
  const ArenaLayout layout = plan_arena({{1024, 0, 1}, {1024, 0, 1}, {1024, 0, 10}, {2048, 2, 3}});
  EXPECT_EQ(layout.offsets[3], 0u);
  EXPECT_EQ(layout.arena_bytes, 3072u);
}

// An unrolled loop: each result read by the next step only. Planning is
// O(n log n), so 200,000 of them are planned at once, into two slots.
TEST(MemoryPlannerTest, ALongChainAlternatesBetweenTwoSlots) {
  std::vector<PlannedTensor> chain;
  for (int i = 0; i < 200000; ++i) chain.push_back({4, i, i + 1});
  const ArenaLayout layout = plan_arena(chain);
  EXPECT_EQ(layout.arena_bytes, 128u);
  for (int i = 0; i < 200000; ++i) ASSERT_EQ(layout.offsets[i], i % 2 == 0 ? 0u : 64u) << i;
}

TEST(MemoryPlannerTest, NoTwoLiveTensorsOverlapOnAnyPlan) {
  std::vector<PlannedTensor> tensors;
  for (int i = 0; i < 200; ++i) {
    const int first = (i * 37) % 97;
    tensors.push_back({static_cast<size_t>(64 + (i * 7919) % 5000), first, first + (i * 13) % 11});
  }
  const ArenaLayout layout = plan_arena(tensors);
  size_t peak_live = 0;
  for (int step = 0; step < 110; ++step) {
    size_t live = 0;
    for (const PlannedTensor& t : tensors) live += t.first <= step && step <= t.last ? t.bytes : 0;
    peak_live = std::max(peak_live, live);
  }
  for (size_t a = 0; a < tensors.size(); ++a) {
    EXPECT_LE(layout.offsets[a] + tensors[a].bytes, layout.arena_bytes);
    for (size_t b = a + 1; b < tensors.size(); ++b) {
      const bool live_together =
          !(tensors[a].last < tensors[b].first || tensors[b].last < tensors[a].first);
      if (live_together) {
        EXPECT_FALSE(overlap(layout.offsets[a], tensors[a].bytes, layout.offsets[b], tensors[b].bytes))
            << a << " and " << b;
      }
    }
  }
  EXPECT_LT(layout.arena_bytes, layout.total_bytes);
  EXPECT_GE(layout.arena_bytes, peak_live);
}

}  // namespace
}  // namespace fx
