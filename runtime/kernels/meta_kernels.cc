// Copyright 2026 The FX for C++ Authors.
#include "runtime/meta_device.h"

#include <mutex>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>
#include <torch/version.h>

#include "absl/strings/str_cat.h"

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
  // The CPU kernels (oneDNN's and the slow ones) write channels_last when the
  // input or the weight is, for 2d convolutions: in libtorch 1.13 only those
  // that are not transposed, from 2.0 on transposed ones too; contiguous
  // tensors otherwise (no channels_last_3d).
#if TORCH_VERSION_MAJOR >= 2
  const bool layout_follows_operands = input.dim() == 4;
#else
  const bool layout_follows_operands = !transposed && input.dim() == 4;
#endif
  const bool channels_last =
      layout_follows_operands &&
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

// Pointwise operators: the output laid out by TensorIterator, as on the CPU,
// where relu is clamp_min and hardtanh clamp; hardswish's output is laid out
// as any unary operator's.
at::Tensor meta_relu(const at::Tensor& self) { return at::clamp_min(self, 0); }
at::Tensor meta_hardswish(const at::Tensor& self) { return at::clamp_min(self, 0); }
at::Tensor meta_hardtanh(const at::Tensor& self, const at::Scalar& min, const at::Scalar& max) {
  return at::clamp(self, min, max);
}

// The CPU resizes a fresh tensor: contiguous.
at::Tensor meta_index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  std::vector<int64_t> sizes = self.sizes().vec();
  if (self.dim() > 0) sizes[c10::maybe_wrap_dim(dim, self.dim())] = index.numel();
  return at::empty(sizes, self.options());
}

// The CPU lays the output out as the input suggests (channels_last stays).
at::Tensor meta_adaptive_avg_pool2d(const at::Tensor& self, c10::SymIntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2 && (self.dim() == 3 || self.dim() == 4),
              "adaptive_avg_pool2d: expected a 3D or 4D input and an output_size of 2");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 2);
  for (const c10::SymInt& s : output_size) sizes.push_back(s.expect_int());
  return at::empty(sizes, self.options().memory_format(self.suggest_memory_format()));
}

bool lacks_meta_kernel(const char* name) {
  auto op = c10::Dispatcher::singleton().findSchema({name, ""});
  return op.has_value() && !op->hasKernelForDispatchKey(c10::DispatchKey::Meta);
}

}  // namespace

void ensure_meta_kernels() {
  static std::once_flag once;
  // Never destroyed (registrations end with the Library that made them), and
  // held by a static so that it stays reachable (no leak to LeakSanitizer).
  static torch::Library* library = nullptr;
  std::call_once(once, [] {
    library = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::Meta,
                                 __FILE__, __LINE__);
    auto add = [](const char* name, auto kernel) {
      if (lacks_meta_kernel(absl::StrCat("aten::", name).c_str())) library->impl(name, kernel);
    };
    add("convolution_overrideable", TORCH_FN(meta_convolution));
    add("native_batch_norm", TORCH_FN(meta_native_batch_norm));
    add("relu", TORCH_FN(meta_relu));
    add("hardswish", TORCH_FN(meta_hardswish));
    add("hardtanh", TORCH_FN(meta_hardtanh));
    add("index_select", TORCH_FN(meta_index_select));
    add("_adaptive_avg_pool2d", TORCH_FN(meta_adaptive_avg_pool2d));
  });
}

}  // namespace fx
