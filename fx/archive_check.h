// Copyright 2026 The FX for C++ Authors.
//
// archive_check.h: checking PyTorch's files before libtorch's recursive
// readers see them.
//
// libtorch reads pickles (torch.save's files, a TorchScript model's
// data.pkl and constants.pkl), the TorchScript source in a model's code/
// and the type names in pickles with recursive code: a crafted file that
// nests lists, tuples, parentheses or operators a few thousand levels deep
// overflows the stack (a crash, not an error). These checks scan the bytes
// without recursion and without executing anything, and refuse what nests
// deeper than any saved model or value does:
//
//   if (absl::Status s = fx::check_archive_bytes(bytes); !s.ok()) ... // a .pt file
//   if (absl::Status s = fx::check_pickle(bytes); !s.ok()) ...         // one pickle
//
// Contracts:
//   * check_pickle follows the pickle opcodes (protocols 0-5) as a stack
//     machine over nesting depths only: a value nested deeper than
//     kMaxSavedNesting, a string holding a type name nested deeper than that
//     (List[List[...]]), or an object that would contain itself (a list
//     appended into itself through the memo) is refused. A stream it cannot
//     follow (an unknown opcode, a truncated argument) is left to libtorch,
//     which refuses it without recursing.
//   * check_torchscript_source refuses code whose brackets, operator chains
//     (-(-(-x)), x+x+x..., x.f().f()...) and indented blocks together nest
//     deeper than kMaxSavedNesting, naming the line.
//   * check_archive applies them to every pickle (*.pkl) and every code file
//     (code/*.py) of a zip archive, naming the record. A file that is not a
//     zip archive passes: libtorch's own error says what it is not.
//   * check_tensors_in_bounds and check_module_tensors check what libtorch
//     read: no tensor reaches past its storage.
//   * Errors are one line, for a message that names the file in front.
#ifndef FX_FX_ARCHIVE_CHECK_H_
#define FX_FX_ARCHIVE_CHECK_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace torch {
namespace jit {
struct Module;  // torch/csrc/jit/api/module.h
}  // namespace jit
}  // namespace torch

namespace fx {

// How deep a saved value, a type name or an expression may nest; real models
// stay far below (the data.pkl of ResNet-18 nests 14 levels, of Swin-T 16)
// and libtorch's readers cope with several times more.
inline constexpr int kMaxSavedNesting = 1000;

FX_API absl::Status check_pickle(absl::string_view pickle);
FX_API absl::Status check_torchscript_source(absl::string_view code);

// The zip archive in `bytes`.
FX_API absl::Status check_archive_bytes(absl::string_view bytes);

// After loading: a tensor whose sizes, strides and offset reach past its
// storage (a crafted file) would read other memory. Checks every tensor in
// `value` (through tuples, lists, dicts and objects, without recursion), and
// every parameter, buffer, attribute and code constant of `module`.
FX_API absl::Status check_tensors_in_bounds(const c10::IValue& value);
// (fx/torchscript/module_check.cc, where TorchScript's types are whole.)
FX_API absl::Status check_module_tensors(const torch::jit::Module& module);

}  // namespace fx

#endif  // FX_FX_ARCHIVE_CHECK_H_
