// Copyright 2026 The FX for C++ Authors.
#include "plugins/plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "plugins/fx_plugin.h"

namespace fx {
namespace {

// True when `symbol` (from dlsym) is a function in its library's symbol
// table: calling a data symbol as the entry point would crash.
bool is_function_symbol(void* symbol) {
  Dl_info info;
  void* extra = nullptr;
  if (::dladdr1(symbol, &info, &extra, RTLD_DL_SYMENT) == 0 || extra == nullptr) return false;
  const auto* elf_symbol = static_cast<const ElfW(Sym)*>(extra);
  const unsigned type = ELF64_ST_TYPE(elf_symbol->st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC;
}

}  // namespace

absl::StatusOr<PluginRecord> load_plugin(const std::string& path, Registry& registry) {
  const std::string shown = path_for_message(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat("plugin file not found: ", shown,
                                              " (check the path given to --plugin)"));
    }
    return absl::NotFoundError(
        absl::StrCat("cannot open plugin ", shown, ": ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("plugin path is not a regular file: ", shown, " (give a .so file)"));
  }
  char resolved[PATH_MAX];
  const std::string canonical = ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
  if (const PluginRecord* loaded = registry.find_plugin_by_path(canonical)) return *loaded;

  void* handle = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load plugin ", shown, " (is it a shared library built for this machine?): ",
        escape_for_message(why != nullptr ? why : "unknown error")));
  }
  void* symbol = ::dlsym(handle, FX_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr) {
    ::dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        shown, " is not an FX plugin: it exports no ", FX_PLUGIN_ENTRY_POINT,
        " (define one with FX_PLUGIN from plugins/fx_plugin.h)"));
  }
  if (!is_function_symbol(symbol)) {
    ::dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        shown, " is not an FX plugin: its ", FX_PLUGIN_ENTRY_POINT,
        " is not a function (define it with FX_PLUGIN from plugins/fx_plugin.h)"));
  }
  using EntryPoint = FxPluginInfo (*)();
  const FxPluginInfo info = reinterpret_cast<EntryPoint>(symbol)();
  if (info.api_version != FX_PLUGIN_API_VERSION) {
    ::dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", shown, " was built for plugin API version ", info.api_version,
        " but this program implements version ", FX_PLUGIN_API_VERSION,
        "; rebuild the plugin against this SDK"));
  }
  if (info.name == nullptr || info.register_callback == nullptr) {
    ::dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin ", shown, " returned an incomplete FxPluginInfo (no name or callback)"));
  }
  PluginRecord record{info.name, info.version != nullptr ? info.version : "", canonical};
  absl::Status committed;
  {
    // The registrar holds factories made by the plugin's code: it must be gone
    // before the library may be unloaded. Nothing is registered unless the
    // whole callback succeeds.
    PluginRegistrar registrar(record);
    try {
      info.register_callback(&registrar);
      committed = registry.commit(registrar);
    } catch (const std::exception& e) {
      committed = absl::InvalidArgumentError(absl::StrCat(
          "plugin ", shown, " failed while registering: ", escape_for_message(e.what())));
    } catch (...) {
      committed = absl::InvalidArgumentError(
          absl::StrCat("plugin ", shown, " failed while registering (a non-standard exception)"));
    }
  }
  if (!committed.ok()) {
    ::dlclose(handle);
    return committed;
  }
  return record;  // the library stays loaded: its code backs the registrations
}

}  // namespace fx
