// Copyright 2026 The FX for C++ Authors.
#include "fx/model_file.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"
#include "fx/archive_check.h"
#include "fx/input_file.h"

namespace fx {
namespace {

// How a zip archive (a TorchScript file) starts.
constexpr absl::string_view kZipMagic("PK\x03\x04", 4);

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

// A TorchScript module from the bytes of its file (`shown` in messages).
absl::StatusOr<torch::jit::Module> load_torchscript(std::string bytes, const std::string& shown,
                                                    const ModelFileNames& names) {
  auto refused = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load model ", shown, ": ", s.message()));
  };
  // What libtorch reads recursively is checked first; what it read after.
  if (absl::Status s = check_archive_bytes(bytes); !s.ok()) return refused(s);
  try {
    std::istringstream in(std::move(bytes));
    torch::jit::Module model = torch::jit::load(in);
    if (absl::Status s = check_module_tensors(model); !s.ok()) return refused(s);
    return model;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load model ", shown, ": ", explain(exception_message(e), names)));
  }
}

// The bytes of the model file `path` ("-": standard input, read to its end).
absl::StatusOr<std::string> read_model_bytes(const std::string& path, const ModelFileNames& names) {
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        names.model, " is empty; give a .pt or .pt2 file (or - for standard input)"));
  }
  if (path != "-") {
    if (absl::Status s = check_regular_file(
            path, "model",
            "give a .pt file saved with torch.jit.save or a .pt2 file saved with "
            "torch.export.save, or - to read one from standard input");
        !s.ok()) {
      return s;
    }
    return read_regular_file(path, names.model);
  }
  // Both kinds are zip archives, which start "PK\3\4".
  const std::string standard_input = absl::StrCat(names.model, "=-: standard input");
  auto data = read_standard_input(standard_input, kZipMagic);
  if (!data.ok()) {
    return absl::Status(data.status().code(),
                        absl::StrCat(data.status().message(),
                                     " (give a TorchScript file saved with torch.jit.save or a "
                                     "torch.export program saved with torch.export.save)"));
  }
  if (data->empty()) return absl::InvalidArgumentError(absl::StrCat(standard_input, " is empty"));
  return data;
}

std::string shown_model(const std::string& path) {
  return path == "-" ? std::string("from standard input") : path_for_message(path);
}

}  // namespace

absl::StatusOr<torch::jit::Module> load_model(const std::string& path, const ModelFileNames& names) {
  auto bytes = read_model_bytes(path, names);
  if (!bytes.ok()) return bytes.status();
  return load_torchscript(*std::move(bytes), shown_model(path), names);
}

absl::StatusOr<ModelFile> load_model_file(const std::string& path, const ModelFileNames& names) {
  auto bytes = read_model_bytes(path, names);
  if (!bytes.ok()) return bytes.status();
  ModelFile file;
  if (exported::is_exported_program(*bytes)) {
    // The reader's errors start with the name it is given.
    auto program = exported::load_program(*bytes, shown_model(path));
    if (!program.ok()) {
      return absl::Status(program.status().code(),
                          absl::StrCat("cannot load model: ", program.status().message()));
    }
    file.program = *std::move(program);
    return file;
  }
  auto module = load_torchscript(*std::move(bytes), shown_model(path), names);
  if (!module.ok()) return module.status();
  file.torchscript = *std::move(module);
  return file;
}

absl::Status load_operator_library(const std::string& path, absl::string_view flag) {
  const std::string shown = path_for_message(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", flag, " ", shown, ": ",
                                            std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", shown, " is not a regular file (give a .so file)"));
  }
  // RTLD_GLOBAL: the operators' code may be needed by other libraries.
  if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = ::dlerror();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load ", flag, " ", shown, " (is it a shared library built for this libtorch?): ",
        escape_for_message(why != nullptr ? why : "unknown error")));
  }
  return absl::OkStatus();
}

}  // namespace fx
