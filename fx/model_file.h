// Copyright 2026 The FX for C++ Authors.
//
// model_file.h: reading the model a user names (a TorchScript module, or a
// torch.export program), and the custom operator libraries it needs, with an
// error a user can act on for every way it can go wrong.
//
//   fx::load_operator_library("/path/libmy_ops.so");   // before the model
//   absl::StatusOr<fx::ModelFile> f = fx::load_model_file(path);   // .pt or .pt2; "-": stdin
//
// This header parses no TorchScript header: a TorchScript model is held as
// TorchScript's module, declared here, whole in <torch/csrc/jit/api/module.h>
// (fx/torchscript/torchscript_file.h includes it, and gives load_model, which
// reads a TorchScript file as that module).
//
// A file is a torch.export program when its zip holds one (either layout,
// exported_program/archive.h), whatever its name; otherwise it is read as
// TorchScript.
//
// Only regular files are read (a FIFO, a device or a directory is refused,
// never waited on); `-` reads standard input to its end first. libtorch's
// reasons are shown from their first non-empty line. A model that calls an
// operator no loaded library provides names the operator and says how to load
// its library (ModelFileNames::op_library; torchvision's operators are in
// torchvision's _C extension). Model::load (fx/model.h) reads through these.
#ifndef FX_FX_MODEL_FILE_H_
#define FX_FX_MODEL_FILE_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/message_text.h"  // first_line_of
#include "exported_program/archive.h"

namespace torch {
namespace jit {
struct Module;  // torch/csrc/jit/api/module.h
}  // namespace jit
}  // namespace torch

namespace fx {

// How messages name what the user gave: fxrun's flags, or the library's calls.
struct FX_API ModelFileNames {
  std::string model = "model";  // the model's path ("--model")
  // How to load an operator library ("--op-library=PATH").
  std::string op_library = "fx::load_operator_library(PATH)";
};

// A model file of either kind: exactly one of the two is set.
// (A torch::jit::Module is a handle to objects: tracing it in training mode
// sets that mode on the objects this one holds too.)
struct FX_API ModelFile {
  std::shared_ptr<const torch::jit::Module> torchscript;
  std::optional<exported::LoadedProgram> program;
};
FX_API absl::StatusOr<ModelFile> load_model_file(const std::string& path,
                                                 const ModelFileNames& names = {});
// The same from the bytes of such a file, already in memory; `shown` names
// them in messages ("from memory"; a file is named by its quoted path).
FX_API absl::StatusOr<ModelFile> model_file_from_bytes(std::string bytes, const std::string& shown,
                                                       const ModelFileNames& names = {});

// Loads a shared library that registers custom operators (TORCH_LIBRARY), so
// that models calling them load.
// `flag` names the path in messages ("--op-library").
FX_API absl::Status load_operator_library(const std::string& path,
                                          absl::string_view flag = "operator library");

}  // namespace fx

#endif  // FX_FX_MODEL_FILE_H_
