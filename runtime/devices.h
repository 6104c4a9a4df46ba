// Copyright 2026 The FX for C++ Authors.
//
// devices.h: the devices a plan can run on, as users name them.
//
//   c10::Device d = *fx::parse_device("cuda:1");   // checks the build and the machine
//
// Contracts:
//   * `parse_device` accepts `cpu`, `cuda`, `cuda:N` and `meta` (shapes only,
//     no data: for tests and shape inference). `cuda` means `cuda:0`.
//   * A CUDA device is refused, with the reason and the fix, when this build's
//     libtorch has no CUDA (Debian's is CPU-only: build against a CUDA
//     libtorch with FX_LIBTORCH_HOME), when it has CUDA but no GPU is visible
//     (a machine with no GPU), or when N is not below the number of GPUs.
#ifndef FX_RUNTIME_DEVICES_H_
#define FX_RUNTIME_DEVICES_H_

#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

FX_API absl::StatusOr<c10::Device> parse_device(absl::string_view text);

// Whether this program's libtorch is a CUDA build (FX_LIBTORCH_HAS_CUDA, which
// the Bazel and CMake builds define when they link libtorch_cuda), GPU or not.
FX_API bool libtorch_has_cuda();

// Fails, saying why and what to do, when `device` cannot be used here.
FX_API absl::Status check_device_available(const c10::Device& device);

// Waits until the work queued so far on `device`'s current stream is done
// (nothing to wait for on the CPU): for timing runs, whose kernels a GPU
// runs after the call that queued them returns.
FX_API void wait_for_device(const c10::Device& device);

// Whether float32 matrix products and convolutions on CUDA devices may round
// their inputs to TF32 (libtorch's global setting, for cuBLAS and cuDNN
// both). PyTorch allows it for convolutions by default; a check against
// float32 results needs it off.
FX_API void allow_tf32(bool allowed);

}  // namespace fx

#endif  // FX_RUNTIME_DEVICES_H_
