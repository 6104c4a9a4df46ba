// Copyright 2026 The FX for C++ Authors.
#include "distributed/machine_resources.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fx {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file holding one number ("max", cgroup v2's "no limit", is none).
std::optional<uint64_t> read_number(const std::string& path) {
  std::optional<std::string> text = read_text(path);
  uint64_t n = 0;
  if (!text || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &n)) return std::nullopt;
  return n;
}

// MemAvailable, in bytes; 0 when unknown.
uint64_t mem_available(const std::string& root) {
  std::optional<std::string> text = read_text(root + "/proc/meminfo");
  if (!text) return 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (!absl::ConsumePrefix(&line, "MemAvailable:")) continue;
    line = absl::StripAsciiWhitespace(line);
    uint64_t kib = 0;
    if (absl::ConsumeSuffix(&line, "kB") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &kib)) {
      return kib * 1024;
    }
  }
  return 0;
}

// What the memory cgroups of this process (its own and each above it) leave
// under their limits; nullopt when none has a limit.
std::optional<uint64_t> cgroup_headroom(const std::string& root) {
  std::optional<std::string> membership = read_text(root + "/proc/self/cgroup");
  if (!membership) return std::nullopt;
  // Lines "ID:CONTROLLERS:PATH": v2's "0::/path", v1's "4:memory:/path".
  std::string mount, path, limit_file, usage_file;
  for (absl::string_view line : absl::StrSplit(*membership, '\n')) {
    std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    const std::vector<std::string> controllers = absl::StrSplit(fields[1], ',');
    if (std::find(controllers.begin(), controllers.end(), "memory") != controllers.end()) {
      mount = root + "/sys/fs/cgroup/memory";  // v1 wins: it is the one that limits
      path = fields[2];
      limit_file = "memory.limit_in_bytes";
      usage_file = "memory.usage_in_bytes";
      break;
    }
    if (fields[0] == "0" && fields[1].empty()) {
      mount = root + "/sys/fs/cgroup";
      path = fields[2];
      limit_file = "memory.max";
      usage_file = "memory.current";
    }
  }
  if (mount.empty()) return std::nullopt;
  std::optional<uint64_t> headroom;
  // From the process's cgroup up to the mount's root (inside a container
  // the path may not exist below the mount: then only the root counts).
  std::string dir = path;
  while (true) {
    const std::string at = absl::StrCat(mount, dir == "/" ? "" : dir);
    const std::optional<uint64_t> limit = read_number(absl::StrCat(at, "/", limit_file));
    const std::optional<uint64_t> usage = read_number(absl::StrCat(at, "/", usage_file));
    // cgroup v1 writes "no limit" as a page-rounded INT64_MAX.
    if (limit && usage && *limit < (uint64_t{1} << 62)) {
      const uint64_t left = *limit > *usage ? *limit - *usage : 0;
      headroom = headroom ? std::min(*headroom, left) : left;
    }
    if (dir.empty() || dir == "/") break;
    const size_t slash = dir.rfind('/');
    dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
  }
  return headroom;
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 0;
}

}  // namespace

MachineResources this_machine(const std::string& root) {
  MachineResources machine;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) machine.physical_memory = uint64_t(pages) * uint64_t(page_size);
  machine.available_memory = mem_available(root);
  if (std::optional<uint64_t> headroom = cgroup_headroom(root)) {
    machine.available_memory = machine.available_memory == 0
                                   ? *headroom
                                   : std::min(machine.available_memory, *headroom);
  }
  machine.cores = usable_cores();
  return machine;
}

std::string bytes_for_message(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return absl::StrFormat("%.1f GiB", bytes / double(1 << 30));
  if (bytes >= (uint64_t{1} << 20)) return absl::StrFormat("%.0f MiB", bytes / double(1 << 20));
  if (bytes >= (uint64_t{1} << 10)) return absl::StrFormat("%.0f KiB", bytes / double(1 << 10));
  return absl::StrCat(bytes, " bytes");
}

absl::Status check_ranks_fit(int ranks, uint64_t bytes_per_rank, absl::string_view per_rank,
                             absl::string_view flag, const MachineResources& machine) {
  const std::string elsewhere = "or start the ranks on several machines (torchrun; README: Pipelines)";
  if (machine.available_memory > 0 && bytes_per_rank > 0) {
    uint64_t need = 0;
    if (__builtin_mul_overflow(uint64_t(ranks), bytes_per_rank, &need) ||
        need > machine.available_memory) {
      const uint64_t fit = machine.available_memory / bytes_per_rank;
      return absl::ResourceExhaustedError(absl::StrCat(
          flag, " starts ", ranks, " processes on this machine, each of about ",
          bytes_for_message(bytes_per_rank), " (", per_rank, "), and it has ",
          bytes_for_message(machine.available_memory),
          " of memory available (MemAvailable, within this process's cgroup limit): ",
          fit >= 1 ? absl::StrCat("at most ", fit, " fit; give fewer stages, ")
                   : "not one fits; free memory, ",
          elsewhere));
    }
  }
  if (machine.cores > 0 && int64_t{ranks} > int64_t{kMaxRanksPerCore} * machine.cores) {
    return absl::ResourceExhaustedError(absl::StrCat(
        flag, " starts ", ranks, " processes on this machine's ", machine.cores,
        machine.cores == 1 ? " core" : " cores", ": at most ", kMaxRanksPerCore * machine.cores,
        " (", kMaxRanksPerCore, " per core: a stage computes while the others wait for it, so "
        "stages beyond the cores run no faster, and their waits hang on the scheduler); give "
        "fewer stages, ", elsewhere));
  }
  return absl::OkStatus();
}

}  // namespace fx
