// Copyright 2026 The FX for C++ Authors.
#include "tools/bazel_runfiles.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "fx/installation.h"

namespace fx {
namespace {

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string bazel_runfiles_directory() {
  // A release's or a CMake build's program: never Bazel's runfiles.
  if (installed_plugin_directory()) return "";
  if (const char* dir = std::getenv("RUNFILES_DIR"); dir != nullptr && is_directory(dir)) return dir;
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    const std::string own = absl::StrCat(std::string(exe, static_cast<size_t>(n)), ".runfiles");
    if (is_directory(own)) return own;
  }
  return "";
}

std::string bazel_runfile(const std::string& tree, const std::string& path) {
  if (tree.empty()) return "";
  const std::string file = absl::StrCat(tree, "/fx_cpp/", path);
  struct stat st;
  return ::stat(file.c_str(), &st) == 0 ? file : "";
}

}  // namespace fx
