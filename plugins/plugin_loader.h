// Copyright 2026 The FX for C++ Authors.
//
// plugin_loader.h: loading plugins (shared libraries) into a Registry. For
// hosts such as fxrun; plugins themselves never need it.
//
// A plugin is a shared library with one exported C entry point,
// `fxGetPluginInfo`, that returns an FxPluginInfo: the plugin API version it
// was built against, its name and version, and a callback that registers its
// passes, tracer extensions and table entries (plugins/fx_plugin.h). As with
// LLVM's pass plugins, every failure is a clear error and never a crash:
//   * the file does not exist, or is not a regular file;
//   * it is not a loadable shared library (dlerror's text);
//   * it has no `fxGetPluginInfo`, or that symbol is not a function;
//   * it was built for another plugin API version (both versions named);
//   * its registration callback throws (the exception's message);
//   * it registers a name another plugin registered (both plugins named).
// A refused plugin registers nothing. Loading the same file twice returns the
// first load's record. Plugins stay loaded for the life of the process.
#ifndef FX_PLUGINS_PLUGIN_LOADER_H_
#define FX_PLUGINS_PLUGIN_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "plugins/registry.h"

namespace fx {

// Loads the plugin at `path` and commits its registrations to `registry`.
absl::StatusOr<PluginRecord> load_plugin(const std::string& path,
                                         Registry& registry = Registry::global());

}  // namespace fx

#endif  // FX_PLUGINS_PLUGIN_LOADER_H_
