// Copyright 2026 The FX for C++ Authors.
//
// mkldnn_kernels.h: operators on tensors in oneDNN's (MKLDNN's) opaque
// layout that aten does not have, registered with the dispatcher under the
// `fx_mkldnn` namespace so that graphs call them like any other operator.
//
// The `mkldnn_layout` pass keeps activations in oneDNN's blocked layout
// between convolutions (as TorchScript's optimize_for_inference does). aten
// runs convolutions, relu, add and pooling on such tensors, but not hardtanh
// or hardswish: ReLU6 (MobileNetV2's activation) and hardswish (MobileNetV3's)
// would have to go back to a strided tensor and forth for each call. These
// are the kernels TorchScript's frozen graphs call for them
// (`prim::MKLDNNHardTanh`, oneDNN's clip, reachable from C++ only through a
// TorchScript node that carries the bounds; `prim::MKLDNNHardSwish_`):
//
//   fx_mkldnn::hardtanh(Tensor self, float min_val, float max_val) -> Tensor
//   fx_mkldnn::hardtanh_(Tensor(a!) self, float min_val, float max_val) -> Tensor(a!)
//   fx_mkldnn::hardswish(Tensor self) -> Tensor
//   fx_mkldnn::hardswish_(Tensor(a!) self) -> Tensor(a!)
//
// Contracts: `self` must be an MKLDNN tensor (others are refused with an
// error naming the layout) whose channels (dimension 1) the kernels take
// (mkldnn_elementwise_takes_channels): in libtorch 1.13 TorchScript's kernels
// leave their result unwritten when oneDNN pads the channels of its blocked
// layout (its own optimize_for_inference gives wrong numbers for a ReLU6
// after an 8- or 24-channel convolution; fixed in 2.x); the result is aten's
// hardtanh (hardswish) of it, as an MKLDNN tensor (the `_` forms: `self`,
// written). Registered when libfx is loaded; fails, naming the libtorch,
// where it has no such TorchScript kernel.
#ifndef FX_RUNTIME_KERNELS_MKLDNN_KERNELS_H_
#define FX_RUNTIME_KERNELS_MKLDNN_KERNELS_H_

#include <cstdint>

#include "core/export.h"

namespace fx {

// A multiple of every channel block oneDNN uses for float32 (8, 16).
inline constexpr int kMkldnnChannelBlock = 16;

// Whether fx_mkldnn::hardtanh(_) and hardswish(_) take tensors of `channels`
// channels: any from libtorch 2.0 on (the kernels write the padding too,
// checked on 2.6 and 2.14), multiples of kMkldnnChannelBlock before.
FX_API bool mkldnn_elementwise_takes_channels(int64_t channels);

// The names the kernels are registered under.
inline constexpr char kMkldnnHardtanh[] = "fx_mkldnn::hardtanh";
inline constexpr char kMkldnnHardtanhInPlace[] = "fx_mkldnn::hardtanh_";
inline constexpr char kMkldnnHardswish[] = "fx_mkldnn::hardswish";
inline constexpr char kMkldnnHardswishInPlace[] = "fx_mkldnn::hardswish_";

}  // namespace fx

#endif  // FX_RUNTIME_KERNELS_MKLDNN_KERNELS_H_
