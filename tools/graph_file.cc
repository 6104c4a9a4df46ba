// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_file.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/mobile/type_parser.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/well_known.h"
#include "fx/archive_check.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"
#include "tools/graph_json.h"

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
  std::map<std::string, Json> functions;
  for (const auto& [target, fns] : script_functions_by_target(gm)) {
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

// The Python spelling of a type the tracer writes (python_annotation in the
// tracer), as TorchScript's type parser spells it; other names as they are.
std::string torchscript_atom(absl::string_view python) {
  if (python == "torch.Tensor") return "Tensor";
  if (python == "torch.device") return "Device";
  if (python == "None") return "NoneType";
  if (absl::ConsumePrefix(&python, "typing.")) return std::string(python);
  return std::string(python);
}

// `type`, a type annotation (dotted names, with brackets and commas, nested
// at most kMaxTypeNesting deep), as TorchScript's type parser spells it; an
// error for anything else. Checked without recursion: libtorch's type parser
// recurses on brackets.
constexpr int kMaxTypeNesting = 32;

absl::StatusOr<std::string> annotation_as_torchscript(absl::string_view type) {
  std::string torchscript;
  int depth = 0;
  bool expect_name = true;  // after '[' or ',', and at the start
  size_t i = 0;
  auto not_annotation = [&]() {
    return absl::InvalidArgumentError(absl::StrCat(
        quote_for_message(type), " is not a type annotation (names such as torch.Tensor, "
                                 "typing.Optional[int], with brackets and commas, nested at most ",
        kMaxTypeNesting, " deep)"));
  };
  while (i < type.size()) {
    const char c = type[i];
    if (c == ' ') {
      ++i;
    } else if (expect_name) {
      size_t end = i;
      while (end < type.size() && (absl::ascii_isalnum(type[end]) || type[end] == '_' || type[end] == '.')) ++end;
      const absl::string_view name = type.substr(i, end - i);
      for (absl::string_view atom : absl::StrSplit(name, '.')) {
        if (!is_python_identifier(atom)) return not_annotation();
      }
      torchscript += torchscript_atom(name);
      expect_name = false;
      i = end;
    } else if (c == '[') {
      if (++depth > kMaxTypeNesting) return not_annotation();
      torchscript += c;
      expect_name = true;
      ++i;
    } else if (c == ',' && depth > 0) {
      torchscript += ", ";
      expect_name = true;
      ++i;
    } else if (c == ']' && depth > 0) {
      --depth;
      torchscript += c;
      ++i;
    } else {
      return not_annotation();
    }
  }
  if (depth != 0 || expect_name) return not_annotation();
  return torchscript;
}

// A node's type is pasted into printed code and exported source as it is
// written, so it must be a type annotation of types TorchScript knows; a
// placeholder's must be its argument's TorchScript type (meta
// _torchscript_type, itself an annotation that libtorch parses when the
// interpreter checks inputs against it).
absl::Status check_node_type(const Node& n, const torch::jit::CompilationUnit* unit,
                             std::string* where) {
  const MetaValue* declared = n.meta().find(kTorchScriptTypeKey);
  c10::TypePtr expected;
  if (declared != nullptr && declared->is_string()) {
    *where = absl::StrCat("meta ", kTorchScriptTypeKey);
    auto spelled = annotation_as_torchscript(declared->to_string());
    if (!spelled.ok()) return spelled.status();
    try {
      expected = c10::parseType(*spelled);
    } catch (const std::exception&) {
      // A type the interpreter does not check either (a class of the model).
    }
  }
  *where = "type";
  const std::string& type = n.type();
  if (type.empty()) return absl::OkStatus();
  auto torchscript = annotation_as_torchscript(type);
  if (!torchscript.ok()) return torchscript.status();
  c10::TypePtr parsed;
  try {
    parsed = c10::parseType(*torchscript);
  } catch (const std::exception&) {
    // A class of the model (a NamedTuple): its qualified name.
    if (unit != nullptr && unit->get_type(c10::QualifiedName(*torchscript)) != nullptr) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat(quote_for_message(type), " names no type TorchScript knows"));
  }
  if (n.op() == Op::kPlaceholder && expected != nullptr && *parsed != *expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        quote_for_message(type), " is not the type of forward's argument ",
        quote_for_message(n.target()), " (", quote_for_message(declared->to_string()),
        " in its meta _torchscript_type)"));
  }
  return absl::OkStatus();
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
  const TorchScriptClass* code = torchscript_class(*model);
  return module_from_json(json, model, code != nullptr ? code->unit() : nullptr, file_name, "");
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
  if (unit != nullptr) set_script_unit(gm, unit);

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
    for (const auto& [target, names] : functions.items()) {
      const std::string where = absl::StrCat("functions[", quote_for_message(target), "]");
      if (!names.is_array()) return bad(file_name, where, "expected an array of names");
      for (const Json& name : names) {
        if (!name.is_string()) return bad(file_name, where, "expected an array of names");
        torch::jit::Function* fn = nullptr;
        try {
          // (A model not read from TorchScript has no unit, and no functions.)
          if (unit != nullptr) {
            fn = unit->find_function(c10::QualifiedName(name.get<std::string>()));
          }
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
        add_script_function(gm, target, torch::jit::StrongFunctionPtr(unit, fn));
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
  if (absl::Status s = gm.lint(); !s.ok()) {
    return bad(file_name, "graph", absl::StrCat(s.message(), " (the graph was written for another model?)"));
  }
  return gm;
}

}  // namespace

}  // namespace fx
