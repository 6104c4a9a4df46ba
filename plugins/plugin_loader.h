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
//   * it is not a loadable shared library (dlerror's text), or is cut short
//     (smaller than its ELF headers say: dlopen would die of SIGBUS);
//   * it links another libfx than the one running (its DT_NEEDED names
//     libfx.so.0.10 where libfx.so.0.11 runs, or a source build's libfx.so in
//     a release): read from the file before dlopen, which would load that
//     libfx too and die in libtorch's second registration of its operators;
//   * it has no `fxGetPluginInfo`, or that symbol is not a function;
//   * it was built for another plugin API version (both versions named);
//   * its entry point or registration callback throws (anything: the
//     exception's message, plugins/plugin_guard.h);
//   * it registers what no pipeline can use (Registry::commit);
//   * it registers a name another plugin registered (both plugins named).
// A refused plugin registers nothing. Loading the same file twice returns the
// first load's record. Plugins stay loaded for the life of the process.
#ifndef FX_PLUGINS_PLUGIN_LOADER_H_
#define FX_PLUGINS_PLUGIN_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "plugins/registry.h"

namespace fx {

// Loads the plugin at `path` and commits its registrations to `registry`.
FX_API absl::StatusOr<PluginRecord> load_plugin(const std::string& path,
                                                Registry& registry = Registry::global());

// Checks, before dlopen maps it, that the ELF shared library at `path` holds
// everything its headers describe: dlopen maps the segments a cut-short file
// lacks and dies of SIGBUS touching them. `what` names the file in messages
// ("plugin", "--op-library"). A file that is not 64-bit ELF passes (dlopen
// says what it is not).
FX_API absl::Status check_shared_library_size(const std::string& path, absl::string_view what);

}  // namespace fx

#endif  // FX_PLUGINS_PLUGIN_LOADER_H_
