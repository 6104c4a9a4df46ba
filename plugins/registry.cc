// Copyright 2026 The FX for C++ Authors.
#include "plugins/registry.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "plugins/plugin_guard.h"

namespace fx {

namespace {

// PassInfo and TracerExtensionInfo describe their entries the same way.
template <typename Info, typename Factory>
Info make_info(std::string name, std::string description, std::vector<OptionSpec> options,
               const PluginRecord& plugin, Factory factory) {
  Info info;
  info.name = std::move(name);
  info.description = std::move(description);
  info.options = std::move(options);
  info.plugin = plugin;
  info.factory = std::move(factory);
  return info;
}

}  // namespace

void PluginRegistrar::add_pass(std::string name, std::string description,
                               std::vector<OptionSpec> options, PassFactory factory) {
  passes_.push_back(make_info<PassInfo>(std::move(name), std::move(description),
                                        std::move(options), plugin_, std::move(factory)));
}

void PluginRegistrar::add_tracer_extension(std::string name, std::string description,
                                           std::vector<OptionSpec> options,
                                           TracerExtensionFactory factory) {
  extensions_.push_back(make_info<TracerExtensionInfo>(std::move(name), std::move(description),
                                                       std::move(options), plugin_,
                                                       std::move(factory)));
}

void PluginRegistrar::add_table_entry(std::string table, std::string key, std::string value) {
  table_entries_.emplace_back(std::move(table), std::make_pair(std::move(key), std::move(value)));
}

Registry& Registry::global() {
  static Registry* registry = new Registry();
  return *registry;
}

namespace {

bool is_one_line(absl::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// What no pipeline could name or no listing could show, for one pass or
// tracer extension; `kind` is "pass" or "tracer extension".
absl::Status check_component(const PluginRecord& plugin, absl::string_view kind,
                             const ComponentInfo& info) {
  auto refuse = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("plugin ", describe_plugin(plugin), " registers ",
                                                   kind, " ", quote_for_message(info.name), ": ",
                                                   what));
  };
  if (!is_pipeline_name(info.name)) {
    return refuse("a name of letters, digits, '_', '-' and '.' only is what a pipeline can name");
  }
  if (kind == "pass" && info.name == "fixpoint") {
    return refuse("'fixpoint' is the pass manager's group, fixpoint(...); give the pass another name");
  }
  if (!is_one_line(info.description)) return refuse("its description is not one line of printable text");
  absl::flat_hash_set<absl::string_view> names;
  for (const OptionSpec& o : info.options) {
    const std::string option = absl::StrCat("option ", quote_for_message(o.name));
    if (!is_pipeline_name(o.name)) {
      return refuse(absl::StrCat(option, ": a name of letters, digits, '_', '-' and '.' only is what "
                                         "a pipeline can set"));
    }
    if (!names.insert(o.name).second) return refuse(absl::StrCat(option, " is declared twice"));
    if (!is_one_line(o.description) || !is_one_line(o.default_value)) {
      return refuse(absl::StrCat(option, ": its description and default must be one line of "
                                         "printable text"));
    }
    // Options with choices list them as their type: "warn|fail".
    if (absl::StrContains(o.type, "|")) {
      const std::vector<std::string> choices = absl::StrSplit(o.type, '|');
      if (std::find(choices.begin(), choices.end(), o.default_value) == choices.end()) {
        return refuse(absl::StrCat(option, ": its default ", quote_for_message(o.default_value),
                                   " is not one of its choices (", o.type, ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Registry::commit(PluginRegistrar& registrar) {
  absl::MutexLock lock(&mu_);
  const PluginRecord& plugin = registrar.plugin_;
  if (!is_pipeline_name(plugin.name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin ", plugin.path.empty() ? std::string("(built in)") : path_for_message(plugin.path),
        " names itself ", quote_for_message(plugin.name),
        " (FxPluginInfo::name); a plugin's name is letters, digits, '_', '-' and '.', at least one"));
  }
  if (!is_one_line(plugin.version)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin ", describe_plugin(plugin), " has a version that is not one line of printable text"));
  }
  for (const PassInfo& p : registrar.passes_) {
    if (absl::Status s = check_component(plugin, "pass", p); !s.ok()) return s;
  }
  for (const TracerExtensionInfo& e : registrar.extensions_) {
    if (absl::Status s = check_component(plugin, "tracer extension", e); !s.ok()) return s;
  }
  // A table maps each key to one value: a second value would be ignored.
  for (size_t i = 0; i < registrar.table_entries_.size(); ++i) {
    const auto& [table, entry] = registrar.table_entries_[i];
    auto same_key = [&](const auto& other) {
      return other.first == table && other.second.first == entry.first;
    };
    const PluginRecord* owner = nullptr;
    for (size_t j = 0; j < table_entries_.size() && owner == nullptr; ++j) {
      if (same_key(table_entries_[j])) owner = &table_entry_plugins_[j];
    }
    for (size_t j = 0; j < i && owner == nullptr; ++j) {
      if (same_key(registrar.table_entries_[j])) owner = &plugin;
    }
    if (owner != nullptr) {
      return absl::AlreadyExistsError(absl::StrCat(
          "plugin ", describe_plugin(plugin), " adds key ", quote_for_message(entry.first),
          " to table ", quote_for_message(table), ", which plugin ", describe_plugin(*owner),
          " already added (a key has one value: the second would be ignored)"));
    }
  }
  for (const PluginRecord& p : plugins_) {
    if (p.name == plugin.name) {
      return absl::AlreadyExistsError(absl::StrCat(
          "plugin ", describe_plugin(plugin), " has the same name as plugin ", describe_plugin(p),
          ", which is already loaded; plugin names must be unique"));
    }
  }
  auto conflict = [&](absl::string_view kind, const std::string& name,
                      const PluginRecord& owner) {
    return absl::AlreadyExistsError(absl::StrCat(
        "plugin ", describe_plugin(plugin), " registers ", kind, " '", name,
        "', which plugin ", describe_plugin(owner), " already registered"));
  };
  // Check everything first: a plugin registers all or nothing.
  auto check = [&](absl::string_view kind, const auto& staged,
                   const auto& registered) -> absl::Status {
    absl::flat_hash_set<absl::string_view> seen;
    for (const auto& info : staged) {
      if (auto it = registered.find(info.name); it != registered.end()) {
        return conflict(kind, info.name, it->second.plugin);
      }
      if (!seen.insert(info.name).second) return conflict(kind, info.name, plugin);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check("pass", registrar.passes_, passes_); !s.ok()) return s;
  if (absl::Status s = check("tracer extension", registrar.extensions_, extensions_); !s.ok()) {
    return s;
  }
  for (PassInfo& p : registrar.passes_) passes_.emplace(p.name, std::move(p));
  for (TracerExtensionInfo& e : registrar.extensions_) extensions_.emplace(e.name, std::move(e));
  for (auto& entry : registrar.table_entries_) {
    table_entries_.push_back(std::move(entry));
    table_entry_plugins_.push_back(plugin);
  }
  registrar.passes_.clear();
  registrar.extensions_.clear();
  registrar.table_entries_.clear();
  plugins_.push_back(plugin);
  return absl::OkStatus();
}

const PassInfo* Registry::find_pass(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

const TracerExtensionInfo* Registry::find_tracer_extension(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = extensions_.find(name);
  return it == extensions_.end() ? nullptr : &it->second;
}

namespace {

// The entries of a name -> info map, sorted by name.
template <typename Info>
std::vector<Info> sorted_by_name(const absl::node_hash_map<std::string, Info>& infos) {
  std::vector<Info> out;
  out.reserve(infos.size());
  for (const auto& [name, info] : infos) out.push_back(info);
  std::sort(out.begin(), out.end(), [](const Info& a, const Info& b) { return a.name < b.name; });
  return out;
}

}  // namespace

std::vector<PassInfo> Registry::passes() const {
  absl::MutexLock lock(&mu_);
  return sorted_by_name(passes_);
}

std::vector<TracerExtensionInfo> Registry::tracer_extensions() const {
  absl::MutexLock lock(&mu_);
  return sorted_by_name(extensions_);
}

std::vector<std::pair<std::string, std::string>> Registry::table(absl::string_view table) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, entry] : table_entries_) {
    if (name == table) out.push_back(entry);
  }
  return out;
}

std::vector<PluginRecord> Registry::plugins() const {
  absl::MutexLock lock(&mu_);
  return plugins_;
}

const PluginRecord* Registry::find_plugin_by_path(absl::string_view path) const {
  absl::MutexLock lock(&mu_);
  for (const PluginRecord& p : plugins_) {
    if (!p.path.empty() && p.path == path) return &p;
  }
  return nullptr;
}

namespace {

// "unknown pass 'x' (did you mean 'y'?). Known passes: a, b".
template <typename Info>
absl::Status unknown_error(absl::string_view kind, absl::string_view kinds, absl::string_view name,
                           const std::vector<Info>& infos) {
  std::vector<std::string> known;
  for (const Info& info : infos) known.push_back(info.name);
  return absl::NotFoundError(absl::StrCat(
      "unknown ", kind, " ", quote_for_message(name), did_you_mean(name, known), ". Known ", kinds,
      ": ",
      known.empty() ? std::string("none (is a --plugin missing?)") : absl::StrJoin(known, ", ")));
}

}  // namespace

absl::Status Registry::unknown_pass_error(absl::string_view name) const {
  return unknown_error("pass", "passes", name, passes());
}

absl::Status Registry::unknown_tracer_extension_error(absl::string_view name) const {
  return unknown_error("tracer extension", "tracer extensions", name, tracer_extensions());
}

namespace {

// Checks the element's options, then calls the factory; errors name the
// component.
template <typename Info>
auto make_component(absl::string_view kind, const PipelineElement& element, const Info& info)
    -> decltype(info.factory(element.options)) {
  if (absl::Status s = check_option_names(kind, element, info.options); !s.ok()) return s;
  if (element.has_nested) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " '", element.name,
                                                   "' takes no nested pipeline in parentheses"));
  }
  // The factory is the plugin's code (the component's constructor runs in it).
  decltype(info.factory(element.options)) made = absl::UnknownError("not made");
  absl::Status called = call_plugin(info.plugin, absl::StrCat("making ", kind, " '", element.name, "'"),
                                    [&] {
                                      made = info.factory(element.options);
                                      return absl::OkStatus();
                                    });
  if (!called.ok()) return called;
  if (!made.ok()) {
    return absl::Status(made.status().code(),
                        absl::StrCat(kind, " '", element.name, "': ", made.status().message()));
  }
  return made;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Pass>> Registry::make_pass(const PipelineElement& element) const {
  const PassInfo* info = find_pass(element.name);
  if (info == nullptr) return unknown_pass_error(element.name);
  return make_component("pass", element, *info);
}

absl::StatusOr<std::shared_ptr<TracerExtension>> Registry::make_tracer_extension(
    const PipelineElement& element) const {
  const TracerExtensionInfo* info = find_tracer_extension(element.name);
  if (info == nullptr) return unknown_tracer_extension_error(element.name);
  auto made = make_component("tracer extension", element, *info);
  if (!made.ok()) return made.status();
  return guard_tracer_extension(*std::move(made), info->plugin, element.name);
}

}  // namespace fx
