// Copyright 2026 The FX for C++ Authors.
//
// torch_load.h: reading the `torch.save` files inside torch.export programs
// (the legacy layout's state dict, constants and example inputs; every
// layout's sample inputs), the way `torch.load(weights_only=True)` reads
// them: containers, numbers, strings, tensors and parameters, nothing else.
//
//   absl::StatusOr<c10::IValue> state = fx::exported::torch_load(bytes, "serialized_state_dict.pt");
//
// Why not libtorch's unpickler: libtorch 1.13's knows neither the APPEND and
// SETITEM opcodes that torch 2.x's pickler writes for one-element containers
// nor `torch._utils._rebuild_parameter`, and it would build objects of any
// TorchScript class a file names. This reader runs no code: it interprets
// pickle's opcodes (protocols 2 to 5) over a stack, with the globals
// weights_only allows for tensors (`torch._utils._rebuild_tensor_v2`,
// `_rebuild_parameter`, `collections.OrderedDict`, `torch.<Type>Storage`)
// and refuses any other by name.
//
// Contracts:
//   * Tensors keep dtype, sizes, strides and storage offset; tensors naming
//     one storage key share one storage; a tensor reaching past its storage's
//     bytes, a storage record of the wrong size, a missing record, an unknown
//     opcode or global, a malformed or truncated pickle, or nesting deeper
//     than 1,000 is an error naming `what`.
//   * What the file says is checked before libtorch sees it: a storage's
//     type is one of the globals above (never a number the pickle made up),
//     sizes and strides are ints, only floating-point and complex tensors
//     require grad.
//   * The value is a tree no deeper than 1,000: a list or dict that contains
//     itself, or one changed after it was placed in another value (which
//     Python's pickler never writes; through the memo it would hide how deep
//     the value nests), is an error.
//   * Parameters come back as tensors with their requires_grad; dicts keep
//     their order; OrderedDict is a dict.
#ifndef FX_EXPORTED_PROGRAM_TORCH_LOAD_H_
#define FX_EXPORTED_PROGRAM_TORCH_LOAD_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {
namespace exported {

FX_API absl::StatusOr<c10::IValue> torch_load(absl::string_view bytes, const std::string& what);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_TORCH_LOAD_H_
