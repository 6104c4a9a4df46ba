// Copyright 2026 The FX for C++ Authors.
#include "distributed/process_group.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "distributed/rendezvous.h"

#if defined(FX_LIBTORCH_HAS_GLOO)
#if !__has_include(<gloo/config.h>)
#error "libtorch was built with Gloo, but Gloo's headers are missing: install libgloo-dev (tools/bootstrap.sh installs it)"
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

// NCCL where libtorch has it (a CUDA build with ProcessGroupNCCL) and its
// header is installed; FX_LIBTORCH_HAS_NCCL comes from @libtorch//:c10d.
#if defined(FX_LIBTORCH_HAS_NCCL) && __has_include(<nccl.h>)
#define FX_PIPELINE_NCCL 1
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace fx {
namespace {

// A PeerGroup over c10d's process group `Group` (held by its own type: its
// base class differs between libtorch versions, its operations do not).
template <typename Group>
class GroupOf : public PeerGroup {
 public:
  GroupOf(World world, std::chrono::milliseconds timeout, c10::intrusive_ptr<Group> group,
          c10::Device device)
      : PeerGroup(std::move(world), timeout), group_(std::move(group)), device_(device) {}
  c10::Device device() const override { return device_; }

 protected:
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int peer, int tag) override {
    return group_->send(tensors, peer, tag);
  }
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int peer, int tag) override {
    return group_->recv(tensors, peer, tag);
  }

 private:
  c10::intrusive_ptr<Group> group_;
  c10::Device device_;
};

// What report_broken_transport's handler says, set before it may run: the
// handler runs on Gloo's thread, in the middle of anything.
char g_line_prefix[256] = "";
std::atomic<int> g_exit_status{1};
std::atomic<int> g_receiving_from{-1};
std::terminate_handler g_previous_terminate = nullptr;

void write_text(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// An exception of Gloo's (its type is in namespace gloo) that nothing caught.
void on_terminate() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (type != nullptr && std::strstr(type->name(), "4gloo") != nullptr) {
    std::string reason = "no reason given";
    try {
      std::rethrow_exception(std::current_exception());
    } catch (const std::exception& e) {
      reason = c10d_error(e);
    } catch (...) {
    }
    const int peer = g_receiving_from.load();
    const std::string who = peer >= 0 ? absl::StrCat("rank ", peer) : std::string("a peer");
    // Gloo's check of a message's length against the receive it answers.
    const bool too_long = absl::StrContains(reason, "preamble.length <= op.nbytes");
    write_text(absl::StrCat(
        g_line_prefix,
        too_long ? absl::StrCat("the message from ", who,
                                " is longer than its header announced")
                 : absl::StrCat("the connection with ", who, " broke Gloo's protocol"),
        " (Gloo: ", reason, "): is ", who, " another program, or another version of fxrun?\n"));
    std::_Exit(g_exit_status.load());
  }
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || absl::StartsWith(address, "127.") || address == "::1";
}

}  // namespace

void report_broken_transport(absl::string_view line_prefix, int exit_status) {
  const size_t n = std::min(line_prefix.size(), sizeof(g_line_prefix) - 1);
  std::memcpy(g_line_prefix, line_prefix.data(), n);
  g_line_prefix[n] = '\0';
  g_exit_status.store(exit_status);
  static std::atomic<bool> installed{false};
  if (!installed.exchange(true)) g_previous_terminate = std::set_terminate(on_terminate);
}

absl::StatusOr<CommBackend> parse_backend(absl::string_view name) {
  if (name == "gloo") return CommBackend::kGloo;
  if (name == "nccl") return CommBackend::kNccl;
  return absl::InvalidArgumentError(absl::StrCat(
      "--backend takes gloo (CPU tensors) or nccl (CUDA tensors), not ", quote_for_message(name)));
}

const char* backend_name(CommBackend backend) {
  return backend == CommBackend::kGloo ? "gloo" : "nccl";
}

absl::Status backend_available(CommBackend backend) {
  if (backend == CommBackend::kGloo) {
#if defined(FX_LIBTORCH_HAS_GLOO)
    return absl::OkStatus();
#elif defined(FX_LIBTORCH_GLOO_HEADERS_MISSING)
    return absl::FailedPreconditionError(
        "--backend=gloo: this libtorch has c10d's Gloo backend, but Gloo's headers were missing "
        "when fxrun was built (a pip wheel ships none): build it where they are (Debian: "
        "libgloo-dev, of the Gloo version libtorch was built with), or use --backend=nccl on GPUs");
#else
    return absl::FailedPreconditionError(
        "--backend=gloo: this libtorch was built without c10d's Gloo backend (no "
        "ProcessGroupGloo in libtorch_cpu.so); use a libtorch built with USE_GLOO=1 (Debian's "
        "and PyTorch's own are)");
#endif
  }
#if defined(FX_PIPELINE_NCCL)
  if (!torch::cuda::is_available()) {
    return absl::FailedPreconditionError(
        "--backend=nccl moves CUDA tensors, and no CUDA device is visible: use --backend=gloo, "
        "or check CUDA_VISIBLE_DEVICES and the driver");
  }
  return absl::OkStatus();
#elif defined(FX_LIBTORCH_HAS_NCCL)
  return absl::FailedPreconditionError(
      "--backend=nccl: this libtorch has c10d's NCCL backend but NCCL's header (nccl.h) was "
      "missing when fxrun was built: install NCCL's development files (Debian: libnccl-dev) "
      "and rebuild, or use --backend=gloo");
#else
  return absl::FailedPreconditionError(
      "--backend=nccl: this libtorch was built without NCCL (a CPU build, or CUDA without "
      "USE_NCCL): use --backend=gloo, or a CUDA libtorch with NCCL (FX_LIBTORCH_HOME)");
#endif
}

absl::StatusOr<std::unique_ptr<PeerGroup>> PeerGroup::connect(
    const c10::intrusive_ptr<c10d::Store>& store, const World& world, CommBackend backend,
    std::chrono::milliseconds timeout) {
  if (absl::Status s = backend_available(backend); !s.ok()) return s;
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("fx/group", store);
  try {
    if (backend == CommBackend::kGloo) {
#if defined(FX_LIBTORCH_HAS_GLOO)
      auto options = c10d::ProcessGroupGloo::Options::create(timeout);
      // Gloo listens on an address the other ranks reach: loopback for a
      // pipeline on one machine, else GLOO_SOCKET_IFNAME's interface or the
      // host name's address (as torch.distributed does).
      const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
      if (interface != nullptr && *interface != '\0') {
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
      } else if (is_loopback(world.master_addr)) {
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      options->threads = 1;  // for collectives, which a pipeline does not use
      auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, world.rank,
                                                               world.world_size, options);
      return std::unique_ptr<PeerGroup>(
          new GroupOf<c10d::ProcessGroupGloo>(world, timeout, group, c10::Device(c10::kCPU)));
#endif
    }
#if defined(FX_PIPELINE_NCCL)
    if (backend == CommBackend::kNccl) {
      const c10::Device device(c10::kCUDA, static_cast<c10::DeviceIndex>(world.local_rank));
      // NCCL takes one GPU per rank (two ranks on one GPU are refused by
      // NCCL itself, "duplicate GPU").
      const int gpus = static_cast<int>(torch::cuda::device_count());
      if (world.local_rank >= gpus) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--backend=nccl puts local rank ", world.local_rank, " on cuda:", world.local_rank,
            ", and this machine has ", gpus, " GPU(s): NCCL takes one GPU per rank, so run at "
            "most ", gpus, " stage(s) per machine with it, or --backend=gloo (the stages then "
            "exchange CPU tensors)"));
      }
      c10::cuda::set_device(device.index());
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = timeout;
      auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, world.rank,
                                                               world.world_size, options);
      return std::unique_ptr<PeerGroup>(
          new GroupOf<c10d::ProcessGroupNCCL>(world, timeout, group, device));
    }
#endif
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "rank ", world.rank, " cannot connect to the other ranks with ", backend_name(backend),
        ": ", c10d_error(e), "; a rank died or hung before connecting, or (across machines) ",
        "the machines cannot reach each other: set GLOO_SOCKET_IFNAME to the interface to use"));
  }
  return absl::InternalError("no c10d backend was compiled in");
}

absl::StatusOr<Transfer> PeerGroup::start_send(at::Tensor tensor, int peer, int tag) {
  return start(/*sending=*/true, std::move(tensor), peer, tag);
}

absl::StatusOr<Transfer> PeerGroup::start_recv(at::Tensor tensor, int peer, int tag) {
  return start(/*sending=*/false, std::move(tensor), peer, tag);
}

absl::StatusOr<Transfer> PeerGroup::start(bool sending, at::Tensor tensor, int peer, int tag) {
  Transfer transfer;
  transfer.peer = peer;
  // A receive under way is what a broken message would be a reply to.
  if (!sending) g_receiving_from.store(peer);
  transfer.tensors = {std::move(tensor)};
  try {
    transfer.work = sending ? send(transfer.tensors, peer, tag) : recv(transfer.tensors, peer, tag);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(sending ? "sending to" : "receiving from",
                                               " rank ", peer, " failed: ", c10d_error(e)));
  }
  return transfer;
}

absl::Status PeerGroup::wait(Transfer& transfer, absl::string_view what) {
  try {
    if (!transfer.work->wait(timeout_)) {
      return absl::AbortedError(absl::StrCat(what, " with rank ", transfer.peer, " was aborted"));
    }
  } catch (const std::exception& e) {
    const std::string reason = c10d_error(e);
    const std::string lower = absl::AsciiStrToLower(reason);
    if (absl::StrContains(lower, "timed out") || absl::StrContains(lower, "timeout")) {
      return absl::DeadlineExceededError(absl::StrCat(
          what, " failed: rank ", transfer.peer, " did not answer within ",
          seconds_for_message(timeout_), " (--timeout); it died, hung or is far behind (",
          reason, ")"));
    }
    return absl::UnavailableError(absl::StrCat(what, " failed: the connection with rank ",
                                               transfer.peer, " broke (it died?): ", reason));
  }
  transfer.tensors.clear();
  transfer.work.reset();
  return absl::OkStatus();
}

}  // namespace fx
