// Copyright 2026 The FX for C++ Authors.
//
// registry.h: the passes, tracer extensions and extension tables that plugins
// provide, by name.
//
// There is one Registry per process (Registry::global()), in the shared core
// library that the host and every plugin link, so what a plugin registers is
// what the host sees. Plugins register through a PluginRegistrar (see
// plugins/fx_plugin.h for the macro plugin authors use); the loader
// (plugin_loader.h) commits a plugin's registrations all at once, or none of
// them when a name is already taken.
//
// Extension tables are named lists of (key, value) strings that one plugin's
// passes read and any plugin may extend: the `invert` pass reads its inverse
// functions from table "invert.inverses", and a plugin adds
// `("torch.sinh", "torch.asinh")` to it.
//
// All methods are thread-safe.
#ifndef FX_CORE_REGISTRY_H_
#define FX_CORE_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/options.h"
#include "core/pass.h"

namespace fx {

class TracerExtension;  // tracer/tracer.h

using PassFactory = std::function<absl::StatusOr<std::unique_ptr<Pass>>(const Options&)>;
using TracerExtensionFactory =
    std::function<absl::StatusOr<std::shared_ptr<TracerExtension>>(const Options&)>;

// Where a registration came from.
struct PluginRecord {
  std::string name;     // the plugin's name (FxPluginInfo::name)
  std::string version;  // the plugin's version
  std::string path;     // the file it was loaded from ("" when built in)
};

struct ComponentInfo {
  std::string name;
  std::string description;  // one line
  std::vector<OptionSpec> options;
  PluginRecord plugin;
};

struct PassInfo : ComponentInfo {
  PassFactory factory;
};

struct TracerExtensionInfo : ComponentInfo {
  TracerExtensionFactory factory;
};

// What a plugin's registration callback receives. Registrations are staged
// here and committed by the loader.
class PluginRegistrar {
 public:
  explicit PluginRegistrar(PluginRecord plugin) : plugin_(std::move(plugin)) {}

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

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process-wide registry.
  static Registry& global();

  // Commits everything `registrar` staged. Fails, registering nothing, when a
  // pass or extension name is taken, naming both plugins; or when another file
  // already registered a plugin of the same name.
  absl::Status commit(PluginRegistrar& registrar);

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
  std::vector<PluginRecord> plugins_ ABSL_GUARDED_BY(mu_);
};

// The candidate closest to `name` by edit distance (empty when none is close).
std::string closest_name(absl::string_view name, const std::vector<std::string>& candidates);
// ` (did you mean 'closest'?)` for an error message, or "" when none is close.
std::string did_you_mean(absl::string_view name, const std::vector<std::string>& candidates);

}  // namespace fx

#endif  // FX_CORE_REGISTRY_H_
