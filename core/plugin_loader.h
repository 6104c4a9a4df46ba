// Copyright 2026 The FX for C++ Authors.
//
// plugin_loader.h: loading plugins (shared libraries) into a Registry.
//
// A plugin is a shared library with one exported C entry point,
// `fxGetPluginInfo`, that returns an FxPluginInfo: the plugin API version it
// was built against, its name and version, and a callback that registers its
// passes, tracer extensions and table entries (plugins/fx_plugin.h). As with
// LLVM's pass plugins, every failure is a clear error and never a crash:
//   * the file does not exist;
//   * it is not a loadable shared library (dlerror's text);
//   * it has no `fxGetPluginInfo`;
//   * it was built for another plugin API version (both versions named);
//   * it registers a name another plugin registered (both plugins named).
// Loading the same file twice returns the first load's record. Plugins stay
// loaded for the life of the process.
#ifndef FX_CORE_PLUGIN_LOADER_H_
#define FX_CORE_PLUGIN_LOADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/registry.h"

namespace fx {

class PluginRegistrar;

}  // namespace fx

extern "C" {

// The plugin API version this core implements. A plugin built against another
// version is refused.
#define FX_PLUGIN_API_VERSION 1

// What a plugin's entry point returns. A C struct: stable across compilers.
typedef struct FxPluginInfo {
  uint32_t api_version;  // FX_PLUGIN_API_VERSION when the plugin was built
  const char* name;      // the plugin's name, unique among loaded plugins
  const char* version;   // the plugin's own version
  void (*register_callback)(fx::PluginRegistrar* registrar);
} FxPluginInfo;

// The name of the entry point every plugin exports.
#define FX_PLUGIN_ENTRY_POINT "fxGetPluginInfo"

}  // extern "C"

namespace fx {

// Loads the plugin at `path` and commits its registrations to `registry`.
absl::StatusOr<PluginRecord> load_plugin(const std::string& path,
                                         Registry& registry = Registry::global());

}  // namespace fx

#endif  // FX_CORE_PLUGIN_LOADER_H_
