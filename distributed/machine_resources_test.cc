// Copyright 2026 The FX for C++ Authors.
#include "distributed/machine_resources.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// A machine of its own under $TEST_TMPDIR/<name>: /proc and /sys/fs/cgroup
// files with `files`' contents.
std::string fake_root(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& files) {
  const std::string root = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  for (const auto& [path, text] : files) {
    const std::string full = root + path;
    EXPECT_EQ(std::system(("mkdir -p '" + full.substr(0, full.rfind('/')) + "'").c_str()), 0);
    std::ofstream(full) << text;
  }
  return root;
}

const std::string kMeminfo = "MemTotal:       16000000 kB\nMemAvailable:    8388608 kB\n";

TEST(MachineResourcesTest, MemAvailableIsTheAvailableMemoryWithoutACgroupLimit) {
  const std::string root = fake_root("plain", {{"/proc/meminfo", kMeminfo},
                                               {"/proc/self/cgroup", "0::/\n"}});
  EXPECT_EQ(this_machine(root).available_memory, 8 * kGiB);
}

// A container of 3 GiB on a larger machine: the cgroup's limit, above the
// process's own cgroup (v2: "max" there), less what the cgroup uses.
TEST(MachineResourcesTest, ACgroupV2LimitAboveTheProcessLowersIt) {
  const std::string root = fake_root(
      "v2", {{"/proc/meminfo", kMeminfo},
             {"/proc/self/cgroup", "0::/box/job\n"},
             {"/sys/fs/cgroup/box/job/memory.max", "max\n"},
             {"/sys/fs/cgroup/box/job/memory.current", "1000\n"},
             {"/sys/fs/cgroup/box/memory.max", std::to_string(3 * kGiB) + "\n"},
             {"/sys/fs/cgroup/box/memory.current", std::to_string(kGiB) + "\n"}});
  EXPECT_EQ(this_machine(root).available_memory, 2 * kGiB);
}

// cgroup v1 (also on a hybrid machine, whose v1 memory controller is the
// one that limits): "no limit" is a page-rounded INT64_MAX.
TEST(MachineResourcesTest, ACgroupV1LimitLowersIt) {
  const std::string root = fake_root(
      "v1", {{"/proc/meminfo", kMeminfo},
             {"/proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/x\n0::/x\n"},
             {"/sys/fs/cgroup/memory/x/memory.limit_in_bytes", "9223372036854771712\n"},
             {"/sys/fs/cgroup/memory/x/memory.usage_in_bytes", "100\n"},
             {"/sys/fs/cgroup/memory/memory.limit_in_bytes", std::to_string(kGiB) + "\n"},
             {"/sys/fs/cgroup/memory/memory.usage_in_bytes", std::to_string(kGiB / 2) + "\n"}});
  EXPECT_EQ(this_machine(root).available_memory, kGiB / 2);
}

TEST(MachineResourcesTest, ThisMachineIsRead) {
  const MachineResources machine = this_machine();
  EXPECT_GT(machine.physical_memory, 0u);
  EXPECT_GT(machine.available_memory, 0u);
  EXPECT_LE(machine.available_memory, machine.physical_memory);
  EXPECT_GE(machine.cores, 1);
}

// Issue 36: 24 stages of ResNet-18 in 3 GiB were started, and OOM-killed.
TEST(MachineResourcesTest, RanksThatDoNotFitAreRefusedSayingWhy) {
  const MachineResources small{16 * kGiB, 3 * kGiB, 2};
  absl::Status s = check_ranks_fit(24, 334 * kMiB, "what each takes", "--stages=24", small);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("--stages=24 starts 24 processes on this machine, each of about 334 MiB "
                        "(what each takes), and it has 3.0 GiB of memory available"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("at most 9 fit"));
  EXPECT_TRUE(check_ranks_fit(9, 334 * kMiB, "", "--stages=9", small).ok());
  // No overflow, not one fitting.
  s = check_ranks_fit(2147483647, uint64_t{1} << 40, "", "--stages=2147483647", small);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("not one fits"));
  // Cores: at most kMaxRanksPerCore each, whatever the memory.
  const MachineResources large{kGiB << 10, kGiB << 10, 2};
  EXPECT_TRUE(check_ranks_fit(2 * kMaxRanksPerCore, 334 * kMiB, "", "--stages=16", large).ok());
  s = check_ranks_fit(2 * kMaxRanksPerCore + 1, 334 * kMiB, "", "--stages=17", large);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("--stages=17 starts 17 processes on this machine's 2 cores: at most 16"));
  // What is unknown bounds nothing.
  EXPECT_TRUE(check_ranks_fit(1000, 334 * kMiB, "", "--stages=1000", MachineResources{}).ok());
}

}  // namespace
}  // namespace fx
