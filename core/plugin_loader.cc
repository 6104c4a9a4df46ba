// Copyright 2026 The FX for C++ Authors.
#include "core/plugin_loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace fx {

absl::StatusOr<PluginRecord> load_plugin(const std::string& path, Registry& registry) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("plugin file not found: ", path));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("plugin path is not a file: ", path));
  }
  char resolved[PATH_MAX];
  const std::string canonical = ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
  if (const PluginRecord* loaded = registry.find_plugin_by_path(canonical)) return *loaded;

  void* handle = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return absl::InvalidArgumentError(absl::StrCat("cannot load plugin ", path,
                                                   " (is it a shared library built for this "
                                                   "machine?): ",
                                                   why != nullptr ? why : "unknown error"));
  }
  using EntryPoint = FxPluginInfo (*)();
  auto entry = reinterpret_cast<EntryPoint>(::dlsym(handle, FX_PLUGIN_ENTRY_POINT));
  if (entry == nullptr) {
    ::dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not an FX plugin: it exports no ", FX_PLUGIN_ENTRY_POINT,
        " (define one with FX_PLUGIN from plugins/fx_plugin.h)"));
  }
  const FxPluginInfo info = entry();
  if (info.api_version != FX_PLUGIN_API_VERSION) {
    ::dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", path, " was built for plugin API version ", info.api_version,
        " but this program implements version ", FX_PLUGIN_API_VERSION,
        "; rebuild the plugin against this SDK"));
  }
  if (info.name == nullptr || info.register_callback == nullptr) {
    ::dlclose(handle);
    return absl::InvalidArgumentError(
        absl::StrCat("plugin ", path, " returned an incomplete FxPluginInfo (no name or callback)"));
  }
  PluginRecord record{info.name, info.version != nullptr ? info.version : "", canonical};
  absl::Status committed;
  {
    // The registrar holds factories made by the plugin's code: it must be gone
    // before the library may be unloaded.
    PluginRegistrar registrar(record);
    info.register_callback(&registrar);
    committed = registry.commit(registrar);
  }
  if (!committed.ok()) {
    ::dlclose(handle);
    return committed;
  }
  return record;  // the library stays loaded: its code backs the registrations
}

}  // namespace fx
