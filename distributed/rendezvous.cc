// Copyright 2026 The FX for C++ Authors.
#include "distributed/rendezvous.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <exception>
#include <thread>

#include <torch/version.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// The store's options; the one place libtorch's version matters here: from
// 2.4 TCPStore asks for its libuv backend by default, and Debian's libtorch
// (2.6, 2.14) is built without libuv, which then refuses to start. The
// classic backend is in every release.
c10d::TCPStoreOptions store_options(int port, bool is_server, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(port);
  options.isServer = is_server;
  options.waitWorkers = false;
  options.timeout = timeout;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  options.useLibUV = false;
#endif
  return options;
}

std::string key(absl::string_view topic, int rank) { return absl::StrCat("fx/", topic, "/", rank); }

// The ranks whose key for `topic` is missing.
std::vector<int> missing_ranks(c10d::Store& store, const World& world, absl::string_view topic) {
  std::vector<int> missing;
  for (int r = 0; r < world.world_size; ++r) {
    try {
      if (!store.check({key(topic, r)})) missing.push_back(r);
    } catch (const std::exception&) {
      missing.push_back(r);
    }
  }
  return missing;
}

std::string ranks_for_message(const std::vector<int>& ranks) {
  return absl::StrCat(ranks.size() == 1 ? "rank " : "ranks ", absl::StrJoin(ranks, ", "));
}

// Waits for every rank's key of `topic`; the error names the missing ranks.
absl::Status wait_for_keys(c10d::Store& store, const World& world, absl::string_view topic,
                           absl::string_view what, std::chrono::milliseconds timeout) {
  std::vector<std::string> keys;
  for (int r = 0; r < world.world_size; ++r) keys.push_back(key(topic, r));
  // Polled with check(), which answers at once: a wait() that times out
  // leaves libtorch 2.x's client connection unusable for asking which keys
  // are missing.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(200);
  // Who was missing when last asked: named too if the store goes away (its
  // host, rank 0, may give up first and take it along).
  std::vector<int> missing;
  auto asked = std::chrono::steady_clock::time_point();
  try {
    while (!store.check(keys)) {
      const auto now = std::chrono::steady_clock::now();
      if (now - asked > std::chrono::milliseconds(500) || now >= deadline) {
        missing = missing_ranks(store, world, topic);
        asked = now;
      }
      if (now >= deadline) {
        return absl::DeadlineExceededError(absl::StrCat(
            ranks_for_message(missing), " did not ", what, " within ",
            seconds_for_message(timeout), " (--timeout): ", missing.size() == 1 ? "it" : "they",
            " died, hung or were never started; check ", missing.size() == 1 ? "its" : "their",
            " own error, or raise --timeout"));
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(5000));
    }
    return absl::OkStatus();
  } catch (const std::exception& e) {
    const std::string store_failed = absl::StrCat(
        "the rendezvous store at ", world.master_addr, ":", world.master_port, " failed (",
        c10d_error(e), "): the process hosting it (rank 0, or the launcher) ended");
    if (missing.empty()) {
      return absl::UnavailableError(
          absl::StrCat(store_failed, " while this rank waited for every rank to ", what));
    }
    return absl::UnavailableError(absl::StrCat(ranks_for_message(missing), " did not ", what,
                                               ", and then ", store_failed));
  }
}

}  // namespace

void quiet_c10d_logging() {
  if (std::getenv("TORCH_CPP_LOG_LEVEL") != nullptr || std::getenv("GLOG_minloglevel") != nullptr) {
    return;
  }
  constexpr int kFatal = 3;
  // The flags by their symbols: which exist depends on how libtorch was
  // built (with glog or not), so they are looked up, not linked.
  for (const char* flag : {"_ZN3fLI17FLAGS_minloglevelE", "FLAGS_minloglevel",
                           "_ZN3fLI22FLAGS_caffe2_log_levelE", "FLAGS_caffe2_log_level"}) {
    if (void* address = dlsym(RTLD_DEFAULT, flag)) *static_cast<int32_t*>(address) = kFatal;
  }
}

std::string c10d_error(const std::exception& e) {
  for (absl::string_view line : absl::StrSplit(exception_message(e), '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) return escape_for_message(line);
  }
  return "no reason given";
}

std::string seconds_for_message(std::chrono::milliseconds duration) {
  return absl::StrFormat("%g s", duration.count() / 1000.0);
}

absl::StatusOr<c10::intrusive_ptr<c10d::TCPStore>> host_store(int port,
                                                              std::chrono::milliseconds timeout) {
  try {
    return c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options(port, true, timeout));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "cannot open the rendezvous store on port ", port, ": ", c10d_error(e),
        port == 0 ? "" : "; if the port is in use or not allowed, give another --master-port"));
  }
}

absl::StatusOr<c10::intrusive_ptr<c10d::Store>> connect_store(const World& world,
                                                              std::chrono::milliseconds timeout) {
  try {
    return c10::intrusive_ptr<c10d::Store>(c10::make_intrusive<c10d::TCPStore>(
        world.master_addr, store_options(world.master_port, world.hosts_store(), timeout)));
  } catch (const std::exception& e) {
    if (world.hosts_store()) {
      return absl::UnavailableError(absl::StrCat(
          "rank 0 cannot open the rendezvous store on port ", world.master_port,
          " (MASTER_PORT): ", c10d_error(e),
          "; if the port is in use or not allowed, give another MASTER_PORT"));
    }
    return absl::UnavailableError(absl::StrCat(
        "rank ", world.rank, " cannot reach the rendezvous store at ",
        quote_for_message(world.master_addr), ":", world.master_port,
        " (MASTER_ADDR:MASTER_PORT) within ", seconds_for_message(timeout), ": ",
        c10d_error(e),
        "; check the address and port, and that rank 0 (or the launcher) is running"));
  }
}

absl::Status wait_for_ranks(c10d::Store& store, const World& world, absl::string_view phase,
                            std::chrono::milliseconds timeout) {
  if (absl::Status s = publish(store, world, phase, "1"); !s.ok()) return s;
  return wait_for_keys(store, world, phase, absl::StrCat("reach '", phase, "'"), timeout);
}

absl::Status publish(c10d::Store& store, const World& world, absl::string_view topic,
                     const std::string& text) {
  try {
    store.set(key(topic, world.rank), std::vector<uint8_t>(text.begin(), text.end()));
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "rank ", world.rank, " cannot write to the rendezvous store at ", world.master_addr, ":",
        world.master_port, " (", c10d_error(e),
        "); the process hosting it (rank 0, or the launcher) may have died"));
  }
}

absl::StatusOr<std::vector<std::string>> gather_from_ranks(c10d::Store& store, const World& world,
                                                           absl::string_view topic,
                                                           std::chrono::milliseconds timeout) {
  if (absl::Status s = wait_for_keys(store, world, topic, absl::StrCat("send its ", topic),
                                     timeout);
      !s.ok()) {
    return s;
  }
  std::vector<std::string> texts;
  try {
    for (int r = 0; r < world.world_size; ++r) {
      std::vector<uint8_t> bytes = store.get(key(topic, r));
      texts.emplace_back(bytes.begin(), bytes.end());
    }
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("reading every rank's ", topic,
                                               " from the rendezvous store failed: ",
                                               c10d_error(e)));
  }
  return texts;
}

}  // namespace fx
