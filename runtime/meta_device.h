// Copyright 2026 The FX for C++ Authors.
//
// meta_device.h: running on PyTorch's `meta` device (shapes and dtypes, no
// data) from C++: the kernels libtorch 1.13's C++ library lacks, and values
// and a module's state moved there. shape_prop{device=meta} and execution
// plans on the meta device (fxrun --run --device=meta) use them.
//
//   std::shared_ptr<fx::Module> meta = fx::module_on_meta(gm.root());   // code shared
//   c10::IValue x = fx::to_meta(torch::rand({1, 3, 224, 224}));
//
// PyTorch computes the output metadata of several operators on the `meta`
// device with functions registered from Python (torch/_meta_registrations.py),
// which a C++ process never runs: there, every convolution and batch norm
// fails on meta tensors, and a CNN would fall back to real tensors at every
// layer. This registers C++ Meta kernels for the common ones, computing output
// shapes, dtypes and layouts as the CPU kernels do:
//
//   fx::ensure_meta_kernels();          // once; later calls return at once
//   at::Tensor x = at::empty({1, 3, 224, 224}, at::kMeta);
//   at::conv2d(x, at::empty({64, 3, 7, 7}, at::kMeta), {}, 2, 3).sizes();  // [1, 64, 112, 112]
//
//   aten::convolution_overrideable   the hook torch's convolution calls for a
//                                    backend other than CPU and CUDA, after
//                                    checking the shapes (so errors read as
//                                    the CPU's): 1-3d, transposed, grouped,
//                                    dilated; channels_last out for a 2d,
//                                    not transposed convolution whose input
//                                    or weight is channels_last, contiguous
//                                    otherwise, as the CPU kernels do;
//   aten::native_batch_norm          the output laid out as the input; the
//                                    saved statistics [C] in training, [0] not;
//   aten::relu, hardswish, hardtanh  as clamp_min and clamp (which the CPU's
//                                    relu and hardtanh are);
//   aten::index_select               (embeddings) contiguous;
//   aten::_adaptive_avg_pool2d       laid out as the input suggests.
//
// Other operators Python alone gives meta kernels (roll, flip, where,
// grid_sampler_2d, ...) fall back to real tensors in shape_prop, and fail,
// naming the node, in a plan on the meta device.
//
// Layouts follow libtorch 1.13's CPU kernels, checked against them by
// shape_prop_test for each case above (and ResNet-18, contiguous and
// channels_last); a libtorch whose CPU kernels choose other layouts needs
// these rules revisited.
//
// Contracts:
//   * Registers each kernel only when the operator has no Meta kernel yet (a
//     newer libtorch's own is kept), once per process, thread-safely.
//   * The registrations live as long as the process (they are in libfx.so).
//   * `to_meta` replaces each tensor in a value (in tuples, lists and dicts
//     too) by one of its sizes, strides and dtype on the meta device, a leaf
//     where the tensor is one and an autograd result where it is one (in-place
//     operators accept the one only when they accept the other); quantized
//     and sparse tensors stay as they are.
//   * `state_to_meta` is `to_meta` for a module's state: a tensor that
//     requires grad becomes an autograd result, never a leaf, as the copies a
//     real run of a pass computes on (passes/support/state_shadow.h), so that
//     a graph that writes a parameter in forward runs on both.
//   * `module_on_meta` copies the module tree (the root and every submodule,
//     each once), its values `state_to_meta`; code is shared with `module`,
//     which is left as it is.
#ifndef FX_RUNTIME_META_DEVICE_H_
#define FX_RUNTIME_META_DEVICE_H_

#include <ATen/core/ivalue.h>

#include "core/export.h"
#include "runtime/module.h"

namespace fx {

FX_API void ensure_meta_kernels();

FX_API c10::IValue to_meta(const c10::IValue& value);
FX_API c10::IValue state_to_meta(const c10::IValue& value);

FX_API std::shared_ptr<Module> module_on_meta(const Module& module);

}  // namespace fx

#endif  // FX_RUNTIME_META_DEVICE_H_
