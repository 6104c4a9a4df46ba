// Copyright 2026 The FX for C++ Authors.
#include "runtime/devices.h"

#include <limits>
#include <thread>

#include <ATen/Context.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/version.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {

absl::StatusOr<c10::Device> parse_device(absl::string_view text) {
  c10::Device device(c10::kCPU);
  if (text == "cpu") {
    device = c10::Device(c10::kCPU);
  } else if (text == "meta") {
    device = c10::Device(c10::kMeta);
  } else if (text == "cuda") {
    device = c10::Device(c10::kCUDA, 0);
  } else if (absl::StartsWith(text, "cuda:")) {
    int64_t index = -1;
    if (!absl::SimpleAtoi(text.substr(5), &index) || index < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad device ", quote_for_message(text), ": the GPU index must be a number, as in cuda:0"));
    }
    if (index > std::numeric_limits<c10::DeviceIndex>::max()) {
      // A number, but no GPU's: say what the machine has.
      if (absl::Status s = check_device_available(c10::Device(c10::kCUDA, 0)); !s.ok()) return s;
      const int count = static_cast<int>(at::getNumGPUs());
      return absl::InvalidArgumentError(absl::StrCat("bad device ", quote_for_message(text),
                                                     ": this machine has ", count,
                                                     " GPU(s), cuda:0 to cuda:", count - 1));
    }
    device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown device ", quote_for_message(text),
                                                   ": use cpu, cuda, cuda:N or meta"));
  }
  if (absl::Status s = check_device_available(device); !s.ok()) return s;
  return device;
}

bool libtorch_has_cuda() {
#if defined(FX_LIBTORCH_HAS_CUDA)
  return true;
#else
  return false;
#endif
}

absl::Status check_device_available(const c10::Device& device) {
  if (!device.is_cuda()) return absl::OkStatus();
  // (at::hasCUDA() is false on a CUDA build too when the machine has no GPU.)
  if (!libtorch_has_cuda() && !at::hasCUDA()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device ", device.str(),
        " needs CUDA, but this build's libtorch has none (Debian's libtorch is CPU-only): "
        "build against a CUDA libtorch with FX_LIBTORCH_HOME=/path/to/libtorch (see docs/runtime.md, "
        "\"CUDA\") on a machine with an NVIDIA GPU, or run on the CPU (fxrun: --device=cpu)"));
  }
  const int count = static_cast<int>(at::getNumGPUs());
  if (count == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device ", device.str(), ": this libtorch is built with CUDA, but no CUDA device is "
        "present (no NVIDIA GPU visible to it: check nvidia-smi, the driver and "
        "CUDA_VISIBLE_DEVICES), or run on the CPU (fxrun: --device=cpu)"));
  }
  if (device.has_index() && device.index() >= count) {
    return absl::FailedPreconditionError(absl::StrCat("device ", device.str(), ": this machine has ",
                                                      count, " GPU(s), cuda:0 to cuda:", count - 1));
  }
  return absl::OkStatus();
}

void wait_for_device(const c10::Device& device) {
  if (device.is_cpu() || device.is_meta()) return;
  const c10::impl::VirtualGuardImpl guard(device.type());
  c10::Event done(device.type());
  done.record(guard.getStream(device));
#if TORCH_VERSION_MAJOR >= 2
  done.synchronize();
#else  // (1.13's Event cannot wait; and no CUDA build of it is supported here)
  while (!done.query()) std::this_thread::yield();
#endif
}

void allow_tf32(bool allowed) {
  at::globalContext().setAllowTF32CuBLAS(allowed);
  at::globalContext().setAllowTF32CuDNN(allowed);
}

}  // namespace fx
