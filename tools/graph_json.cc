// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/printer.h"

namespace fx {

using Json = nlohmann::ordered_json;

namespace {

// JSON has no inf or nan: those become {"float": "inf"} (Python's spelling).
Json float_to_json(double value) {
  if (!std::isfinite(value)) return Json{{"float", python_float_repr(value)}};
  return value;
}

// {"float": "inf"} back to a double; nullopt for any other JSON.
std::optional<double> non_finite_float(const Json& json) {
  if (!json.is_object() || json.size() != 1 || !json.contains("float") ||
      !json["float"].is_string()) {
    return std::nullopt;
  }
  const std::string& text = json["float"].get_ref<const std::string&>();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

absl::Status bad(const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// The JSON type of `json` for messages.
const char* json_kind(const Json& json) { return json.type_name(); }

using NodesByName = absl::flat_hash_map<std::string, Node*>;

// Arguments and metadata are read recursively: a document nested deeper than
// any graph needs is refused before (instead of exhausting the stack).
constexpr int kMaxNesting = 200;

}  // namespace

absl::Status check_json_nesting(const Json& document) {
  std::vector<std::pair<const Json*, int>> stack = {{&document, 0}};
  while (!stack.empty()) {
    auto [json, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxNesting) {
      return bad("the document", absl::StrCat("nested deeper than ", kMaxNesting,
                                              " arrays and objects; no graph needs that"));
    }
    if (json->is_structured()) {
      for (const Json& child : *json) stack.emplace_back(&child, depth + 1);
    }
  }
  return absl::OkStatus();
}

absl::Status check_json_text_nesting(absl::string_view text) {
  int depth = 0;
  int line = 1;
  size_t line_start = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        return bad(absl::StrCat("line ", line, ", column ", i - line_start + 1),
                   absl::StrCat("nested deeper than ", kMaxNesting,
                                " arrays and objects; no graph needs that"));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return absl::OkStatus();
}

namespace {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points beyond U+10FFFF), as JSON requires.
bool is_utf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1;
      code = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
      code = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (int k = 1; k <= extra; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      code = (code << 6) | (d & 0x3f);
    }
    if ((extra == 2 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) ||
        (extra == 3 && (code < 0x10000 || code > 0x10ffff))) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

absl::Status check_utf8_strings(const Json& document) {
  std::vector<std::pair<const Json*, std::string>> work = {{&document, ""}};
  auto refuse = [](const std::string& where, absl::string_view text) {
    return bad(where.empty() ? "the document" : where,
               absl::StrCat(quote_for_message(text),
                            " is not UTF-8 text, which is all JSON can hold; give UTF-8 text (or "
                            "--print, which shows any bytes)"));
  };
  while (!work.empty()) {
    auto [json, where] = std::move(work.back());
    work.pop_back();
    if (json->is_string()) {
      if (!is_utf8(json->get_ref<const std::string&>())) return refuse(where, json->get_ref<const std::string&>());
    } else if (json->is_array()) {
      for (size_t i = 0; i < json->size(); ++i) work.emplace_back(&(*json)[i], absl::StrCat(where, "[", i, "]"));
    } else if (json->is_object()) {
      for (auto it = json->begin(); it != json->end(); ++it) {
        const std::string at = where.empty() ? it.key() : absl::StrCat(where, ".", it.key());
        if (!is_utf8(it.key())) return refuse(at, it.key());
        work.emplace_back(&it.value(), at);
      }
    }
  }
  return absl::OkStatus();
}

namespace {

absl::StatusOr<Argument> argument_from_json(const Json& json, const NodesByName& nodes,
                                            const std::string& where) {
  if (json.is_null()) return Argument();
  if (json.is_boolean()) return Argument(json.get<bool>());
  if (json.is_number_unsigned() && json.get<uint64_t>() > uint64_t{INT64_MAX}) {
    return bad(where, absl::StrCat(json.dump(), " is beyond a 64-bit signed integer"));
  }
  if (json.is_number_integer()) return Argument(json.get<int64_t>());
  if (json.is_number_float()) return Argument(json.get<double>());
  if (json.is_string()) return Argument(json.get<std::string>());
  auto elements = [&](const Json& items, const std::string& at)
      -> absl::StatusOr<std::vector<Argument>> {
    if (!items.is_array()) return bad(at, absl::StrCat("expected an array, found ", json_kind(items)));
    std::vector<Argument> out;
    for (size_t i = 0; i < items.size(); ++i) {
      auto a = argument_from_json(items[i], nodes, absl::StrCat(at, "[", i, "]"));
      if (!a.ok()) return a.status();
      out.push_back(*std::move(a));
    }
    return out;
  };
  if (json.is_array()) {
    auto items = elements(json, where);
    if (!items.ok()) return items.status();
    return Argument::List(*std::move(items));
  }
  if (!json.is_object() || json.size() != 1) {
    return bad(where, "an argument is null, a boolean, a number, a string, an array or an object "
                      "with one key (node, tuple, named_tuple, dict, float, dtype, device, "
                      "layout, memory_format)");
  }
  if (auto f = non_finite_float(json)) return Argument(*f);
  // (Not a structured binding of `*json.items().begin()`: that binds to a
  // proxy that dies at the end of the statement.)
  const auto first = json.begin();
  const std::string key = first.key();
  const Json& value = first.value();
  const std::string at = absl::StrCat(where, ".", key);
  auto string_value = [&]() -> absl::StatusOr<std::string> {
    if (!value.is_string()) return bad(at, absl::StrCat("expected a string, found ", json_kind(value)));
    return value.get<std::string>();
  };
  if (key == "node") {
    auto name = string_value();
    if (!name.ok()) return name.status();
    auto it = nodes.find(*name);
    if (it == nodes.end()) {
      return bad(at, absl::StrCat("node ", quote_for_message(*name), " is not defined before it"));
    }
    return Argument(it->second);
  }
  if (key == "tuple") {
    auto items = elements(value, at);
    if (!items.ok()) return items.status();
    return Argument::Tuple(*std::move(items));
  }
  if (key == "named_tuple") {
    // {"class": "torchvision.models.googlenet.GoogLeNetOutputs", "fields": [...], "items": [...]}
    if (!value.is_object() || value.size() != 3 || !value.contains("class") ||
        !value.contains("fields") || !value.contains("items")) {
      return bad(at, "expected an object with keys class, fields and items");
    }
    const Json& type_name = value["class"];
    const Json& fields = value["fields"];
    if (!type_name.is_string() || type_name.get_ref<const std::string&>().empty()) {
      return bad(at + ".class", "expected the NamedTuple's class, a non-empty string");
    }
    auto items = elements(value["items"], at + ".items");
    if (!items.ok()) return items.status();
    if (!fields.is_array() || fields.size() != items->size() ||
        !std::all_of(fields.begin(), fields.end(), [](const Json& f) { return f.is_string(); })) {
      return bad(at + ".fields", "expected one field name (a string) per item");
    }
    return Argument::NamedTuple(type_name.get<std::string>(),
                                fields.get<std::vector<std::string>>(), *std::move(items));
  }
  if (key == "dict") {
    if (!value.is_object()) return bad(at, absl::StrCat("expected an object, found ", json_kind(value)));
    Kwargs items;
    for (const auto& [k, v] : value.items()) {
      auto a = argument_from_json(v, nodes, absl::StrCat(at, "[", quote_for_message(k), "]"));
      if (!a.ok()) return a.status();
      items.emplace_back(k, *std::move(a));
    }
    return Argument::Dict(std::move(items));
  }
  if (key == "slice" || key == "ellipsis") {
    // What torch.fx records for x[:, 0] and x[..., 1] (tools/fx_graph_file.py
    // writes them): a graph's arguments have no slice or Ellipsis yet.
    return bad(at, absl::StrCat("a Python ", key == "slice" ? "slice (x[a:b])" : "Ellipsis (x[...])",
                                " is not a value a graph holds yet; index with calls instead "
                                "(x.select(dim, i), x.narrow(dim, start, length), "
                                "torch.index_select), or trace the model with fxrun"));
  }
  if (key != "dtype" && key != "layout" && key != "memory_format" && key != "device") {
    return bad(where, absl::StrCat("unknown argument kind ", quote_for_message(key)));
  }
  auto text = string_value();
  if (!text.ok()) return text.status();
  if (key == "dtype") {
    if (auto dtype = dtype_from_python_name(*text)) return Argument(*dtype);
  } else if (key == "layout") {
    if (auto layout = layout_from_python_name(*text)) return Argument(*layout);
  } else if (key == "memory_format") {
    if (auto format = memory_format_from_python_name(*text)) return Argument(*format);
  } else if (key == "device") {
    try {
      return Argument(c10::Device(*text));
    } catch (const std::exception&) {
      // reported below
    }
  }
  return bad(at, absl::StrCat(quote_for_message(*text), " is not a ", key));
}

}  // namespace

Json argument_to_json(const Argument& arg) {
  switch (arg.kind()) {
    case Argument::Kind::kNone:
      return nullptr;
    case Argument::Kind::kBool:
      return arg.to_bool();
    case Argument::Kind::kInt:
      return arg.to_int();
    case Argument::Kind::kDouble:
      return float_to_json(arg.to_double());
    case Argument::Kind::kString:
      return arg.to_string();
    case Argument::Kind::kNode:
      return Json{{"node", arg.to_node()->name()}};
    case Argument::Kind::kList:
    case Argument::Kind::kTuple: {
      Json items = Json::array();
      for (const Argument& a : arg.elements()) items.push_back(argument_to_json(a));
      if (arg.is_list()) return items;
      if (arg.is_named_tuple()) {
        return Json{{"named_tuple", Json{{"class", arg.tuple_type_name()},
                                         {"fields", arg.tuple_fields()},
                                         {"items", std::move(items)}}}};
      }
      return Json{{"tuple", std::move(items)}};
    }
    case Argument::Kind::kDict: {
      Json items = Json::object();
      for (const auto& [k, v] : arg.dict_items()) items[k] = argument_to_json(v);
      return Json{{"dict", std::move(items)}};
    }
    case Argument::Kind::kDtype:
      return Json{{"dtype", python_dtype_name(arg.to_dtype())}};
    case Argument::Kind::kDevice:
      return Json{{"device", arg.to_device().str()}};
    case Argument::Kind::kLayout:
      return Json{{"layout", python_layout_name(arg.to_layout())}};
    case Argument::Kind::kMemoryFormat:
      return Json{{"memory_format", python_memory_format_name(arg.to_memory_format())}};
  }
  return nullptr;
}

Json meta_to_json(const MetaValue& value) {
  switch (value.kind()) {
    case MetaValue::Kind::kNone:
      return nullptr;
    case MetaValue::Kind::kBool:
      return value.to_bool();
    case MetaValue::Kind::kInt:
      return value.to_int();
    case MetaValue::Kind::kDouble:
      return float_to_json(value.to_double());
    case MetaValue::Kind::kString:
      return value.to_string();
    case MetaValue::Kind::kList: {
      Json items = Json::array();
      for (const MetaValue& v : value.to_list()) items.push_back(meta_to_json(v));
      return items;
    }
    case MetaValue::Kind::kMap:
      return meta_to_json(value.to_map());
  }
  return nullptr;
}

Json meta_to_json(const Meta& meta) {
  Json out = Json::object();
  for (const auto& [key, value] : meta) out[key] = meta_to_json(value);
  return out;
}

Json graph_to_json(const Graph& graph) {
  Json nodes = Json::array();
  for (const Node* n : graph.nodes()) {
    Json args = Json::array();
    for (const Argument& a : n->args()) args.push_back(argument_to_json(a));
    Json kwargs = Json::object();
    for (const auto& [k, v] : n->kwargs()) kwargs[k] = argument_to_json(v);
    // In graph order (the order uses were added is an accident of the passes).
    std::vector<const Node*> user_nodes(n->users().begin(), n->users().end());
    std::sort(user_nodes.begin(), user_nodes.end(),
              [](const Node* a, const Node* b) { return a->comes_before(*b); });
    Json users = Json::array();
    for (const Node* u : user_nodes) users.push_back(u->name());
    Json node = {{"name", n->name()},    {"op", std::string(op_name(n->op()))},
                 {"target", n->target()}, {"args", std::move(args)},
                 {"kwargs", std::move(kwargs)}, {"users", std::move(users)},
                 {"meta", meta_to_json(n->meta())}};
    if (!n->type().empty()) node["type"] = n->type();
    if (n->op() != Op::kPlaceholder && n->op() != Op::kOutput && n->is_impure()) {
      node["impure"] = true;
    }
    nodes.push_back(std::move(node));
  }
  return Json{{"nodes", std::move(nodes)}, {"meta", meta_to_json(graph.meta())}};
}

absl::StatusOr<MetaValue> meta_value_from_json(const Json& json, const std::string& where) {
  if (json.is_null()) return MetaValue();
  if (json.is_boolean()) return MetaValue(json.get<bool>());
  if (json.is_number_unsigned() && json.get<uint64_t>() > uint64_t{INT64_MAX}) {
    return bad(where, absl::StrCat(json.dump(), " is beyond a 64-bit signed integer"));
  }
  if (json.is_number_integer()) return MetaValue(json.get<int64_t>());
  if (json.is_number_float()) return MetaValue(json.get<double>());
  if (json.is_string()) return MetaValue(json.get<std::string>());
  if (auto f = non_finite_float(json)) return MetaValue(*f);
  if (json.is_array()) {
    MetaValue::List items;
    for (size_t i = 0; i < json.size(); ++i) {
      auto v = meta_value_from_json(json[i], absl::StrCat(where, "[", i, "]"));
      if (!v.ok()) return v.status();
      items.push_back(*std::move(v));
    }
    return MetaValue(std::move(items));
  }
  auto map = meta_from_json(json, where);
  if (!map.ok()) return map.status();
  return MetaValue(*std::move(map));
}

absl::StatusOr<Meta> meta_from_json(const Json& json, const std::string& where) {
  if (!json.is_object()) return bad(where, absl::StrCat("expected an object, found ", json_kind(json)));
  Meta meta;
  for (const auto& [key, value] : json.items()) {
    auto v = meta_value_from_json(value, absl::StrCat(where, ".", key));
    if (!v.ok()) return v.status();
    meta.set(key, *std::move(v));
  }
  return meta;
}

absl::StatusOr<std::unique_ptr<Graph>> graph_from_json(const Json& json) {
  if (!json.is_object()) return bad("the document", "expected an object with \"nodes\"");
  if (absl::Status s = check_json_nesting(json); !s.ok()) return s;
  if (!json.contains("nodes") || !json["nodes"].is_array()) {
    return bad("the document", "expected an array \"nodes\"");
  }
  auto graph = std::make_unique<Graph>();
  NodesByName by_name;
  const Json& nodes = json["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Json& entry = nodes[i];
    std::string where = absl::StrCat("nodes[", i, "]");
    if (!entry.is_object()) return bad(where, absl::StrCat("expected an object, found ", json_kind(entry)));
    for (const char* field : {"name", "op", "target"}) {
      if (!entry.contains(field) || !entry[field].is_string()) {
        return bad(where, absl::StrCat("expected a string \"", field, "\""));
      }
    }
    const std::string name = entry["name"].get<std::string>();
    where = absl::StrCat(where, " (", quote_for_message(name), ")");
    if (name == "self") {
      return bad(where, "'self' names the module itself in printed code (def forward(self, ...)); "
                        "give the node another name");
    }
    if (by_name.contains(name)) return bad(where, "a second node of this name");
    auto op = parse_op(entry["op"].get<std::string>());
    if (!op.ok()) return bad(where + ".op", op.status().message());
    Arguments args;
    if (entry.contains("args")) {
      auto list = argument_from_json(entry["args"], by_name, where + ".args");
      if (!list.ok()) return list.status();
      if (!list->is_list()) return bad(where + ".args", "expected an array");
      args = list->elements();
    }
    Kwargs kwargs;
    if (entry.contains("kwargs")) {
      auto dict = argument_from_json(Json{{"dict", entry["kwargs"]}}, by_name, where + ".kwargs");
      if (!dict.ok()) return dict.status();
      kwargs = dict->dict_items();
    }
    std::string type;
    if (entry.contains("type")) {
      if (!entry["type"].is_string()) return bad(where + ".type", "expected a string");
      type = entry["type"].get<std::string>();
    }
    if (*op == Op::kOutput && i + 1 != nodes.size()) return bad(where, "the output node is not the last node");
    std::string target = entry["target"].get<std::string>();
    // torch 1.x's torch.fx names Python's operators by their module's
    // qualified name, `_operator.getitem` (torch.fx.node._get_qualified_name):
    // the same function as `operator.getitem`, which every part of fxrun knows.
    if (*op == Op::kCallFunction && absl::StartsWith(target, "_operator.")) {
      target = target.substr(1);
    }
    Node* node = graph->create_node(*op, target, std::move(args), std::move(kwargs), name, type);
    if (node->name() != name) {
      return bad(where, absl::StrCat(quote_for_message(name), " is not a valid node name (a Python "
                                                             "identifier that is not a keyword)"));
    }
    if (entry.contains("meta")) {
      auto meta = meta_from_json(entry["meta"], where + ".meta");
      if (!meta.ok()) return meta.status();
      node->meta() = *std::move(meta);
    }
    if (entry.contains("impure")) {
      if (!entry["impure"].is_boolean()) return bad(where + ".impure", "expected true or false");
      if (entry["impure"].get<bool>()) node->set_impure(true);
    }
    by_name.emplace(name, node);
  }
  if (json.contains("meta")) {
    auto meta = meta_from_json(json["meta"], "meta");
    if (!meta.ok()) return meta.status();
    graph->meta() = *std::move(meta);
  }
  if (absl::Status s = graph->lint(); !s.ok()) return bad("the graph", s.message());
  return graph;
}

}  // namespace fx
