// Copyright 2026 The FX for C++ Authors.
#include "tools/model_file.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <torch/csrc/jit/serialization/import.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// Checks that `path` is a regular file, without ever blocking on something
// that is not one (opening a FIFO for reading waits for a writer).
absl::Status check_regular_file(const std::string& path) {
  const std::string shown = path_for_message(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::NotFoundError(absl::StrCat("cannot read model ", shown, ": ", std::strerror(err),
                                            err == ENOENT ? " (check the --model path)" : ""));
  }
  struct stat st;
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    const bool dir = stat_ok && S_ISDIR(st.st_mode);
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read model ", shown, ": ", dir ? "it is a directory" : "it is not a regular file",
        " (give a .pt file saved with torch.jit.save, or --model=- to read one from standard "
        "input)"));
  }
  return absl::OkStatus();
}

// What to tell the user about libtorch's reason for refusing a model.
std::string explain(const std::string& reason) {
  const std::string line = first_line_of(reason);
  // "Unknown builtin op: torchvision::nms." and its variants.
  for (absl::string_view marker : {"Unknown builtin op: ", "Unknown custom op: "}) {
    const size_t at = line.find(std::string(marker));
    if (at == std::string::npos) continue;
    std::string op = line.substr(at + marker.size());
    op = std::string(absl::StripSuffix(absl::StripAsciiWhitespace(op), "."));
    std::string hint = absl::StrCat(
        "the model calls operator ", escape_for_message(op),
        ", which no loaded library provides; load its library first with --op-library=PATH");
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

std::string first_line_of(const std::string& message) {
  std::istringstream in(message);
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (!l.empty()) return std::string(l);
  }
  return "no reason given";
}

absl::StatusOr<std::string> read_regular_file(const std::string& path, absl::string_view flag) {
  const std::string shown = path_for_message(path);
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " is empty (an unset variable?); give a file"));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::NotFoundError(absl::StrCat("cannot read ", flag, " ", shown, ": ", std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", flag, " ", shown, ": ",
                                                   dir ? "it is a directory" : "it is not a regular file"));
  }
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return absl::UnavailableError(absl::StrCat("cannot read ", flag, " ", shown, ": ", std::strerror(err)));
    }
    data.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

absl::StatusOr<torch::jit::Module> load_model(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError("--model is empty; give a .pt file (or - for standard input)");
  }
  try {
    if (path != "-") {
      if (absl::Status s = check_regular_file(path); !s.ok()) return s;
      return torch::jit::load(path);
    }
    // Standard input, read to its end first (the archive is read out of order).
    std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (data.empty()) return absl::InvalidArgumentError("--model=-: standard input is empty");
    std::istringstream in(std::move(data));
    return torch::jit::load(in);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load model ", path == "-" ? std::string("from standard input") : path_for_message(path),
        ": ", explain(exception_message(e))));
  }
}

absl::Status load_operator_library(const std::string& path) {
  const std::string shown = path_for_message(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot open --op-library ", shown, ": ",
                                            std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--op-library ", shown, " is not a regular file (give a .so file)"));
  }
  // RTLD_GLOBAL: the operators' code may be needed by other libraries.
  if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = ::dlerror();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load --op-library ", shown, " (is it a shared library built for this libtorch?): ",
        escape_for_message(why != nullptr ? why : "unknown error")));
  }
  return absl::OkStatus();
}

}  // namespace fx
