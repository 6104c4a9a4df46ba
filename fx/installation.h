// Copyright 2026 The FX for C++ Authors.
//
// installation.h: the parts of FX for C++ that are files (the in-tree plugins'
// shared libraries), found beside the running program as an unpacked release
// and `cmake --install` lay them out, and in a CMake build tree, which has the
// same layout:
//
//   PREFIX/bin/fxrun
//   PREFIX/lib/libfx.so.VERSION
//   PREFIX/lib/fx/plugins/libfx_*.so      the in-tree plugins
//   PREFIX/share/fx/models/resnet18.pt     the example model (a CMake build's)
//
// and the directories a user adds with FX_PLUGIN_PATH (':'-separated, as
// PATH), whose plugins are loaded after the installation's.
//
//   absl::Status s = fx::load_installed_plugins(fx::Registry::global());
//
// Contracts: a directory's plugins are its regular files named *.so, loaded
// in name order (plugins/plugin_loader.h: every failure names the file); a
// directory of FX_PLUGIN_PATH that does not exist is an error naming it; an
// empty entry is skipped. Programs that link libfx.so have the in-tree
// plugins in-process too (fx/builtin_plugins.h): loading their files as well
// is harmless only where builtins were not registered first.
#ifndef FX_FX_INSTALLATION_H_
#define FX_FX_INSTALLATION_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/registry.h"

namespace fx {

// The environment variable naming more plugin directories.
inline constexpr char kPluginPathVariable[] = "FX_PLUGIN_PATH";

// The directory of the running program's executable (/proc/self/exe), links
// followed.
FX_API std::string program_directory();

// PROGRAM_DIRECTORY/../lib/fx/plugins, when it is a directory.
FX_API std::optional<std::string> installed_plugin_directory();

// PROGRAM_DIRECTORY/../share/fx/models/resnet18.pt, when a CMake build made
// it (FX_EXAMPLE_MODEL): the model fxrun traces without --model.
FX_API std::optional<std::string> installed_example_model();

// FX_PLUGIN_PATH's directories, in order.
FX_API std::vector<std::string> plugin_path_directories();

// The plugins (*.so) of `directory`, in name order; an error naming the
// directory when it cannot be read.
FX_API absl::StatusOr<std::vector<std::string>> plugins_in(const std::string& directory);

// Loads the plugins of `directory` into `registry`.
FX_API absl::Status load_plugin_directory(const std::string& directory, Registry& registry);

// Loads the installation's plugins (installed_plugin_directory), then
// FX_PLUGIN_PATH's. Without an installation beside the program, only
// FX_PLUGIN_PATH's.
FX_API absl::Status load_installed_plugins(Registry& registry);

}  // namespace fx

#endif  // FX_FX_INSTALLATION_H_
