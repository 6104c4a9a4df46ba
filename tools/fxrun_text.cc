// Copyright 2026 The FX for C++ Authors.
#include "tools/fxrun_text.h"

#include <algorithm>

#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "plugins/registry.h"

namespace fx {

void list_plugins(std::ostream& out) {
  const Registry& registry = Registry::global();
  // One entry: name, description, plugin, then its options one per line.
  auto describe = [&out](const ComponentInfo& c) {
    out << "  " << c.name << "  " << c.description << "  [plugin " << c.plugin.name << "]";
    for (const OptionSpec& o : c.options) {
      out << "\n      " << o.name << "=" << (o.default_value.empty() ? "..." : o.default_value)
          << "  " << o.description << " (" << o.type << ")";
    }
    out << "\n";
  };
  out << "Plugins:\n";
  for (const PluginRecord& p : registry.plugins()) {
    out << "  " << p.name << " " << p.version << "  " << p.path << "\n";
  }
  out << "\nTracer extensions (--tracer=NAME{option=value ...},...):\n";
  for (const TracerExtensionInfo& e : registry.tracer_extensions()) describe(e);
  out << "\nPasses (--passes=NAME{option=value ...},...):\n";
  for (const PassInfo& p : registry.passes()) describe(p);
}

std::vector<std::string> meta_columns(const Graph& graph) {
  std::vector<std::string> keys;
  bool tensor_meta = false;
  for (const Node* n : graph.nodes()) {
    for (const auto& [key, value] : n->meta()) {
      if (key == kTensorMetaKey) {
        tensor_meta = true;
      } else if (!absl::StartsWith(key, "_") &&
                 std::find(keys.begin(), keys.end(), key) == keys.end()) {
        keys.push_back(key);
      }
    }
  }
  if (tensor_meta) {
    for (const char* field : {"shape", "dtype"}) {
      keys.push_back(absl::StrCat(kTensorMetaKey, ".", field));
    }
  }
  return keys;
}

std::string render(const GraphModule& gm, const std::string& format) {
  std::string out;
  if (format == "graph") out = format_graph(gm.graph()) + "\n";
  if (format == "tabular") out = format_tabular(gm.graph(), meta_columns(gm.graph())) + "\n";
  if (format == "code") out = gm.code();
  if (out.empty()) return out;
  // Graph submodules (split's stages) follow the graph that calls them.
  for (const auto& [name, sub] : gm.graph_submodules()) {
    absl::StrAppend(&out, "\n# ", name, " (called by the graph above):\n", render(*sub, format));
  }
  return out;
}

// --help: every fxrun flag with its default, spelled as documented; exit 0.
void print_help(std::ostream& out) {
  out << "fxrun: trace a TorchScript model or read a torch.export program, run passes over it, "
         "print, emit or save the graph.\n\n"
               "  fxrun [--model=M.pt|M.pt2] [--tracer=LIST] [--passes=PIPELINE] [--plugin=LIB.so]...\n\n"
               "Flags (dashes and underscores are interchangeable):\n";
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), "fxrun_flags.cc")) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  for (const absl::CommandLineFlag* flag : flags) {
    out << "  --" << absl::StrReplaceAll(flag->Name(), {{"_", "-"}}) << "  " << flag->Help();
    if (!flag->DefaultValue().empty()) out << " (default: " << flag->DefaultValue() << ")";
    out << "\n";
  }
}

}  // namespace fx
