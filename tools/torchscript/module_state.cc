// Copyright 2026 The FX for C++ Authors.
#include "tools/torchscript/module_state.h"

#include <torch/csrc/jit/api/module.h>

#include "runtime/torchscript/script_module.h"

namespace fx {

absl::StatusOr<std::shared_ptr<Module>> torchscript_module_state(const torch::jit::Module& module,
                                                                 bool training) {
  // The mode set on every submodule (train() recurses) before the state is
  // converted.
  torch::jit::Module model = module;
  if (training != model.is_training()) model.train(training);
  return module_from_torchscript(model);
}

}  // namespace fx
