// Copyright 2026 The FX for C++ Authors.
#include "fx/torchscript/torchscript_file.h"

#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "fx/archive_check.h"
#include "fx/torchscript/read_torchscript.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// The number that starts `text` after `prefix`, where `prefix` is found.
std::optional<size_t> number_after(absl::string_view text, absl::string_view prefix) {
  const size_t at = text.find(prefix);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = text.substr(at + prefix.size());
  const size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
  size_t n = 0;
  if (!absl::SimpleAtoi(rest.substr(0, digits), &n)) return std::nullopt;
  return n;
}


// What to tell the user about libtorch's reason for refusing a model.
std::string explain(const std::string& reason, const ModelFileNames& names) {
  const std::string line = first_line_of(reason);
  // libtorch 2.x's unpickler refuses a tensor past its storage, which 1.13
  // loads and check_module_tensors refuses; both say it the same way. "Tensor:
  // sizes 127, strides 1, storage offset 0 and itemsize 4 require a storage of
  // at least 508 bytes, but storage only has 16 bytes".
  const std::optional<size_t> needed = number_after(line, " require a storage of at least ");
  const std::optional<size_t> has = number_after(line, " storage only has ");
  if (needed && has) {
    return absl::StrCat("a tensor reaches past its storage (", *needed, " bytes of ", *has, ")");
  }
  // "Attempted to read a PyTorch file with version 99, but the maximum
  // supported version for reading is 10. Your PyTorch installation may be too
  // old." (and the minimum's twin), with where libtorch raised it.
  if (const std::optional<size_t> version = number_after(line, "read a PyTorch file with version ")) {
    const std::optional<size_t> most = number_after(line, "maximum supported version for reading is ");
    const std::optional<size_t> least = number_after(line, "minimum supported version for reading is ");
    return absl::StrCat(
        "its file format version is ", *version, ", and libtorch ", TORCH_VERSION, " reads versions ",
        least ? absl::StrCat(*least, " and later") : most ? absl::StrCat("up to ", *most) : "other than it",
        most ? ": a newer PyTorch wrote it; save it with the PyTorch of this platform (or read it where libtorch is newer)"
             : "");
  }
  // "Unknown builtin op: torchvision::nms." and its variants.
  for (absl::string_view marker : {"Unknown builtin op: ", "Unknown custom op: "}) {
    const size_t at = line.find(std::string(marker));
    if (at == std::string::npos) continue;
    std::string op = line.substr(at + marker.size());
    op = std::string(absl::StripSuffix(absl::StripAsciiWhitespace(op), "."));
    std::string hint = absl::StrCat(
        "the model calls operator ", escape_for_message(op),
        ", which no loaded library provides; load its library first with ", names.op_library);
    if (absl::StartsWith(op, "torchvision::")) {
      absl::StrAppend(&hint, " (torchvision's operators are in torchvision's _C extension: "
                             "python3 -c 'import torchvision, glob, os; print(glob.glob(os.path."
                             "dirname(torchvision.__file__) + \"/_C*.so\")[0])')");
    }
    return hint;
  }
  if (absl::StrContains(line, "zip archive") || absl::StrContains(line, "PytorchStreamReader") ||
      absl::StrContains(line, "reader failed") || absl::StrContains(line, "constants.pkl") ||
      absl::StrContains(line, "file not found")) {
    return absl::StrCat(escape_for_message(line),
                        " (is it a TorchScript file saved with torch.jit.save?)");
  }
  return escape_for_message(line);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const torch::jit::Module>> read_torchscript(
    std::string bytes, const std::string& shown, const ModelFileNames& names) {
  auto refused = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load model ", shown, ": ", s.message()));
  };
  // What libtorch reads recursively is checked first; what it read after.
  if (absl::Status s = check_archive_bytes(bytes); !s.ok()) return refused(s);
  try {
    std::istringstream in(std::move(bytes));
    torch::jit::Module model = torch::jit::load(in);
    if (absl::Status s = check_module_tensors(model); !s.ok()) return refused(s);
    return std::make_shared<const torch::jit::Module>(std::move(model));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load model ", shown, ": ", explain(exception_message(e), names)));
  }
}

absl::StatusOr<torch::jit::Module> load_model(const std::string& path, const ModelFileNames& names) {
  auto file = load_model_file(path, names);
  if (!file.ok()) return file.status();
  if (file->torchscript == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load model ", shown_model(path), ": it is a torch.export program, not a TorchScript module (read it with "
        "fx::load_model_file or fx::Model::load)"));
  }
  return *file->torchscript;
}

}  // namespace fx
