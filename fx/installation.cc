// Copyright 2026 The FX for C++ Authors.
#include "fx/installation.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "plugins/plugin_loader.h"

namespace fx {
namespace {

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string program_directory() {
  char buffer[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::optional<std::string> installed_plugin_directory() {
  const std::string candidate = absl::StrCat(program_directory(), "/../lib/fx/plugins");
  char resolved[PATH_MAX];
  if (!is_directory(candidate) || ::realpath(candidate.c_str(), resolved) == nullptr) return std::nullopt;
  return std::string(resolved);
}

std::optional<std::string> installed_example_model() {
  const std::string candidate = absl::StrCat(program_directory(), "/../share/fx/models/resnet18.pt");
  struct stat st;
  if (::stat(candidate.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return candidate;
}

std::vector<std::string> plugin_path_directories() {
  std::vector<std::string> out;
  const char* value = std::getenv(kPluginPathVariable);
  if (value == nullptr) return out;
  for (absl::string_view dir : absl::StrSplit(value, ':', absl::SkipEmpty())) out.emplace_back(dir);
  return out;
}

absl::StatusOr<std::vector<std::string>> plugins_in(const std::string& directory) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot read the plugin directory ", path_for_message(directory),
                                            ": ", std::strerror(errno)));
  }
  std::vector<std::string> files;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!absl::EndsWith(name, ".so")) continue;
    const std::string path = absl::StrCat(directory, "/", name);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.push_back(path);
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

absl::Status load_plugin_directory(const std::string& directory, Registry& registry) {
  auto files = plugins_in(directory);
  if (!files.ok()) return files.status();
  for (const std::string& file : *files) {
    if (auto loaded = load_plugin(file, registry); !loaded.ok()) return loaded.status();
  }
  return absl::OkStatus();
}

absl::Status load_installed_plugins(Registry& registry) {
  if (std::optional<std::string> installed = installed_plugin_directory()) {
    if (absl::Status s = load_plugin_directory(*installed, registry); !s.ok()) return s;
  }
  for (const std::string& dir : plugin_path_directories()) {
    if (absl::Status s = load_plugin_directory(dir, registry); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(kPluginPathVariable, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace fx
