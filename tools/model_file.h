// Copyright 2026 The FX for C++ Authors.
//
// model_file.h: reading the TorchScript model a user names, and the custom
// operator libraries it needs, with an error a user can act on for every way
// it can go wrong.
//
//   fx::load_operator_library("/path/libmy_ops.so");   // --op-library, before the model
//   absl::StatusOr<torch::jit::Module> m = fx::load_model(path);   // "-": standard input
//
// Only regular files are read (a FIFO, a device or a directory is refused,
// never waited on); `-` reads standard input to its end first. libtorch's
// reasons are shown from their first non-empty line. A model that calls an
// operator no loaded library provides names the operator and says how to load
// its library (--op-library; torchvision's operators are in torchvision's
// _C extension).
#ifndef FX_TOOLS_MODEL_FILE_H_
#define FX_TOOLS_MODEL_FILE_H_

#include <string>

#include <torch/csrc/jit/api/module.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

// The first non-empty line of a libtorch message, trimmed.
std::string first_line_of(const std::string& message);

absl::StatusOr<torch::jit::Module> load_model(const std::string& path);

// Loads a shared library that registers custom operators (TORCH_LIBRARY), so
// that models calling them load.
absl::Status load_operator_library(const std::string& path);

}  // namespace fx

#endif  // FX_TOOLS_MODEL_FILE_H_
