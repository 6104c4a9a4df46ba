// Copyright 2026 The FX for C++ Authors.
#include "exported_program/treespec.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "exported_program/schema_parser.h"

namespace fx {
namespace exported {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr int kMaxDepth = 100;
// Each level of the tree is two levels of JSON (the node, its children).
constexpr int kMaxTextNesting = 2 * kMaxDepth + 4;
// A context is a list of keys, or a name.
constexpr int kMaxContextNesting = 8;

absl::Status error_at(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// A dict's keys, from its context: strings or ints (what torch.export writes
// for the keys of a dict of inputs or outputs), each once.
absl::Status read_keys(const json& context, const std::string& path, std::vector<json>& keys) {
  for (size_t i = 0; i < context.size(); ++i) {
    const json& k = context[i];
    const bool integer = k.is_number_integer() &&
                         (!k.is_number_unsigned() || k.get<uint64_t>() <= uint64_t{INT64_MAX});
    if (!k.is_string() && !integer) {
      return error_at(absl::StrCat(path, "[", i, "]"),
                      absl::StrCat("a dict key that is ", escape_for_message(k.dump(), 40),
                                   "; the keys of a program's dicts are strings or ints"));
    }
    for (const json& earlier : keys) {
      if (earlier == k) {
        return error_at(absl::StrCat(path, "[", i, "]"),
                        absl::StrCat("dict key ", escape_for_message(k.dump(), 40), " appears twice"));
      }
    }
    keys.push_back(k);
  }
  return absl::OkStatus();
}

// `path`: where the node is in the spec's JSON (`[1].children_spec[0]`).
absl::StatusOr<TreeSpec> parse_node(const json& j, const std::string& path, int depth) {
  if (depth >= kMaxDepth) return error_at(path, absl::StrCat("the tree spec nests deeper than ", kMaxDepth, " levels"));
  if (!j.is_object() || !j.contains("type") || !j.contains("children_spec") ||
      !j.at("children_spec").is_array()) {
    return error_at(path, absl::StrCat("not a tree spec node: ", escape_for_message(j.dump(), 100)));
  }
  TreeSpec spec;
  const json& type = j.at("type");
  if (type.is_null()) {
    spec.kind = TreeSpec::Kind::kLeaf;
    return spec;
  }
  if (!type.is_string()) return error_at(path + ".type", "a tree spec type that is not a string");
  spec.type = type.get<std::string>();
  // The context is itself JSON text ("null", "[\"a\"]"), except a named
  // tuple's, which is its registered type name as it is ("mod.Out").
  const std::string context_path = path + ".context";
  const std::string raw_context =
      j.contains("context") && j.at("context").is_string() ? j.at("context").get<std::string>() : "null";
  json context;
  if (absl::Status s = schema_internal::check_json_nesting(raw_context, kMaxContextNesting); !s.ok()) {
    context = json(json::value_t::discarded);
  } else {
    context = json::parse(raw_context, nullptr, false);
  }
  const std::string& t = spec.type;
  if (t == "builtins.tuple") {
    spec.kind = TreeSpec::Kind::kTuple;
  } else if (t == "builtins.list" || t == "torch.fx.immutable_collections.immutable_list") {
    spec.kind = TreeSpec::Kind::kList;
  } else if (t == "builtins.dict" || t == "collections.OrderedDict" ||
             t == "torch.fx.immutable_collections.immutable_dict") {
    spec.kind = TreeSpec::Kind::kDict;
    if (context.is_discarded() || !context.is_array()) {
      return error_at(context_path, absl::StrCat(t, " without its keys (a JSON list of them)"));
    }
    if (absl::Status s = read_keys(context, context_path, spec.keys); !s.ok()) return s;
  } else if (t == "collections.namedtuple") {
    spec.kind = TreeSpec::Kind::kNamedTuple;
    spec.namedtuple_type = !context.is_discarded() && context.is_string() ? context.get<std::string>() : raw_context;
  } else if (t == "builtins.NoneType") {
    spec.kind = TreeSpec::Kind::kNone;
  } else {
    return error_at(path + ".type", absl::StrCat(
        "the program's inputs or outputs are a ", quote_for_message(t),
        ", a type registered with torch's pytree; FX for C++ reads tuples, lists, dicts, "
        "named tuples and None"));
  }
  const json& children = j.at("children_spec");
  for (size_t i = 0; i < children.size(); ++i) {
    auto c = parse_node(children[i], absl::StrCat(path, ".children_spec[", i, "]"), depth + 1);
    if (!c.ok()) return c.status();
    spec.children.push_back(std::move(*c));
  }
  if (spec.kind == TreeSpec::Kind::kDict && spec.keys.size() != spec.children.size()) {
    return error_at(path, absl::StrCat("a dict with ", spec.keys.size(), " keys and ", spec.children.size(),
                                       " values"));
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
  // Parsed again from a string of the program: the program's own bound on
  // nesting did not see inside it.
  if (absl::Status s = schema_internal::check_json_nesting(text, kMaxTextNesting); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the tree spec: ", s.message(), ", which no program's does"));
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array() || j.size() != 2 || !j[0].is_number_integer()) {
    return absl::InvalidArgumentError(absl::StrCat("not a serialised tree spec: ", escape_for_message(text, 100)));
  }
  if (!j[0].is_number_integer() || j[0].get<int64_t>() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("tree spec protocol ", escape_for_message(j[0].dump(), 40),
                                                   " is not the one FX for C++ reads (1)"));
  }
  return parse_node(j[1], "[1]", 0);
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
