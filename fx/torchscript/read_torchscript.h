// Copyright 2026 The FX for C++ Authors.
//
// read_torchscript.h: a TorchScript module from the bytes of its file, for
// fx/model_file.cc's load_model_file, which parses no TorchScript header.
// Internal to //fx:model_file.
//
// Contracts: what libtorch reads recursively is checked before it reads it,
// what it read after (fx/archive_check.h); libtorch's refusal becomes an
// InvalidArgument error "cannot load model <shown>: <what to do>", naming the
// operator library to load when the model calls an operator none provides.
#ifndef FX_FX_TORCHSCRIPT_READ_TORCHSCRIPT_H_
#define FX_FX_TORCHSCRIPT_READ_TORCHSCRIPT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "fx/model_file.h"

namespace fx {

// How messages name the model file at `path` ("'m.pt'", or "from standard
// input" for "-"); defined in fx/model_file.cc.
std::string shown_model(const std::string& path);

// `shown` names the file in messages, as shown_model gives it.
absl::StatusOr<std::shared_ptr<const torch::jit::Module>> read_torchscript(
    std::string bytes, const std::string& shown, const ModelFileNames& names);

}  // namespace fx

#endif  // FX_FX_TORCHSCRIPT_READ_TORCHSCRIPT_H_
