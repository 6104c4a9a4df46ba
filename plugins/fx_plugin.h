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
//     fx::Option<std::string> key{*this, "key", "the graph meta key to write", "node_count"};
//     absl::Status run(fx::GraphModule& gm, fx::PassContext&) override {
//       gm.meta().set(*key, static_cast<int64_t>(gm.graph().size()));
//       return absl::OkStatus();
//     }
//   };
//
//   FX_PLUGIN("count_nodes", "1.0") {
//     registrar.add_pass<CountNodes>("count_nodes", "records the number of nodes in meta");
//   }
//
// Build it as a shared library linked against the FX library (libfx.so: the
// core, tracer, runtime, plugin API and pass manager, linked once per process)
// and load it with `fxrun --plugin=libcount_nodes.so --passes='count_nodes{key=n}'`.
// See plugins/examples/out_of_tree for a complete example built outside Bazel.
//
// The contract, as LLVM's PassPlugin.h states its own: one exported C
// function, `fxGetPluginInfo`, returns an FxPluginInfo with the API version the
// plugin was built against, the plugin's name and version, and the
// registration callback; FX_PLUGIN writes it. The host refuses a plugin built
// for another API version, naming both.
//
// The API version rule: FX_PLUGIN_API_VERSION changes whenever FxPluginInfo or
// the interface a registration callback uses changes: PluginRegistrar and the
// classes it takes (Pass, PassContext, OptionSet and Option, TracerExtension
// and its hooks, the factory signatures). The version is about source and
// binary compatibility with libfx.so built by the same compiler and standard
// library: FxPluginInfo is a C struct, but the callback receives C++ objects,
// so plugin and host must agree on the C++ ABI (on Linux, the same g++ or a
// compatible clang with libstdc++). History: 1 (first release); 2 (typed
// options: OptionValues replaces Options, add_pass<T>/add_tracer_extension<T>);
// 3 (PassContext carries example inputs, for passes that run the graph);
// 4 (GraphModule::root() returns fx::Module& instead of torch::jit::Module&,
// and GraphModule holds its compiled plan in a thread-safe slot: its layout
// and members changed; FX_VERSION 0.10.0); 5 (fx::Module holds the state a
// module's own code assigns, with locks for it: its layout and members
// changed; FX_VERSION 0.11.0).
#ifndef FX_PLUGINS_FX_PLUGIN_H_
#define FX_PLUGINS_FX_PLUGIN_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph.h"
#include "plugins/options.h"
#include "plugins/pass.h"
#include "plugins/registry.h"
#include "runtime/graph_module.h"
#include "tracer/tracer.h"

// The plugin API version this header describes (see the rule above).
#define FX_PLUGIN_API_VERSION 5

// The name of the entry point every plugin exports.
#define FX_PLUGIN_ENTRY_POINT "fxGetPluginInfo"

extern "C" {

// What a plugin's entry point returns.
typedef struct FxPluginInfo {
  uint32_t api_version;  // FX_PLUGIN_API_VERSION when the plugin was built
  const char* name;      // the plugin's name, unique among loaded plugins
  const char* version;   // the plugin's own version
  void (*register_callback)(fx::PluginRegistrar* registrar);
} FxPluginInfo;

}  // extern "C"

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
