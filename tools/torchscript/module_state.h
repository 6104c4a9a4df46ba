// Copyright 2026 The FX for C++ Authors.
//
// module_state.h: a TorchScript model's state as FX for C++'s Module tree, in
// the mode a graph was traced in, for fxrun --graph with a .pt model (the
// graph file's parameters, buffers and submodules come from the model). This
// header parses no TorchScript header.
//
//   absl::StatusOr<std::shared_ptr<fx::Module>> state =
//       fx::torchscript_module_state(*file.torchscript, /*training=*/false);
//
// Contracts: runtime/torchscript/script_module.h's module_from_torchscript's,
// after every object of `module` is set to `training` (train() recurses) when
// it is in the other mode: its objects are shared with every copy of the
// module, as tracing sets them (TraceOptions::training).
#ifndef FX_TOOLS_TORCHSCRIPT_MODULE_STATE_H_
#define FX_TOOLS_TORCHSCRIPT_MODULE_STATE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/module.h"

namespace torch {
namespace jit {
struct Module;  // torch/csrc/jit/api/module.h
}  // namespace jit
}  // namespace torch

namespace fx {

// `module`'s state in training mode or in eval mode (above). Fails as
// module_from_torchscript does, naming the class and the attribute.
absl::StatusOr<std::shared_ptr<Module>> torchscript_module_state(const torch::jit::Module& module,
                                                                 bool training);

}  // namespace fx

#endif  // FX_TOOLS_TORCHSCRIPT_MODULE_STATE_H_
