// Copyright 2026 The FX for C++ Authors.
//
// registry.h: the passes, tracer extensions and extension tables that plugins
// provide, by name, and the one place that makes them from pipeline text.
//
// There is one Registry per process (Registry::global()), in the shared FX
// library that the host and every plugin link, so what a plugin registers is
// what the host sees. Plugins register through a PluginRegistrar (see
// plugins/fx_plugin.h for the macro plugin authors use); the loader
// (plugin_loader.h) commits a plugin's registrations all at once, or none of
// them when a name is already taken.
//
//   // In a plugin: the options are read from the class's Option members.
//   registrar.add_pass<Inline>("inline", "replaces call_module nodes with ...");
//   registrar.add_tracer_extension<TaggingTracer>("tagging", "sets meta['tag']");
//
//   // In a host: the element `inline{modules=relu}` of a parsed pipeline.
//   absl::StatusOr<std::unique_ptr<fx::Pass>> pass = registry.make_pass(element);
//
// make_pass and make_tracer_extension check the element's option names against
// the declared options (unknown: the closest name and the valid ones; given
// twice: an error) before the component parses the values.
//
// Extension tables are named lists of (key, value) strings that one plugin's
// passes read and any plugin may extend: the `invert` pass reads its inverse
// functions from table "invert.inverses", and a plugin adds
// `("torch.sinh", "torch.asinh")` to it.
//
// All methods are thread-safe.
#ifndef FX_PLUGINS_REGISTRY_H_
#define FX_PLUGINS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/export.h"
#include "plugins/options.h"
#include "plugins/pass.h"
#include "plugins/pipeline_text.h"
#include "tracer/tracer.h"

namespace fx {

// Factories receive option values whose names were checked against the
// declared options.
using PassFactory = std::function<absl::StatusOr<std::unique_ptr<Pass>>(const OptionValues&)>;
using TracerExtensionFactory =
    std::function<absl::StatusOr<std::shared_ptr<TracerExtension>>(const OptionValues&)>;

// Where a registration came from.
struct FX_API PluginRecord {
  std::string name;     // the plugin's name (FxPluginInfo::name)
  std::string version;  // the plugin's version
  std::string path;     // the file it was loaded from ("" when built in)
};

struct FX_API ComponentInfo {
  std::string name;
  std::string description;  // one line
  std::vector<OptionSpec> options;
  PluginRecord plugin;
};

struct FX_API PassInfo : ComponentInfo {
  PassFactory factory;
};

struct FX_API TracerExtensionInfo : ComponentInfo {
  TracerExtensionFactory factory;
};

// What a plugin's registration callback receives. Registrations are staged
// here and committed by the loader.
class FX_API PluginRegistrar {
 public:
  explicit PluginRegistrar(PluginRecord plugin) : plugin_(std::move(plugin)) {}

  // A pass of class T (default-constructible; its options are its Option
  // members). The usual way to register a pass.
  template <typename T>
  void add_pass(std::string name, std::string description) {
    static_assert(std::is_base_of_v<Pass, T>, "add_pass<T>: T must derive from fx::Pass");
    add_pass(std::move(name), std::move(description), T().option_specs(),
             [](const OptionValues& values) -> absl::StatusOr<std::unique_ptr<Pass>> {
               auto pass = std::make_unique<T>();
               if (absl::Status s = pass->set_options(values); !s.ok()) return s;
               return pass;
             });
  }
  // A tracer extension of class T (default-constructible). When T also
  // derives from OptionSet, its Option members are its options.
  template <typename T>
  void add_tracer_extension(std::string name, std::string description) {
    static_assert(std::is_base_of_v<TracerExtension, T>,
                  "add_tracer_extension<T>: T must derive from fx::TracerExtension");
    std::vector<OptionSpec> specs;
    if constexpr (std::is_base_of_v<OptionSet, T>) specs = T().option_specs();
    add_tracer_extension(
        std::move(name), std::move(description), std::move(specs),
        [](const OptionValues& values) -> absl::StatusOr<std::shared_ptr<TracerExtension>> {
          auto extension = std::make_shared<T>();
          if constexpr (std::is_base_of_v<OptionSet, T>) {
            if (absl::Status s = extension->set_options(values); !s.ok()) return s;
          }
          return extension;
        });
  }

  // The general forms, for components made some other way.
  void add_pass(std::string name, std::string description, std::vector<OptionSpec> options,
                PassFactory factory);
  void add_tracer_extension(std::string name, std::string description,
                            std::vector<OptionSpec> options, TracerExtensionFactory factory);
  // Adds (key, value) to extension table `table`.
  void add_table_entry(std::string table, std::string key, std::string value);

  const PluginRecord& plugin() const { return plugin_; }

 private:
  friend class Registry;
  PluginRecord plugin_;
  std::vector<PassInfo> passes_;
  std::vector<TracerExtensionInfo> extensions_;
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> table_entries_;
};

class FX_API Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process-wide registry.
  static Registry& global();

  // Commits everything `registrar` staged. Fails, registering nothing, when a
  // pass or extension name is taken, naming both plugins; or when another file
  // already registered a plugin of the same name. Also refused, naming the
  // plugin, is what no pipeline could use or no listing could show: a plugin,
  // pass, extension or option name that is not a pipeline name
  // (is_pipeline_name), a pass named `fixpoint` (the pass manager's group), a
  // description or version that is not one line of printable text, an option
  // declared twice, an option whose default is not one of its choices, and a
  // table entry whose key the table already has (its value would be ignored).
  absl::Status commit(PluginRegistrar& registrar);

  // Makes the pass or tracer extension a pipeline element names, with its
  // options. Errors: unknown name (with the known names and the closest),
  // unknown or repeated option, a value the component refuses.
  absl::StatusOr<std::unique_ptr<Pass>> make_pass(const PipelineElement& element) const;
  absl::StatusOr<std::shared_ptr<TracerExtension>> make_tracer_extension(
      const PipelineElement& element) const;

  // nullptr when unknown.
  const PassInfo* find_pass(absl::string_view name) const;
  const TracerExtensionInfo* find_tracer_extension(absl::string_view name) const;
  // Sorted by name.
  std::vector<PassInfo> passes() const;
  std::vector<TracerExtensionInfo> tracer_extensions() const;
  // The entries of extension table `table`, in registration order.
  std::vector<std::pair<std::string, std::string>> table(absl::string_view table) const;
  // Plugins committed so far, in order.
  std::vector<PluginRecord> plugins() const;
  // The plugin loaded from `path` (canonical), if any.
  const PluginRecord* find_plugin_by_path(absl::string_view path) const;

  // Errors for names that are not registered: they list the known names and
  // suggest the closest one.
  absl::Status unknown_pass_error(absl::string_view name) const;
  absl::Status unknown_tracer_extension_error(absl::string_view name) const;

 private:
  mutable absl::Mutex mu_;
  // Node maps: pointers returned by find_* stay valid as plugins are added.
  absl::node_hash_map<std::string, PassInfo> passes_ ABSL_GUARDED_BY(mu_);
  absl::node_hash_map<std::string, TracerExtensionInfo> extensions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> table_entries_
      ABSL_GUARDED_BY(mu_);
  std::vector<PluginRecord> table_entry_plugins_ ABSL_GUARDED_BY(mu_);  // who added each entry
  std::vector<PluginRecord> plugins_ ABSL_GUARDED_BY(mu_);
};

}  // namespace fx

#endif  // FX_PLUGINS_REGISTRY_H_
