// Copyright 2026 The FX for C++ Authors.
#include "exported_program/treespec.h"

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace exported {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr int kMaxDepth = 100;

absl::StatusOr<TreeSpec> parse_node(const json& j, int depth) {
  if (depth > kMaxDepth) return absl::InvalidArgumentError("the tree spec is nested too deeply");
  if (!j.is_object() || !j.contains("type") || !j.contains("children_spec") ||
      !j.at("children_spec").is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("not a tree spec node: ", escape_for_message(j.dump(), 100)));
  }
  TreeSpec spec;
  const json& type = j.at("type");
  if (type.is_null()) {
    spec.kind = TreeSpec::Kind::kLeaf;
    return spec;
  }
  if (!type.is_string()) return absl::InvalidArgumentError("a tree spec type that is not a string");
  spec.type = type.get<std::string>();
  // The context is itself JSON text ("null", "[\"a\"]"), except a named
  // tuple's, which is its registered type name as it is ("mod.Out").
  const std::string raw_context =
      j.contains("context") && j.at("context").is_string() ? j.at("context").get<std::string>() : "null";
  json context = json::parse(raw_context, nullptr, false);
  const std::string& t = spec.type;
  if (t == "builtins.tuple") {
    spec.kind = TreeSpec::Kind::kTuple;
  } else if (t == "builtins.list" || t == "torch.fx.immutable_collections.immutable_list") {
    spec.kind = TreeSpec::Kind::kList;
  } else if (t == "builtins.dict" || t == "collections.OrderedDict" ||
             t == "torch.fx.immutable_collections.immutable_dict") {
    spec.kind = TreeSpec::Kind::kDict;
    if (context.is_discarded() || !context.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(t, " in a tree spec without its keys"));
    }
    for (const json& k : context) spec.keys.push_back(k);
  } else if (t == "collections.namedtuple") {
    spec.kind = TreeSpec::Kind::kNamedTuple;
    spec.namedtuple_type = !context.is_discarded() && context.is_string() ? context.get<std::string>() : raw_context;
  } else if (t == "builtins.NoneType") {
    spec.kind = TreeSpec::Kind::kNone;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program's inputs or outputs are a ", quote_for_message(t),
        ", a type registered with torch's pytree; FX for C++ reads tuples, lists, dicts, "
        "named tuples and None"));
  }
  for (const json& child : j.at("children_spec")) {
    auto c = parse_node(child, depth + 1);
    if (!c.ok()) return c.status();
    spec.children.push_back(std::move(*c));
  }
  if (spec.kind == TreeSpec::Kind::kDict && spec.keys.size() != spec.children.size()) {
    return absl::InvalidArgumentError("a dict in a tree spec with more or fewer keys than values");
  }
  return spec;
}

ojson to_json(const TreeSpec& spec) {
  ojson j = ojson::object();
  if (spec.kind == TreeSpec::Kind::kLeaf) {
    j["type"] = nullptr;
    j["context"] = nullptr;
    j["children_spec"] = ojson::array();
    return j;
  }
  j["type"] = spec.type;
  switch (spec.kind) {
    case TreeSpec::Kind::kDict: {
      ojson keys = ojson::array();
      for (const json& k : spec.keys) keys.push_back(ojson::parse(k.dump()));
      j["context"] = keys.dump();
      break;
    }
    case TreeSpec::Kind::kNamedTuple:
      j["context"] = spec.namedtuple_type;
      break;
    default:
      j["context"] = "null";
      break;
  }
  ojson children = ojson::array();
  for (const TreeSpec& c : spec.children) children.push_back(to_json(c));
  j["children_spec"] = std::move(children);
  return j;
}

}  // namespace

size_t TreeSpec::num_leaves() const {
  if (kind == Kind::kLeaf) return 1;
  size_t n = 0;
  for (const TreeSpec& c : children) n += c.num_leaves();
  return n;
}

absl::StatusOr<TreeSpec> parse_treespec(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array() || j.size() != 2 || !j[0].is_number_integer()) {
    return absl::InvalidArgumentError(absl::StrCat("not a serialised tree spec: ", escape_for_message(text, 100)));
  }
  if (j[0].get<int>() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("tree spec protocol ", j[0].get<int>(),
                                                   " is not the one FX for C++ reads (1)"));
  }
  return parse_node(j[1], 0);
}

std::string to_string(const TreeSpec& spec) {
  ojson j = ojson::array();
  j.push_back(1);
  j.push_back(to_json(spec));
  return j.dump();
}

TreeSpec leaf_spec() { return TreeSpec(); }

TreeSpec tuple_spec(std::vector<TreeSpec> children) {
  TreeSpec spec;
  spec.kind = TreeSpec::Kind::kTuple;
  spec.type = "builtins.tuple";
  spec.children = std::move(children);
  return spec;
}

}  // namespace exported
}  // namespace fx
