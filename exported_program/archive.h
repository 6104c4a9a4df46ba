// Copyright 2026 The FX for C++ Authors.
//
// archive.h: a `.pt2` file as `torch.export.save` writes it, read into memory:
// the program (schema.h), its parameters, buffers and constants as tensors,
// and the example inputs it was exported with.
//
//   std::string bytes = ...;                               // the whole file
//   absl::StatusOr<fx::exported::LoadedProgram> p =
//       fx::exported::load_program(bytes, "resnet18.pt2");
//   for (const auto& [fqn, t] : p->state) ...              // "conv1.weight" -> tensor
//
// Two layouts exist, and both are read:
//   * torch 2.1 to 2.7 (Debian 13's 2.6): a zip with
//     `serialized_exported_program.json`, `serialized_state_dict.pt` (a
//     torch.save pickle of the state dict), `serialized_constants.pt`,
//     `serialized_example_inputs.pt` and `version`;
//   * torch 2.8 and later (Debian unstable's 2.14), the PT2 archive: one top
//     folder, `archive_format` ("pt2"), `models/<name>.json`, weights as raw
//     storage bytes in `data/weights/`, described by
//     `data/weights/<name>_weights_config.json` (constants likewise, under
//     `data/constants/`), and `data/sample_inputs/<name>.pt`.
//
// Contracts:
//   * Tensors keep what was written: dtype, sizes, strides and storage offset;
//     tensors that shared a storage when saved share one here (a weight
//     config naming one file for several tensors; one storage key in a
//     pickle).
//   * Every inconsistency is an error naming the member and the tensor: a
//     weight config entry whose tensor reaches past its file's bytes, a
//     missing member, an unknown dtype, a byte order other than little
//     endian, a pickled payload (tensor subclasses, custom objects: not
//     supported), an archive with several models (named, with the way to
//     pick one), a schema version this reader does not know (schema.h).
//   * Nothing is executed: torch.save pickles are read with libtorch's
//     unpickler, which builds tensors and containers only, and the
//     parameters' `torch._utils._rebuild_parameter` is read as the tensor it
//     wraps.
#ifndef FX_EXPORTED_PROGRAM_ARCHIVE_H_
#define FX_EXPORTED_PROGRAM_ARCHIVE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "exported_program/schema.h"

namespace fx {
namespace exported {

enum class ArchiveLayout {
  kLegacy,      // torch 2.1-2.7
  kPt2Archive,  // torch 2.8 and later
};

struct FX_API LoadedProgram {
  ArchiveLayout layout = ArchiveLayout::kPt2Archive;
  // The PT2 archive's top folder and model name ("model" unless saved with
  // another); empty for the legacy layout.
  std::string archive_name;
  std::string model_name;
  Program program;
  // Warnings met while reading (a newer schema minor version's unknown keys).
  std::vector<std::string> warnings;
  // Parameters and buffers by fully qualified name, in the order written.
  std::vector<std::pair<std::string, at::Tensor>> state;
  // Tensor constants by name (lifted constants, `lifted_tensor_0`).
  std::vector<std::pair<std::string, at::Tensor>> constants;
  // The example inputs, as written: a tuple (args tuple, kwargs dict).
  std::optional<c10::IValue> example_inputs;
  // Why the example inputs the archive holds cannot be read (also among the
  // warnings: a program whose example inputs are unreadable is still read).
  std::string example_inputs_error;
};

// Whether `bytes` begin like a zip archive (a `.pt2` file or a TorchScript
// `.pt`: both are zips; load_program tells them apart by their members).
FX_API bool looks_like_zip(absl::string_view bytes);

// Whether the zip in `bytes` holds a torch.export program of either layout
// (cheap: reads the member names only; also of a damaged archive, whose
// names are read as they are, so that load_program says what is wrong).
FX_API bool is_exported_program(absl::string_view bytes);

// Reads the program in `bytes` (the whole file); `display_name` names it in
// errors. `model_name` picks one model of a PT2 archive that holds several.
FX_API absl::StatusOr<LoadedProgram> load_program(absl::string_view bytes,
                                                  const std::string& display_name,
                                                  const std::string& model_name = "");

// A tensor of `meta` over `storage` (the bytes of one storage), checking that
// it lies within those bytes. `what` names the tensor in errors.
FX_API absl::StatusOr<at::Tensor> tensor_from_storage(const TensorMeta& meta,
                                                      const at::Storage& storage,
                                                      const std::string& what);

// The c10 dtype / layout / memory format of a schema enum value; an error
// naming the value for one c10 does not have here.
FX_API absl::StatusOr<c10::ScalarType> to_c10(ScalarType t);
FX_API absl::StatusOr<c10::Layout> to_c10(Layout l);
FX_API absl::StatusOr<c10::MemoryFormat> to_c10(MemoryFormat m);
// And back.
FX_API absl::StatusOr<ScalarType> from_c10(c10::ScalarType t);
FX_API Layout from_c10(c10::Layout l);
FX_API MemoryFormat from_c10(c10::MemoryFormat m);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_ARCHIVE_H_
