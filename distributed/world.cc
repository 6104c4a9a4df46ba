// Copyright 2026 The FX for C++ Authors.
#include "distributed/world.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace {

// "--world-size" for "WORLD_SIZE".
std::string flag_for(absl::string_view variable) {
  std::string flag = absl::StrCat("--", absl::AsciiStrToLower(variable));
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

// A whole number from the flag or the variable `name`, within [low, high].
absl::StatusOr<int> number(const std::optional<int64_t>& flag, const char* name,
                           const EnvironmentLookup& env, int64_t low, int64_t high,
                           absl::string_view meaning, std::optional<int> fallback = std::nullopt) {
  int64_t value = 0;
  std::string source;
  if (flag) {
    value = *flag;
    source = absl::StrCat(flag_for(name), "=", value);
  } else if (std::optional<std::string> text = env(name)) {
    source = absl::StrCat(name, "=", quote_for_message(*text));
    if (!absl::SimpleAtoi(*text, &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, " is not a whole number; it is ", meaning, " (or give ", flag_for(name), ")"));
    }
  } else if (fallback) {
    return *fallback;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is not set: a rank of a pipeline needs ", meaning, "; set ", name,
        " (torchrun sets it) or give ", flag_for(name)));
  }
  if (value < low || value > high) {
    return absl::InvalidArgumentError(absl::StrCat(source, " is out of range: ", meaning,
                                                   " is from ", low, " to ", high));
  }
  return static_cast<int>(value);
}

}  // namespace

EnvironmentLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool started_as_rank(const WorldFlags& flags, const EnvironmentLookup& env) {
  return flags.rank.has_value() || env("RANK").has_value();
}

absl::StatusOr<World> world_from(const WorldFlags& flags, const EnvironmentLookup& env) {
  World world;
  if (flags.master_addr) {
    world.master_addr = *flags.master_addr;
  } else if (std::optional<std::string> addr = env("MASTER_ADDR")) {
    world.master_addr = *addr;
  } else {
    return absl::InvalidArgumentError(
        "MASTER_ADDR is not set: a rank of a pipeline needs the address of the rendezvous "
        "store (rank 0's machine); set MASTER_ADDR (torchrun sets it) or give --master-addr");
  }
  if (absl::StripAsciiWhitespace(world.master_addr).empty()) {
    return absl::InvalidArgumentError(
        "the rendezvous address (MASTER_ADDR or --master-addr) is empty; give rank 0's host "
        "name or IP address");
  }
  auto port = number(flags.master_port, "MASTER_PORT", env, 1, 65535,
                     "the TCP port of the rendezvous store");
  if (!port.ok()) return port.status();
  auto world_size = number(flags.world_size, "WORLD_SIZE", env, 1, kMaxWorldSize,
                           "the number of processes of the pipeline");
  if (!world_size.ok()) return world_size.status();
  auto rank = number(flags.rank, "RANK", env, 0, *world_size - 1,
                     absl::StrCat("this process's rank among WORLD_SIZE=", *world_size));
  if (!rank.ok()) return rank.status();
  auto local_rank = number(flags.local_rank, "LOCAL_RANK", env, 0, 1 << 16,
                           "this process's rank on its machine", *rank);
  if (!local_rank.ok()) return local_rank.status();
  world.master_port = *port;
  world.world_size = *world_size;
  world.rank = *rank;
  world.local_rank = *local_rank;
  const std::optional<std::string> agent_store = env("TORCHELASTIC_USE_AGENT_STORE");
  world.store_hosted_elsewhere = agent_store && (*agent_store == "True" || *agent_store == "1");
  return world;
}

std::vector<std::pair<std::string, std::string>> local_rank_variables(int rank, int world_size,
                                                                      int port) {
  return {{"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)},
          {"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world_size)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"LOCAL_WORLD_SIZE", std::to_string(world_size)},
          {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
}

}  // namespace fx
