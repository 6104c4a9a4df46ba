// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_file.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "tools/archive_check.h"
#include "tools/graph_json.h"
#include "tracer/module_ref.h"

namespace fx {

using Json = nlohmann::ordered_json;

constexpr char kFormat[] = "fx-graph";

std::string graph_file_text(const GraphModule& gm) {
  Json graph = graph_to_json(gm.graph());
  Json out = {{"format", kFormat}, {"version", kGraphFileVersion}, {"class_name", gm.class_name()}};
  out["nodes"] = std::move(graph["nodes"]);
  out["meta"] = std::move(graph["meta"]);
  // Sorted, so that equal modules give equal files.
  std::map<std::string, Json> functions;
  for (const auto& [target, fns] : gm.functions()) {
    Json names = Json::array();
    for (const auto& fn : fns) names.push_back(fn.function_->qualname().qualifiedName());
    functions.emplace(target, std::move(names));
  }
  out["functions"] = Json::object();
  for (auto& [target, names] : functions) out["functions"][target] = std::move(names);
  std::map<std::string, c10::IValue> attributes(gm.own_attributes().begin(),
                                                gm.own_attributes().end());
  out["attributes"] = Json::object();
  for (const auto& [name, value] : attributes) {
    const std::vector<char> bytes = torch::jit::pickle_save(value);
    out["attributes"][name] = {
        {"pickle", absl::Base64Escape(absl::string_view(bytes.data(), bytes.size()))}};
  }
  return out.dump(2) + "\n";
}

namespace {

// Whether TorchScript function `python_name` is what a leaf call of `target`
// runs: the same function, or in the same module one that TorchScript picks
// for it (boolean dispatch: max_pool2d runs _max_pool2d or
// max_pool2d_with_indices).
bool names_the_function(const std::string& python_name, absl::string_view target) {
  if (python_name == target) return true;
  const size_t a = python_name.rfind('.');
  const size_t b = target.rfind('.');
  if (a == std::string::npos || b == absl::string_view::npos ||
      absl::string_view(python_name).substr(0, a) != target.substr(0, b)) {
    return false;
  }
  const absl::string_view name = absl::StripLeadingAsciiWhitespace(
      absl::string_view(python_name).substr(a + 1));
  absl::string_view bare = name;
  while (absl::ConsumePrefix(&bare, "_")) {
  }
  return absl::StartsWith(bare, target.substr(b + 1));
}

absl::Status bad(absl::string_view file, const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path_for_message(std::string(file)), ": ", where, ": ", what));
}

}  // namespace

absl::StatusOr<GraphModule> read_graph_file(absl::string_view text, torch::jit::Module model,
                                            absl::string_view file_name) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors say line and column; numbers beyond a double (1e400) too.
    return bad(file_name, "not JSON", escape_for_message(e.what()));
  }
  if (absl::Status s = check_json_nesting(json); !s.ok()) return bad(file_name, "the document", s.message());
  if (!json.is_object() || !json.contains("format") || json["format"] != kFormat) {
    return bad(file_name, "the document",
               "not a graph file (no \"format\": \"fx-graph\"; fxrun --emit=json writes them)");
  }
  if (!json.contains("version") || !json["version"].is_number_integer() ||
      json["version"].get<int64_t>() != kGraphFileVersion) {
    std::string version = json.contains("version") ? json["version"].dump() : "(none)";
    return bad(file_name, "version",
               absl::StrCat("version ", quote_for_message(version),
                            " is not the version this fxrun reads (", kGraphFileVersion,
                            "); write the file again with this fxrun"));
  }
  auto graph = graph_from_json(json);
  if (!graph.ok()) return bad(file_name, "graph", graph.status().message());
  std::string class_name = "GraphModule";
  if (json.contains("class_name")) {
    if (!json["class_name"].is_string()) return bad(file_name, "class_name", "expected a string");
    class_name = json["class_name"].get<std::string>();
    if (!is_python_identifier(class_name)) {
      return bad(file_name, "class_name",
                 absl::StrCat(quote_for_message(class_name), " is not a Python identifier"));
    }
  }
  GraphModule gm(model, *std::move(graph), class_name);

  if (json.contains("attributes")) {
    const Json& attributes = json["attributes"];
    if (!attributes.is_object()) return bad(file_name, "attributes", "expected an object");
    for (const auto& [name, entry] : attributes.items()) {
      const std::string where = absl::StrCat("attributes[", quote_for_message(name), "]");
      if (!is_python_identifier(name)) return bad(file_name, where, "the name is not a Python identifier");
      std::string bytes;
      if (!entry.is_object() || !entry.contains("pickle") || !entry["pickle"].is_string() ||
          !absl::Base64Unescape(entry["pickle"].get<std::string>(), &bytes)) {
        return bad(file_name, where, "expected {\"pickle\": base64 of torch.save's pickle}");
      }
      if (absl::Status s = check_archive_bytes(bytes); !s.ok()) {
        return bad(file_name, where, absl::StrCat("the pickle is refused: ", s.message()));
      }
      c10::IValue value;
      try {
        value = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
      } catch (const std::exception&) {
        return bad(file_name, where, "the pickle does not load");
      }
      if (absl::Status s = check_tensors_in_bounds(value); !s.ok()) {
        return bad(file_name, where, s.message());
      }
      if (absl::Status s = gm.add_attribute(name, value); !s.ok()) {
        return bad(file_name, where, s.message());
      }
    }
  }
  if (json.contains("functions")) {
    const Json& functions = json["functions"];
    if (!functions.is_object()) return bad(file_name, "functions", "expected an object");
    const auto unit = model._ivalue()->compilation_unit();
    for (const auto& [target, names] : functions.items()) {
      const std::string where = absl::StrCat("functions[", quote_for_message(target), "]");
      if (!names.is_array()) return bad(file_name, where, "expected an array of names");
      for (const Json& name : names) {
        if (!name.is_string()) return bad(file_name, where, "expected an array of names");
        torch::jit::Function* fn = nullptr;
        try {
          fn = unit->find_function(c10::QualifiedName(name.get<std::string>()));
        } catch (const std::exception&) {
          // not a qualified name: reported as missing
        }
        if (fn == nullptr) {
          return bad(file_name, where,
                     absl::StrCat("the model has no TorchScript function ",
                                  name.get<std::string>(),
                                  " (the graph was written for another model?)"));
        }
        if (!names_the_function(python_qualified_name(fn->qualname().qualifiedName()), target)) {
          return bad(file_name, where,
                     absl::StrCat("the model's function ", name.get<std::string>(),
                                  " is not the function ", target));
        }
        gm.add_function(target, torch::jit::StrongFunctionPtr(unit, fn));
      }
    }
  }
  if (absl::Status s = gm.lint(); !s.ok()) {
    return bad(file_name, "graph", absl::StrCat(s.message(), " (the graph was written for another model?)"));
  }
  return gm;
}

}  // namespace fx
