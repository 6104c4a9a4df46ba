// Copyright 2026 The FX for C++ Authors.
#include "fx/model_file.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "fx/input_file.h"
#include "fx/torchscript/read_torchscript.h"

namespace fx {
namespace {

// How a zip archive (a TorchScript file) starts.
constexpr absl::string_view kZipMagic("PK\x03\x04", 4);

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

}  // namespace

std::string shown_model(const std::string& path) {
  return path == "-" ? std::string("from standard input") : path_for_message(path);
}

absl::StatusOr<ModelFile> load_model_file(const std::string& path, const ModelFileNames& names) {
  auto bytes = read_model_bytes(path, names);
  if (!bytes.ok()) return bytes.status();
  return model_file_from_bytes(*std::move(bytes), shown_model(path), names);
}

absl::StatusOr<ModelFile> model_file_from_bytes(std::string bytes, const std::string& shown,
                                                const ModelFileNames& names) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load model ", shown, ": no bytes were given; give those of a .pt file saved with "
        "torch.jit.save or of a .pt2 file saved with torch.export.save"));
  }
  ModelFile file;
  if (exported::is_exported_program(bytes)) {
    // The reader's errors start with the name it is given.
    auto program = exported::load_program(bytes, shown);
    if (!program.ok()) {
      return absl::Status(program.status().code(),
                          absl::StrCat("cannot load model: ", program.status().message()));
    }
    file.program = *std::move(program);
    return file;
  }
  auto module = read_torchscript(std::move(bytes), shown, names);
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
