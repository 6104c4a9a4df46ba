// Copyright 2026 The FX for C++ Authors.
#include "passes/shape_prop/meta_kernels.h"

#include <mutex>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

namespace fx {
namespace {

// Called by _convolution once it has checked the shapes and expanded the
// parameters to one per spatial dimension.
at::Tensor meta_convolution(const at::Tensor& input, const at::Tensor& weight,
                            const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                            at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                            at::IntArrayRef output_padding, int64_t groups) {
  std::vector<int64_t> sizes = {input.size(0),
                                transposed ? weight.size(1) * groups : weight.size(0)};
  for (int64_t d = 0; d + 2 < input.dim(); ++d) {
    const int64_t extent = dilation[d] * (weight.size(d + 2) - 1) + 1;  // the dilated kernel
    const int64_t in = input.size(d + 2);
    sizes.push_back(transposed ? (in - 1) * stride[d] - 2 * padding[d] + extent + output_padding[d]
                               : (in + 2 * padding[d] - extent) / stride[d] + 1);
  }
  // libtorch 1.13's CPU kernels (oneDNN's and the slow ones) write
  // channels_last when the input or the weight is, for 2d convolutions that
  // are not transposed; contiguous tensors otherwise (no channels_last_3d).
  const bool channels_last =
      !transposed && input.dim() == 4 &&
      (input.suggest_memory_format() == at::MemoryFormat::ChannelsLast ||
       weight.suggest_memory_format() == at::MemoryFormat::ChannelsLast);
  return at::empty(sizes, input.options().memory_format(channels_last
                                                            ? at::MemoryFormat::ChannelsLast
                                                            : at::MemoryFormat::Contiguous));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> meta_native_batch_norm(
    const at::Tensor& input, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& bias, const c10::optional<at::Tensor>& running_mean,
    const c10::optional<at::Tensor>& running_var, bool training, double momentum, double eps) {
  const int64_t stats = training ? input.size(1) : 0;
  return {at::empty_like(input, input.suggest_memory_format()),
          at::empty({stats}, input.options()), at::empty({stats}, input.options())};
}

bool lacks_meta_kernel(const char* name) {
  auto op = c10::Dispatcher::singleton().findSchema({name, ""});
  return op.has_value() && !op->hasKernelForDispatchKey(c10::DispatchKey::Meta);
}

}  // namespace

void ensure_meta_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never destroyed: registrations end with the Library that made them.
    auto* library = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Meta,
                                       __FILE__, __LINE__);
    if (lacks_meta_kernel("aten::convolution_overrideable")) {
      library->impl("convolution_overrideable", TORCH_FN(meta_convolution));
    }
    if (lacks_meta_kernel("aten::native_batch_norm")) {
      library->impl("native_batch_norm", TORCH_FN(meta_native_batch_norm));
    }
  });
}

}  // namespace fx
