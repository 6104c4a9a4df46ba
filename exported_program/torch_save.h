// Copyright 2026 The FX for C++ Authors.
//
// torch_save.h: values written as `torch.save` writes them, so that
// `torch.load(..., weights_only=True)` (torch 2.6 and later's default) reads
// them: a program's state dict, constants and example inputs.
//
// libtorch's own pickler (torch::pickle_save) cannot write an nn.Parameter,
// which torch.export's loader requires for parameters, and tags containers
// with `torch.jit._pickle.restore_type_tag`, which weights_only refuses; so
// the pickle is written here: protocol 2, tensors as
// `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
// requires_grad, OrderedDict())`, parameters wrapped in
// `torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict())`,
// storages as persistent ids ('storage', torch.<Type>Storage, key, 'cpu',
// numel) with their bytes in `archive/data/<key>`. libtorch's unpickler reads
// it too (exported_program/archive.cc).
//
//   absl::StatusOr<std::string> bytes = fx::exported::torch_save(state_dict, &parameters);
//
// Contracts: values are tensors, tuples, lists, string-keyed dicts, ints,
// floats, bools, strings and None; tensors that share a storage share its
// key; a storage viewed with two dtypes, a sparse or quantized tensor, or a
// dtype without a storage class is an error naming where it is. Tensors on
// other devices are written from a CPU copy.
#ifndef FX_EXPORTED_PROGRAM_TORCH_SAVE_H_
#define FX_EXPORTED_PROGRAM_TORCH_SAVE_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "core/export.h"

namespace fx {
namespace exported {

// The bytes of a torch.save file holding `value`. Tensors whose
// implementation is in `parameters` are written as nn.Parameter.
FX_API absl::StatusOr<std::string> torch_save(
    const c10::IValue& value,
    const absl::flat_hash_set<const c10::TensorImpl*>* parameters = nullptr);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_TORCH_SAVE_H_
