// Copyright 2026 The FX for C++ Authors.
//
// fx_plugin.h: the one header a plugin author includes.
//
// A plugin is a shared library that registers tracer extensions, passes and
// extension-table entries under names, for fxrun (or any host) to load:
//
//   #include "plugins/fx_plugin.h"
//
//   class CountNodes : public fx::Pass {
//    public:
//     absl::Status run(fx::GraphModule& gm, fx::PassContext&) override {
//       gm.meta().set("node_count", static_cast<int64_t>(gm.graph().size()));
//       return absl::OkStatus();
//     }
//   };
//
//   FX_PLUGIN("count_nodes", "1.0") {
//     registrar.add_pass("count_nodes", "records the number of nodes in meta",
//                        /*options=*/{},
//                        [](const fx::Options&) -> absl::StatusOr<std::unique_ptr<fx::Pass>> {
//                          return std::make_unique<CountNodes>();
//                        });
//   }
//
// Build it as a shared library linked against the FX library (libfx.so: the
// core, tracer, runtime and pass manager, linked once per process) and load it
// with `fxrun --plugin=libcount_nodes.so --passes=count_nodes`. See
// plugins/examples/out_of_tree for a complete example built outside Bazel.
//
// The contract (FX_PLUGIN_API_VERSION 1): one exported C function,
// `fxGetPluginInfo`, returns the API version, the plugin's name and version,
// and the registration callback; FX_PLUGIN writes it. The host refuses a
// plugin built for another API version.
#ifndef FX_PLUGINS_FX_PLUGIN_H_
#define FX_PLUGINS_FX_PLUGIN_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph.h"
#include "core/options.h"
#include "core/pass.h"
#include "core/plugin_loader.h"
#include "core/printer.h"
#include "core/registry.h"
#include "runtime/graph_module.h"
#include "tracer/tracer.h"

// Defines the plugin's entry point. The braces that follow are the body of
// the registration callback, with `fx::PluginRegistrar& registrar` in scope.
#define FX_PLUGIN(plugin_name, plugin_version)                                        \
  static void fx_plugin_register(::fx::PluginRegistrar& registrar);                   \
  static void fx_plugin_register_thunk(::fx::PluginRegistrar* registrar) {            \
    fx_plugin_register(*registrar);                                                   \
  }                                                                                   \
  extern "C" __attribute__((visibility("default"))) FxPluginInfo fxGetPluginInfo() {  \
    return FxPluginInfo{FX_PLUGIN_API_VERSION, plugin_name, plugin_version,           \
                        &fx_plugin_register_thunk};                                   \
  }                                                                                   \
  static void fx_plugin_register(::fx::PluginRegistrar& registrar)

#endif  // FX_PLUGINS_FX_PLUGIN_H_
