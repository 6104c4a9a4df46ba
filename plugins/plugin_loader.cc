// Copyright 2026 The FX for C++ Authors.
#include "plugins/plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "plugins/elf_dependencies.h"
#include "plugins/fx_plugin.h"
#include "plugins/plugin_guard.h"

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

// The SONAME of the libfx this code runs in, and its file; an empty SONAME
// when libfx is linked into the program itself.
struct RunningLibfx {
  std::string soname;
  std::string file;
};

const std::optional<RunningLibfx>& running_libfx() {
  static const auto* const running = [] {
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&running_libfx), &info) == 0 || info.dli_fname == nullptr) {
      return new std::optional<RunningLibfx>();
    }
    // dladdr names the main program by what the process was started as
    // (argv[0], perhaps no path): /proc/self/exe is its file.
    std::string file = info.dli_fname;
    if (file.find('/') == std::string::npos) {
      char program[PATH_MAX];
      const ssize_t n = ::readlink("/proc/self/exe", program, sizeof(program) - 1);
      if (n <= 0) return new std::optional<RunningLibfx>();
      file.assign(program, static_cast<size_t>(n));
    }
    auto elf = read_elf_library_file(file);
    if (!elf || !elf->names) return new std::optional<RunningLibfx>();
    return new std::optional<RunningLibfx>(RunningLibfx{elf->names->soname, file});
  }();
  return *running;
}

// A plugin that needs a libfx other than the running one would load it
// beside it, before anything of the plugin's runs: libtorch aborts the
// process on that libfx's second registration of the fx operators. Only the
// plugin's own DT_NEEDED entries are read.
absl::Status check_links_running_libfx(const ElfLibraryFile& plugin, const std::string& shown) {
  const std::optional<RunningLibfx>& running = running_libfx();
  if (!running) return absl::OkStatus();  // cannot tell: dlopen decides
  if (!plugin.names) return absl::OkStatus();  // dlopen says what is wrong with the file
  for (const std::string& needed : plugin.names->needed) {
    if (!is_libfx_name(needed) || needed == running->soname) continue;
    const std::string running_name =
        running->soname.empty()
            ? absl::StrCat("libfx linked into the program itself (", path_for_message(running->file), ")")
            : absl::StrCat(running->soname, " (", path_for_message(running->file), ")");
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", shown, " links ", escape_for_message(needed), " but this program runs ", running_name,
        ": loading it would load a second libfx into the process; rebuild the plugin against the "
        "SDK of the fxrun or library that loads it (the release's with its CMake package or "
        "pkg-config, a source build's with Bazel)"));
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

absl::Status check_not_cut_short(const ElfLibraryFile& file, const std::string& path,
                                 absl::string_view what) {
  if (file.described_bytes <= file.file_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " ", path_for_message(path), " is cut short: it has ", file.file_bytes,
      " bytes, and its ELF headers describe ", file.described_bytes,
      " (a copy or build that did not finish?); build or copy it again"));
}

}  // namespace

absl::Status check_shared_library_size(const std::string& path, absl::string_view what) {
  auto file = read_elf_library_file(path);
  if (!file) return absl::OkStatus();  // not ELF, or not readable: dlopen says why
  return check_not_cut_short(*file, path, what);
}

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

  // What dlopen would fault or abort on, read from the file before it loads.
  if (auto file = read_elf_library_file(canonical)) {
    if (absl::Status s = check_not_cut_short(*file, canonical, "plugin"); !s.ok()) return s;
    if (absl::Status s = check_links_running_libfx(*file, shown); !s.ok()) return s;
  }
  // Its static initializers run in dlopen: a crash there is the plugin's.
  void* handle = nullptr;
  {
    PluginActivity loading(PluginRecord{"", "", canonical}, "being loaded (its static initializers)");
    handle = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
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
  FxPluginInfo info = {};
  if (absl::Status s = call_plugin(PluginRecord{"", "", canonical},
                                   absl::StrCat("calling its ", FX_PLUGIN_ENTRY_POINT),
                                   [&] {
                                     info = reinterpret_cast<EntryPoint>(symbol)();
                                     return absl::OkStatus();
                                   });
      !s.ok()) {
    ::dlclose(handle);
    return s;
  }
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
    committed = call_plugin(record, "registering", [&] {
      info.register_callback(&registrar);
      return absl::OkStatus();
    });
    if (committed.ok()) committed = registry.commit(registrar);
  }
  if (!committed.ok()) {
    ::dlclose(handle);
    return committed;
  }
  return record;  // the library stays loaded: its code backs the registrations
}

}  // namespace fx
