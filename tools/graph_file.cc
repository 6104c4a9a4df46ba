// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_file.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "fx/archive_check.h"
#include "tools/graph_json.h"
#include "tools/torchscript/graph_file_code.h"
#include "tools/torchscript/saved_values.h"

namespace fx {

using Json = nlohmann::ordered_json;

constexpr char kFormat[] = "fx-graph";

namespace {

// One module of the file: the graph, its functions and attributes, and its
// graph submodules (split's stages), each such an object in turn.
Json module_to_json(const GraphModule& gm) {
  Json graph = graph_to_json(gm.graph());
  Json out = {{"class_name", gm.class_name()}};
  out["nodes"] = std::move(graph["nodes"]);
  out["meta"] = std::move(graph["meta"]);
  // Sorted, so that equal modules give equal files.
  out["functions"] = Json::object();
  for (auto& [target, names] : leaf_function_names(gm)) out["functions"][target] = std::move(names);
  std::map<std::string, c10::IValue> attributes(gm.own_attributes().begin(),
                                                gm.own_attributes().end());
  out["attributes"] = Json::object();
  for (const auto& [name, value] : attributes) {
    out["attributes"][name] = {{"pickle", absl::Base64Escape(pickle_value(value))}};
  }
  if (!gm.graph_submodules().empty()) {
    out["submodules"] = Json::object();
    for (const auto& [name, sub] : gm.graph_submodules()) {
      out["submodules"][name] = module_to_json(*sub);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> graph_file_text(const GraphModule& gm) {
  if (absl::Status s = gm.check_storable("a graph file", /*for_pytorch=*/false); !s.ok()) return s;
  Json out = {{"format", kFormat}, {"version", kGraphFileVersion}};
  out.update(module_to_json(gm));
  if (absl::Status s = check_utf8_strings(out); !s.ok()) return s;
  return out.dump(2) + "\n";
}

namespace {

// Whether two values are the same tensor's value: dtype, device, shape and
// elements (NaN equal to NaN).
bool same_tensor_value(const c10::IValue& a, const c10::IValue& b) {
  if (!a.isTensor() || !b.isTensor()) return false;
  const at::Tensor& x = a.toTensor();
  const at::Tensor& y = b.toTensor();
  if (!x.defined() || !y.defined()) return x.defined() == y.defined();
  return x.scalar_type() == y.scalar_type() && x.device() == y.device() &&
         x.sizes() == y.sizes() && x.layout() == c10::kStrided && y.layout() == c10::kStrided &&
         (at::equal(x, y) ||
          (x.is_floating_point() && at::allclose(x, y, /*rtol=*/0.0, /*atol=*/0.0, /*equal_nan=*/true)));
}

absl::Status bad(absl::string_view file, const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(path_for_message(std::string(file)), ": ", where, ": ", what));
}

absl::StatusOr<GraphModule> module_from_json(
    const Json& json, const std::shared_ptr<Module>& model,
    const std::shared_ptr<torch::jit::CompilationUnit>& unit, absl::string_view file_name,
    const std::string& in);

}  // namespace

absl::StatusOr<GraphModule> read_graph_file(absl::string_view text,
                                            std::shared_ptr<Module> model,
                                            absl::string_view file_name) {
  auto in_file = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_for_message(std::string(file_name)), ": ", s.message()));
  };
  if (absl::Status s = check_json_text_nesting(text); !s.ok()) return in_file(s);
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors say line and column; numbers beyond a double (1e400) too.
    return bad(file_name, "not JSON", escape_for_message(e.what()));
  }
  if (absl::Status s = check_json_nesting(json); !s.ok()) return in_file(s);
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
  // The model's TorchScript code (its root's class's compilation unit) holds
  // the functions and classes the file names; a model not read from
  // TorchScript has none.
  return module_from_json(json, model, model_code_unit(*model), file_name, "");
}

namespace {

absl::StatusOr<GraphModule> module_from_json(
    const Json& json, const std::shared_ptr<Module>& model,
    const std::shared_ptr<torch::jit::CompilationUnit>& unit, absl::string_view file_name,
    const std::string& in) {
  // `in` places what is reported inside a graph submodule (`submodules["submod_0"].`).
  auto bad = [&](absl::string_view file, const std::string& where, absl::string_view what) {
    return fx::bad(file, absl::StrCat(in, where), what);
  };
  auto graph = graph_from_json(json);
  if (!graph.ok()) return bad(file_name, "graph", graph.status().message());
  std::string class_name = "GraphModule";
  if (json.contains("class_name")) {
    if (!json["class_name"].is_string()) return bad(file_name, "class_name", "expected a string");
    class_name = json["class_name"].get<std::string>();
    if (!is_python_identifier(class_name) || is_python_keyword(class_name)) {
      return bad(file_name, "class_name",
                 absl::StrCat(quote_for_message(class_name),
                              " is not a Python identifier that is not a keyword"));
    }
  }
  for (const Node* n : (*graph)->nodes()) {
    std::string where;
    if (absl::Status s = check_node_type(*n, unit.get(), &where); !s.ok()) {
      return bad(file_name, absl::StrCat("node ", quote_for_message(n->name()), " ", where),
                 s.message());
    }
  }
  GraphModule gm(model, *std::move(graph), class_name);
  // The runtime finds functions called by name and NamedTuple classes there.
  if (unit != nullptr) set_model_code_unit(gm, unit);

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
      absl::StatusOr<c10::IValue> value = unpickle_value(bytes);
      if (!value.ok()) return bad(file_name, where, "the pickle does not load");
      if (absl::Status s = check_tensors_in_bounds(*value); !s.ok()) {
        return bad(file_name, where, s.message());
      }
      // The model may hold it already: torch.fx's lifted `_tensor_constant0`
      // of a GraphModule that was scripted whole (the model then is that
      // GraphModule). The same tensor is the same attribute; another is refused.
      if (model->find(name) != nullptr) {
        absl::StatusOr<c10::IValue> held = model->get_attr(name);
        if (held.ok() && same_tensor_value(*held, *value)) continue;
        return bad(file_name, where,
                   "the model has an attribute of this name with another value: rename the "
                   "graph's attribute (and its get_attr nodes)");
      }
      if (absl::Status s = gm.add_attribute(name, *value); !s.ok()) {
        return bad(file_name, where, s.message());
      }
    }
  }
  if (json.contains("functions")) {
    const Json& functions = json["functions"];
    if (!functions.is_object()) return bad(file_name, "functions", "expected an object");
    for (const auto& [target, names] : functions.items()) {
      const std::string where = absl::StrCat("functions[", quote_for_message(target), "]");
      if (!names.is_array()) return bad(file_name, where, "expected an array of names");
      for (const Json& name : names) {
        if (!name.is_string()) return bad(file_name, where, "expected an array of names");
        if (absl::Status s = add_leaf_function(gm, unit, target, name.get<std::string>()); !s.ok()) {
          return bad(file_name, where, s.message());
        }
      }
    }
  }
  if (json.contains("submodules")) {
    const Json& submodules = json["submodules"];
    if (!submodules.is_object()) return bad(file_name, "submodules", "expected an object");
    for (const auto& [name, entry] : submodules.items()) {
      const std::string where = absl::StrCat("submodules[", quote_for_message(name), "]");
      if (!entry.is_object()) return bad(file_name, where, "expected an object");
      auto sub = module_from_json(entry, model, unit, file_name, absl::StrCat(in, where, "."));
      if (!sub.ok()) return sub.status();
      if (absl::Status s =
              gm.add_graph_submodule(name, std::make_shared<GraphModule>(*std::move(sub)));
          !s.ok()) {
        return bad(file_name, where, s.message());
      }
    }
  }
  broadcast_list_arguments(gm);
  if (absl::Status s = gm.lint(); !s.ok()) {
    return bad(file_name, "graph", absl::StrCat(s.message(), " (the graph was written for another model?)"));
  }
  return gm;
}

}  // namespace

}  // namespace fx
