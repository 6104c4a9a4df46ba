// Copyright 2026 The FX for C++ Authors.
//
// torchscript_file.h: a TorchScript model file read as TorchScript's own
// module, for code that works with torch::jit::Module (fx/model_file.h reads
// either kind of model file without TorchScript's headers).
//
//   absl::StatusOr<torch::jit::Module> m = fx::load_model(path);  // "-": standard input
//
// Contracts: load_model reads through model_file.h's load_model_file, with
// its errors; a torch.export program (read whole first) is refused, naming
// load_model_file.
#ifndef FX_FX_TORCHSCRIPT_TORCHSCRIPT_FILE_H_
#define FX_FX_TORCHSCRIPT_TORCHSCRIPT_FILE_H_

#include <string>

#include <torch/csrc/jit/api/module.h>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "fx/model_file.h"

namespace fx {

FX_API absl::StatusOr<torch::jit::Module> load_model(const std::string& path,
                                                     const ModelFileNames& names = {});

}  // namespace fx

#endif  // FX_FX_TORCHSCRIPT_TORCHSCRIPT_FILE_H_
