// Copyright 2026 The FX for C++ Authors.
//
// builtin_plugins.h: the in-tree plugins (passes and tracer extensions)
// registered in-process, with no dlopen: LLVM's statically linked twin of
// each plugin. libfx.so holds their code; their shared libraries (fxrun
// loads them, as it loads any plugin) are entry points into it.
//
//   absl::Status s = fx::register_builtin_plugins(fx::Registry::global());
//   auto pm = fx::PassManager::create("fold_bn,dce", fx::Registry::global());
//
// Contracts:
//   * Each plugin is committed as loading its shared library would commit it:
//     under its own name and version, its path empty ("built in" in
//     messages).
//   * A plugin the registry already holds (by name: loaded from its .so, or
//     registered before) is left as it is; so calling this twice is harmless,
//     and a program may load some in-tree plugins from their files first.
//   * Thread-safe as the registry is.
#ifndef FX_FX_BUILTIN_PLUGINS_H_
#define FX_FX_BUILTIN_PLUGINS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/export.h"
#include "plugins/registry.h"

namespace fx {

FX_API absl::Status register_builtin_plugins(Registry& registry);

// The in-tree plugins' names, in registration order.
FX_API const std::vector<std::string>& builtin_plugin_names();

}  // namespace fx

#endif  // FX_FX_BUILTIN_PLUGINS_H_
