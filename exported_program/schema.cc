// Copyright 2026 The FX for C++ Authors.
#include "exported_program/schema.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"

namespace fx {
namespace exported {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// Thrown inside this file only; parse_program turns it into a Status.
struct SchemaError {
  std::string path;
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw SchemaError{path, message};
}

const char* json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "something else";
  }
}

class Parser {
 public:
  Parser(std::vector<std::string>* warnings, bool newer_minor)
      : warnings_(warnings), newer_minor_(newer_minor) {}

  // Checks that `j` is an object whose keys are among `known` and that has
  // every key of `required`. Unknown keys fail for a known version and are
  // warned about (once per path pattern and key) for a newer minor one.
  void check_object(const json& j, const std::string& path,
                    std::initializer_list<const char*> known,
                    std::initializer_list<const char*> required) {
    if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
    for (const char* key : required) {
      if (!j.contains(key)) fail(path, absl::StrCat("the required key '", key, "' is missing"));
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool found = false;
      for (const char* key : known) found = found || it.key() == key;
      if (!found) unknown(path, it.key());
    }
  }

  void unknown(const std::string& path, const std::string& key) {
    if (!newer_minor_) {
      fail(path, absl::StrCat("unknown key ", quote_for_message(key),
                              " (not in torch.export's schema version ", kSchemaMajor, ".",
                              kSchemaMinor, " or older)"));
    }
    if (warnings_ != nullptr && warned_.insert(key).second) {
      warnings_->push_back(absl::StrCat(path, ": key ", quote_for_message(key),
                                        " is from a newer schema version and was ignored"));
    }
  }

  // The one member of a union object: {"as_int": 3} -> ("as_int", 3).
  std::pair<std::string, const json*> union_member(const json& j, const std::string& path) {
    if (!j.is_object() || j.size() != 1) {
      fail(path, absl::StrCat("expected a union (an object with one key), found ",
                              j.is_object() ? absl::StrCat("an object with ", j.size(), " keys")
                                            : json_kind(j)));
    }
    return {j.begin().key(), &j.begin().value()};
  }

  bool newer_minor() const { return newer_minor_; }

 private:
  std::vector<std::string>* warnings_;
  bool newer_minor_;
  std::set<std::string> warned_;
};

const json& at(const json& j, const char* key) { return j.at(key); }

int64_t get_int(const json& j, const std::string& path) {
  if (!j.is_number_integer()) fail(path, absl::StrCat("expected an integer, found ", json_kind(j)));
  return j.get<int64_t>();
}

// A float as Python's json module writes one: a number, or "Infinity",
// "-Infinity" and "NaN" (which torch.export writes as strings).
double get_float(const json& j, const std::string& path) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  fail(path, absl::StrCat("expected a number, found ", json_kind(j)));
}

ojson float_to_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

bool get_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) fail(path, absl::StrCat("expected true or false, found ", json_kind(j)));
  return j.get<bool>();
}

const std::string& get_string(const json& j, const std::string& path) {
  if (!j.is_string()) fail(path, absl::StrCat("expected a string, found ", json_kind(j)));
  return j.get_ref<const std::string&>();
}

const json& get_array(const json& j, const std::string& path) {
  if (!j.is_array()) fail(path, absl::StrCat("expected an array, found ", json_kind(j)));
  return j;
}

std::string item(const std::string& path, size_t i) { return absl::StrCat(path, "[", i, "]"); }
std::string member(const std::string& path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

std::map<std::string, std::string> string_map(const json& j, const std::string& path) {
  if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
  std::map<std::string, std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = get_string(it.value(), member(path, it.key()));
  return out;
}

Device parse_device(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"type", "index"}, {"type"});
  Device d;
  d.type = get_string(at(j, "type"), member(path, "type"));
  if (j.contains("index") && !j.at("index").is_null()) d.index = get_int(j.at("index"), member(path, "index"));
  return d;
}

ojson device_to_json(const Device& d) {
  ojson j = ojson::object();
  j["type"] = d.type;
  j["index"] = d.index ? ojson(*d.index) : ojson(nullptr);
  return j;
}

// SymInt / SymFloat / SymBool: {"as_expr": {"expr_str", "hint"}} or a constant.
SymValue parse_sym(Parser& p, const json& j, const std::string& path, SymValue::Kind constant) {
  auto [key, value] = p.union_member(j, path);
  const std::string at_path = member(path, key);
  SymValue s;
  if (key == "as_expr") {
    p.check_object(*value, at_path, {"expr_str", "hint"}, {"expr_str"});
    s.kind = SymValue::Kind::kExpr;
    s.expr = get_string(value->at("expr_str"), member(at_path, "expr_str"));
    if (value->contains("hint") && !value->at("hint").is_null()) {
      auto [hint_key, hint] = p.union_member(value->at("hint"), member(at_path, "hint"));
      const std::string hint_path = member(member(at_path, "hint"), hint_key);
      if (hint_key == "as_int") {
        s.hint_kind = SymValue::Kind::kInt;
        s.hint_i = get_int(*hint, hint_path);
      } else if (hint_key == "as_float") {
        s.hint_kind = SymValue::Kind::kFloat;
        s.hint_f = get_float(*hint, hint_path);
      } else if (hint_key == "as_bool") {
        s.hint_kind = SymValue::Kind::kBool;
        s.hint_b = get_bool(*hint, hint_path);
      } else {
        p.unknown(member(at_path, "hint"), hint_key);
      }
    }
    return s;
  }
  s.kind = constant;
  if (constant == SymValue::Kind::kInt && key == "as_int") {
    s.i = get_int(*value, at_path);
  } else if (constant == SymValue::Kind::kFloat && key == "as_float") {
    s.f = get_float(*value, at_path);
  } else if (constant == SymValue::Kind::kBool && key == "as_bool") {
    s.b = get_bool(*value, at_path);
  } else {
    fail(path, absl::StrCat("unknown symbolic value kind ", quote_for_message(key)));
  }
  return s;
}

ojson sym_to_json(const SymValue& s) {
  ojson j = ojson::object();
  switch (s.kind) {
    case SymValue::Kind::kInt: j["as_int"] = s.i; return j;
    case SymValue::Kind::kFloat: j["as_float"] = float_to_json(s.f); return j;
    case SymValue::Kind::kBool: j["as_bool"] = s.b; return j;
    case SymValue::Kind::kExpr: break;
  }
  ojson e = ojson::object();
  e["expr_str"] = s.expr;
  if (s.hint_kind) {
    ojson h = ojson::object();
    switch (*s.hint_kind) {
      case SymValue::Kind::kInt: h["as_int"] = s.hint_i; break;
      case SymValue::Kind::kFloat: h["as_float"] = float_to_json(s.hint_f); break;
      default: h["as_bool"] = s.hint_b; break;
    }
    e["hint"] = std::move(h);
  } else {
    e["hint"] = nullptr;
  }
  j["as_expr"] = std::move(e);
  return j;
}

TensorMeta parse_tensor_meta(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path,
                 {"dtype", "sizes", "requires_grad", "device", "strides", "storage_offset", "layout"},
                 {"dtype", "sizes", "device", "strides"});
  TensorMeta m;
  m.dtype = static_cast<ScalarType>(get_int(at(j, "dtype"), member(path, "dtype")));
  const json& sizes = get_array(at(j, "sizes"), member(path, "sizes"));
  for (size_t i = 0; i < sizes.size(); ++i) {
    m.sizes.push_back(parse_sym(p, sizes[i], item(member(path, "sizes"), i), SymValue::Kind::kInt));
  }
  if (j.contains("requires_grad")) m.requires_grad = get_bool(j.at("requires_grad"), member(path, "requires_grad"));
  m.device = parse_device(p, at(j, "device"), member(path, "device"));
  const json& strides = get_array(at(j, "strides"), member(path, "strides"));
  for (size_t i = 0; i < strides.size(); ++i) {
    m.strides.push_back(parse_sym(p, strides[i], item(member(path, "strides"), i), SymValue::Kind::kInt));
  }
  if (j.contains("storage_offset")) {
    m.storage_offset = parse_sym(p, j.at("storage_offset"), member(path, "storage_offset"), SymValue::Kind::kInt);
  }
  if (j.contains("layout")) m.layout = static_cast<Layout>(get_int(j.at("layout"), member(path, "layout")));
  return m;
}

std::shared_ptr<Graph> parse_graph(Parser& p, const json& j, const std::string& path);
ojson graph_to_json(const Graph& g);

// {"name": "x"} of a TensorArgument (and TokenArgument).
std::string tensor_name(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"name"}, {"name"});
  return get_string(j.at("name"), member(path, "name"));
}

// An element of as_sym_ints / as_sym_floats / as_sym_bools, or as_sym_int itself.
void parse_sym_argument(Parser& p, const json& j, const std::string& path, Argument& a,
                        const char* constant_key) {
  auto [key, value] = p.union_member(j, path);
  if (key == "as_name") {
    a.is_name.push_back(true);
    a.names.push_back(get_string(*value, member(path, key)));
    a.ints.push_back(0);
    a.floats.push_back(0);
    return;
  }
  if (key != constant_key) fail(path, absl::StrCat("unknown kind ", quote_for_message(key)));
  a.is_name.push_back(false);
  a.names.emplace_back();
  if (key == std::string("as_float")) {
    a.floats.push_back(get_float(*value, member(path, key)));
    a.ints.push_back(0);
  } else {
    a.ints.push_back(key == std::string("as_bool") ? get_bool(*value, member(path, key))
                                                   : get_int(*value, member(path, key)));
    a.floats.push_back(0);
  }
}

struct ArgumentKindInfo {
  Argument::Kind kind;
  const char* key;
};

constexpr ArgumentKindInfo kArgumentKinds[] = {
    {Argument::Kind::kNone, "as_none"},
    {Argument::Kind::kTensor, "as_tensor"},
    {Argument::Kind::kTensors, "as_tensors"},
    {Argument::Kind::kOptionalTensors, "as_optional_tensors"},
    {Argument::Kind::kOptionalTensor, "as_optional_tensor"},
    {Argument::Kind::kInt, "as_int"},
    {Argument::Kind::kInts, "as_ints"},
    {Argument::Kind::kFloat, "as_float"},
    {Argument::Kind::kFloats, "as_floats"},
    {Argument::Kind::kString, "as_string"},
    {Argument::Kind::kStrings, "as_strings"},
    {Argument::Kind::kBool, "as_bool"},
    {Argument::Kind::kBools, "as_bools"},
    {Argument::Kind::kSymInt, "as_sym_int"},
    {Argument::Kind::kSymInts, "as_sym_ints"},
    {Argument::Kind::kSymFloat, "as_sym_float"},
    {Argument::Kind::kSymFloats, "as_sym_floats"},
    {Argument::Kind::kSymBool, "as_sym_bool"},
    {Argument::Kind::kSymBools, "as_sym_bools"},
    {Argument::Kind::kScalarType, "as_scalar_type"},
    {Argument::Kind::kMemoryFormat, "as_memory_format"},
    {Argument::Kind::kLayout, "as_layout"},
    {Argument::Kind::kDevice, "as_device"},
    {Argument::Kind::kIntLists, "as_int_lists"},
    {Argument::Kind::kFloatLists, "as_float_lists"},
    {Argument::Kind::kStringToArgument, "as_string_to_argument"},
    {Argument::Kind::kNestedTensors, "as_nested_tensors"},
    {Argument::Kind::kGraph, "as_graph"},
};

// Argument kinds of the schema the IR has no value for.
constexpr const char* kUnsupportedArgumentKinds[] = {"as_custom_obj", "as_operator", "as_complex"};

Argument parse_argument(Parser& p, const json& j, const std::string& path) {
  auto [key, value_ptr] = p.union_member(j, path);
  const json& v = *value_ptr;
  const std::string vp = member(path, key);
  Argument a;
  bool known = false;
  for (const ArgumentKindInfo& k : kArgumentKinds) {
    if (key == k.key) {
      a.kind = k.kind;
      known = true;
    }
  }
  if (!known) {
    bool schema_kind = false;
    for (const char* k : kUnsupportedArgumentKinds) schema_kind = schema_kind || key == k;
    if (!schema_kind) p.unknown(path, key);  // fails unless the file is newer
    a.kind = Argument::Kind::kUnsupported;
    a.names = {key};
    a.raw = j;
    return a;
  }
  switch (a.kind) {
    case Argument::Kind::kNone:
      return a;
    case Argument::Kind::kTensor:
      a.names = {tensor_name(p, v, vp)};
      return a;
    case Argument::Kind::kTensors: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) a.names.push_back(tensor_name(p, list[i], item(vp, i)));
      return a;
    }
    case Argument::Kind::kOptionalTensor:
    case Argument::Kind::kOptionalTensors: {
      const bool single = a.kind == Argument::Kind::kOptionalTensor;
      const size_t n = single ? 1 : get_array(v, vp).size();
      for (size_t i = 0; i < n; ++i) {
        const json& e = single ? v : v[i];
        const std::string ep = single ? vp : item(vp, i);
        auto [ekey, ev] = p.union_member(e, ep);
        if (ekey == "as_tensor") {
          a.names.push_back(tensor_name(p, *ev, member(ep, ekey)));
        } else if (ekey == "as_none") {
          a.names.emplace_back();
        } else {
          fail(ep, absl::StrCat("unknown optional tensor kind ", quote_for_message(ekey)));
        }
      }
      return a;
    }
    case Argument::Kind::kInt:
    case Argument::Kind::kScalarType:
    case Argument::Kind::kMemoryFormat:
    case Argument::Kind::kLayout:
      a.ints = {get_int(v, vp)};
      return a;
    case Argument::Kind::kBool:
      a.ints = {get_bool(v, vp)};
      return a;
    case Argument::Kind::kInts:
    case Argument::Kind::kBools: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) {
        a.ints.push_back(a.kind == Argument::Kind::kInts ? get_int(list[i], item(vp, i))
                                                         : get_bool(list[i], item(vp, i)));
      }
      return a;
    }
    case Argument::Kind::kFloat:
      a.floats = {get_float(v, vp)};
      return a;
    case Argument::Kind::kFloats: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) a.floats.push_back(get_float(list[i], item(vp, i)));
      return a;
    }
    case Argument::Kind::kString:
      a.strings = {get_string(v, vp)};
      return a;
    case Argument::Kind::kStrings: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) a.strings.push_back(get_string(list[i], item(vp, i)));
      return a;
    }
    case Argument::Kind::kSymInt:
      parse_sym_argument(p, v, vp, a, "as_int");
      return a;
    case Argument::Kind::kSymFloat:
      parse_sym_argument(p, v, vp, a, "as_float");
      return a;
    case Argument::Kind::kSymBool:
      parse_sym_argument(p, v, vp, a, "as_bool");
      return a;
    case Argument::Kind::kSymInts:
    case Argument::Kind::kSymFloats:
    case Argument::Kind::kSymBools: {
      const char* constant = a.kind == Argument::Kind::kSymInts     ? "as_int"
                             : a.kind == Argument::Kind::kSymFloats ? "as_float"
                                                                    : "as_bool";
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) parse_sym_argument(p, list[i], item(vp, i), a, constant);
      return a;
    }
    case Argument::Kind::kDevice:
      a.device = parse_device(p, v, vp);
      return a;
    case Argument::Kind::kIntLists: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) {
        const json& inner = get_array(list[i], item(vp, i));
        std::vector<int64_t> values;
        for (size_t k = 0; k < inner.size(); ++k) values.push_back(get_int(inner[k], item(item(vp, i), k)));
        a.int_lists.push_back(std::move(values));
      }
      return a;
    }
    case Argument::Kind::kFloatLists: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) {
        const json& inner = get_array(list[i], item(vp, i));
        std::vector<double> values;
        for (size_t k = 0; k < inner.size(); ++k) values.push_back(get_float(inner[k], item(item(vp, i), k)));
        a.float_lists.push_back(std::move(values));
      }
      return a;
    }
    case Argument::Kind::kNestedTensors: {
      const json& list = get_array(v, vp);
      for (size_t i = 0; i < list.size(); ++i) {
        const json& inner = get_array(list[i], item(vp, i));
        std::vector<std::string> names;
        for (size_t k = 0; k < inner.size(); ++k) names.push_back(tensor_name(p, inner[k], item(item(vp, i), k)));
        a.nested_names.push_back(std::move(names));
      }
      return a;
    }
    case Argument::Kind::kStringToArgument: {
      if (!v.is_object()) fail(vp, absl::StrCat("expected an object, found ", json_kind(v)));
      for (auto it = v.begin(); it != v.end(); ++it) {
        a.items.emplace_back(it.key(), parse_argument(p, it.value(), member(vp, it.key())));
      }
      return a;
    }
    case Argument::Kind::kGraph:
      p.check_object(v, vp, {"name", "graph"}, {"name", "graph"});
      a.names = {get_string(v.at("name"), member(vp, "name"))};
      a.graph = parse_graph(p, v.at("graph"), member(vp, "graph"));
      return a;
    case Argument::Kind::kUnsupported:
      break;
  }
  return a;
}

ojson names_to_json(const std::vector<std::string>& names) {
  ojson list = ojson::array();
  for (const std::string& n : names) list.push_back(ojson{{"name", n}});
  return list;
}

ojson sym_argument_to_json(const Argument& a, size_t i, const char* constant_key) {
  ojson j = ojson::object();
  if (a.is_name[i]) {
    j["as_name"] = a.names[i];
  } else if (constant_key == std::string("as_float")) {
    j[constant_key] = float_to_json(a.floats[i]);
  } else if (constant_key == std::string("as_bool")) {
    j[constant_key] = a.ints[i] != 0;
  } else {
    j[constant_key] = a.ints[i];
  }
  return j;
}

ojson argument_to_json(const Argument& a) {
  if (a.kind == Argument::Kind::kUnsupported) return ojson::parse(a.raw.dump());
  ojson j = ojson::object();
  const char* key = argument_key(a.kind);
  switch (a.kind) {
    case Argument::Kind::kNone: j[key] = true; break;
    case Argument::Kind::kTensor: j[key] = ojson{{"name", a.names.at(0)}}; break;
    case Argument::Kind::kTensors: j[key] = names_to_json(a.names); break;
    case Argument::Kind::kOptionalTensor:
    case Argument::Kind::kOptionalTensors: {
      ojson list = ojson::array();
      for (const std::string& n : a.names) {
        list.push_back(n.empty() ? ojson{{"as_none", true}} : ojson{{"as_tensor", {{"name", n}}}});
      }
      j[key] = a.kind == Argument::Kind::kOptionalTensor ? list.at(0) : list;
      break;
    }
    case Argument::Kind::kInt:
    case Argument::Kind::kScalarType:
    case Argument::Kind::kMemoryFormat:
    case Argument::Kind::kLayout: j[key] = a.ints.at(0); break;
    case Argument::Kind::kBool: j[key] = a.ints.at(0) != 0; break;
    case Argument::Kind::kInts: j[key] = a.ints; break;
    case Argument::Kind::kBools: {
      ojson list = ojson::array();
      for (int64_t v : a.ints) list.push_back(v != 0);
      j[key] = list;
      break;
    }
    case Argument::Kind::kFloat: j[key] = float_to_json(a.floats.at(0)); break;
    case Argument::Kind::kFloats: {
      ojson list = ojson::array();
      for (double v : a.floats) list.push_back(float_to_json(v));
      j[key] = list;
      break;
    }
    case Argument::Kind::kString: j[key] = a.strings.at(0); break;
    case Argument::Kind::kStrings: j[key] = a.strings; break;
    case Argument::Kind::kSymInt: j[key] = sym_argument_to_json(a, 0, "as_int"); break;
    case Argument::Kind::kSymFloat: j[key] = sym_argument_to_json(a, 0, "as_float"); break;
    case Argument::Kind::kSymBool: j[key] = sym_argument_to_json(a, 0, "as_bool"); break;
    case Argument::Kind::kSymInts:
    case Argument::Kind::kSymFloats:
    case Argument::Kind::kSymBools: {
      const char* constant = a.kind == Argument::Kind::kSymInts     ? "as_int"
                             : a.kind == Argument::Kind::kSymFloats ? "as_float"
                                                                    : "as_bool";
      ojson list = ojson::array();
      for (size_t i = 0; i < a.is_name.size(); ++i) list.push_back(sym_argument_to_json(a, i, constant));
      j[key] = list;
      break;
    }
    case Argument::Kind::kDevice: j[key] = device_to_json(a.device); break;
    case Argument::Kind::kIntLists: j[key] = a.int_lists; break;
    case Argument::Kind::kFloatLists: {
      ojson list = ojson::array();
      for (const auto& inner : a.float_lists) {
        ojson values = ojson::array();
        for (double v : inner) values.push_back(float_to_json(v));
        list.push_back(values);
      }
      j[key] = list;
      break;
    }
    case Argument::Kind::kNestedTensors: {
      ojson list = ojson::array();
      for (const auto& inner : a.nested_names) list.push_back(names_to_json(inner));
      j[key] = list;
      break;
    }
    case Argument::Kind::kStringToArgument: {
      ojson map = ojson::object();
      for (const auto& [k, v] : a.items) map[k] = argument_to_json(v);
      j[key] = map;
      break;
    }
    case Argument::Kind::kGraph:
      j[key] = ojson{{"name", a.names.at(0)}, {"graph", graph_to_json(*a.graph)}};
      break;
    case Argument::Kind::kUnsupported: break;
  }
  return j;
}

Node parse_node(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"target", "inputs", "outputs", "metadata", "is_hop_single_tensor_return", "name"},
                 {"target", "inputs", "outputs"});
  Node n;
  n.target = get_string(j.at("target"), member(path, "target"));
  if (j.contains("name") && !j.at("name").is_null()) n.name = get_string(j.at("name"), member(path, "name"));
  // Paths below name the node, so errors say which one.
  const std::string named = n.name ? absl::StrCat(path, " (", quote_for_message(*n.name), ")") : path;
  const json& inputs = get_array(j.at("inputs"), member(named, "inputs"));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string ip = item(member(named, "inputs"), i);
    p.check_object(inputs[i], ip, {"name", "arg", "kind"}, {"name", "arg"});
    NamedArgument na;
    na.name = get_string(inputs[i].at("name"), member(ip, "name"));
    na.arg = parse_argument(p, inputs[i].at("arg"), member(ip, "arg"));
    if (inputs[i].contains("kind") && !inputs[i].at("kind").is_null()) {
      na.kind = static_cast<int>(get_int(inputs[i].at("kind"), member(ip, "kind")));
    }
    n.inputs.push_back(std::move(na));
  }
  const json& outputs = get_array(j.at("outputs"), member(named, "outputs"));
  for (size_t i = 0; i < outputs.size(); ++i) {
    n.outputs.push_back(parse_argument(p, outputs[i], item(member(named, "outputs"), i)));
  }
  if (j.contains("metadata")) n.metadata = string_map(j.at("metadata"), member(named, "metadata"));
  if (j.contains("is_hop_single_tensor_return") && !j.at("is_hop_single_tensor_return").is_null()) {
    n.is_hop_single_tensor_return =
        get_bool(j.at("is_hop_single_tensor_return"), member(named, "is_hop_single_tensor_return"));
  }
  return n;
}

ojson node_to_json(const Node& n) {
  ojson j = ojson::object();
  j["target"] = n.target;
  ojson inputs = ojson::array();
  for (const NamedArgument& na : n.inputs) {
    ojson e = ojson::object();
    e["name"] = na.name;
    e["arg"] = argument_to_json(na.arg);
    e["kind"] = na.kind ? ojson(*na.kind) : ojson(nullptr);
    inputs.push_back(std::move(e));
  }
  j["inputs"] = std::move(inputs);
  ojson outputs = ojson::array();
  for (const Argument& a : n.outputs) outputs.push_back(argument_to_json(a));
  j["outputs"] = std::move(outputs);
  ojson metadata = ojson::object();
  for (const auto& [k, v] : n.metadata) metadata[k] = v;
  j["metadata"] = std::move(metadata);
  j["is_hop_single_tensor_return"] =
      n.is_hop_single_tensor_return ? ojson(*n.is_hop_single_tensor_return) : ojson(nullptr);
  j["name"] = n.name ? ojson(*n.name) : ojson(nullptr);
  return j;
}

std::map<std::string, SymValue> parse_sym_values(Parser& p, const json& j, const std::string& path,
                                                 SymValue::Kind kind) {
  if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
  std::map<std::string, SymValue> out;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = parse_sym(p, it.value(), member(path, it.key()), kind);
  return out;
}

std::shared_ptr<Graph> parse_graph(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path,
                 {"inputs", "outputs", "nodes", "tensor_values", "sym_int_values", "sym_bool_values",
                  "is_single_tensor_return", "custom_obj_values", "sym_float_values"},
                 {"inputs", "outputs", "nodes"});
  auto g = std::make_shared<Graph>();
  const json& inputs = get_array(j.at("inputs"), member(path, "inputs"));
  for (size_t i = 0; i < inputs.size(); ++i) g->inputs.push_back(parse_argument(p, inputs[i], item(member(path, "inputs"), i)));
  const json& outputs = get_array(j.at("outputs"), member(path, "outputs"));
  for (size_t i = 0; i < outputs.size(); ++i) g->outputs.push_back(parse_argument(p, outputs[i], item(member(path, "outputs"), i)));
  const json& nodes = get_array(j.at("nodes"), member(path, "nodes"));
  for (size_t i = 0; i < nodes.size(); ++i) g->nodes.push_back(parse_node(p, nodes[i], item(member(path, "nodes"), i)));
  if (j.contains("tensor_values")) {
    const json& tv = j.at("tensor_values");
    const std::string tp = member(path, "tensor_values");
    if (!tv.is_object()) fail(tp, absl::StrCat("expected an object, found ", json_kind(tv)));
    for (auto it = tv.begin(); it != tv.end(); ++it) {
      g->tensor_values[it.key()] = parse_tensor_meta(p, it.value(), member(tp, it.key()));
    }
  }
  if (j.contains("sym_int_values")) g->sym_int_values = parse_sym_values(p, j.at("sym_int_values"), member(path, "sym_int_values"), SymValue::Kind::kInt);
  if (j.contains("sym_bool_values")) g->sym_bool_values = parse_sym_values(p, j.at("sym_bool_values"), member(path, "sym_bool_values"), SymValue::Kind::kBool);
  if (j.contains("sym_float_values")) g->sym_float_values = parse_sym_values(p, j.at("sym_float_values"), member(path, "sym_float_values"), SymValue::Kind::kFloat);
  if (j.contains("is_single_tensor_return")) {
    g->is_single_tensor_return = get_bool(j.at("is_single_tensor_return"), member(path, "is_single_tensor_return"));
  }
  if (j.contains("custom_obj_values")) g->custom_obj_values = j.at("custom_obj_values");
  return g;
}

ojson graph_to_json(const Graph& g) {
  ojson j = ojson::object();
  ojson inputs = ojson::array();
  for (const Argument& a : g.inputs) inputs.push_back(argument_to_json(a));
  j["inputs"] = std::move(inputs);
  ojson outputs = ojson::array();
  for (const Argument& a : g.outputs) outputs.push_back(argument_to_json(a));
  j["outputs"] = std::move(outputs);
  ojson nodes = ojson::array();
  for (const Node& n : g.nodes) nodes.push_back(node_to_json(n));
  j["nodes"] = std::move(nodes);
  ojson tv = ojson::object();
  for (const auto& [k, m] : g.tensor_values) tv[k] = to_json(m);
  j["tensor_values"] = std::move(tv);
  for (const auto& [key, values] : {std::pair<const char*, const std::map<std::string, SymValue>*>{
                                        "sym_int_values", &g.sym_int_values},
                                    {"sym_bool_values", &g.sym_bool_values}}) {
    ojson m = ojson::object();
    for (const auto& [k, v] : *values) m[k] = sym_to_json(v);
    j[key] = std::move(m);
  }
  j["is_single_tensor_return"] = g.is_single_tensor_return;
  j["custom_obj_values"] = ojson::parse(g.custom_obj_values.dump());
  ojson sf = ojson::object();
  for (const auto& [k, v] : g.sym_float_values) sf[k] = sym_to_json(v);
  j["sym_float_values"] = std::move(sf);
  return j;
}

InputSpec parse_input_spec(Parser& p, const json& j, const std::string& path) {
  auto [key, value] = p.union_member(j, path);
  const std::string vp = member(path, key);
  const json& v = *value;
  InputSpec s;
  if (key == "user_input") {
    p.check_object(v, vp, {"arg"}, {"arg"});
    s.kind = InputSpec::Kind::kUserInput;
    s.arg = parse_argument(p, v.at("arg"), member(vp, "arg"));
    return s;
  }
  if (key == "constant_input") {
    p.check_object(v, vp, {"name", "value"}, {"name", "value"});
    s.kind = InputSpec::Kind::kConstantInput;
    s.target = get_string(v.at("name"), member(vp, "name"));
    auto [ckey, cv] = p.union_member(v.at("value"), member(vp, "value"));
    const std::string cp = member(member(vp, "value"), ckey);
    Argument c;
    if (ckey == "as_none") {
      c.kind = Argument::Kind::kNone;
    } else if (ckey == "as_int") {
      c.kind = Argument::Kind::kInt;
      c.ints = {get_int(*cv, cp)};
    } else if (ckey == "as_float") {
      c.kind = Argument::Kind::kFloat;
      c.floats = {get_float(*cv, cp)};
    } else if (ckey == "as_string") {
      c.kind = Argument::Kind::kString;
      c.strings = {get_string(*cv, cp)};
    } else if (ckey == "as_bool") {
      c.kind = Argument::Kind::kBool;
      c.ints = {get_bool(*cv, cp)};
    } else {
      fail(member(vp, "value"), absl::StrCat("unknown constant kind ", quote_for_message(ckey)));
    }
    s.constant = std::move(c);
    return s;
  }
  struct Named {
    const char* key;
    InputSpec::Kind kind;
    const char* target_key;
  };
  static constexpr Named kNamed[] = {
      {"parameter", InputSpec::Kind::kParameter, "parameter_name"},
      {"buffer", InputSpec::Kind::kBuffer, "buffer_name"},
      {"tensor_constant", InputSpec::Kind::kTensorConstant, "tensor_constant_name"},
      {"custom_obj", InputSpec::Kind::kCustomObj, "custom_obj_name"},
      {"token", InputSpec::Kind::kToken, nullptr},
  };
  for (const Named& n : kNamed) {
    if (key != n.key) continue;
    s.kind = n.kind;
    if (n.target_key == nullptr) {
      p.check_object(v, vp, {"arg"}, {"arg"});
    } else if (s.kind == InputSpec::Kind::kBuffer) {
      p.check_object(v, vp, {"arg", "buffer_name", "persistent"}, {"arg", "buffer_name"});
      if (v.contains("persistent")) s.persistent = get_bool(v.at("persistent"), member(vp, "persistent"));
    } else {
      p.check_object(v, vp, {"arg", n.target_key}, {"arg", n.target_key});
    }
    if (n.target_key != nullptr) s.target = get_string(v.at(n.target_key), member(vp, n.target_key));
    s.arg.kind = s.kind == InputSpec::Kind::kCustomObj ? Argument::Kind::kUnsupported : Argument::Kind::kTensor;
    if (s.kind == InputSpec::Kind::kCustomObj) {
      s.arg.names = {"as_custom_obj"};
      s.arg.raw = v.at("arg");
    } else {
      s.arg.names = {tensor_name(p, v.at("arg"), member(vp, "arg"))};
    }
    return s;
  }
  fail(path, absl::StrCat("unknown input kind ", quote_for_message(key)));
}

OutputSpec parse_output_spec(Parser& p, const json& j, const std::string& path) {
  auto [key, value] = p.union_member(j, path);
  const std::string vp = member(path, key);
  const json& v = *value;
  OutputSpec s;
  if (key == "user_output") {
    p.check_object(v, vp, {"arg"}, {"arg"});
    s.kind = OutputSpec::Kind::kUserOutput;
    s.arg = parse_argument(p, v.at("arg"), member(vp, "arg"));
    return s;
  }
  struct Named {
    const char* key;
    OutputSpec::Kind kind;
    const char* target_key;
  };
  static constexpr Named kNamed[] = {
      {"loss_output", OutputSpec::Kind::kLossOutput, nullptr},
      {"buffer_mutation", OutputSpec::Kind::kBufferMutation, "buffer_name"},
      {"gradient_to_parameter", OutputSpec::Kind::kGradientToParameter, "parameter_name"},
      {"gradient_to_user_input", OutputSpec::Kind::kGradientToUserInput, "user_input_name"},
      {"user_input_mutation", OutputSpec::Kind::kUserInputMutation, "user_input_name"},
      {"token", OutputSpec::Kind::kToken, nullptr},
      {"parameter_mutation", OutputSpec::Kind::kParameterMutation, "parameter_name"},
  };
  for (const Named& n : kNamed) {
    if (key != n.key) continue;
    s.kind = n.kind;
    if (n.target_key == nullptr) {
      p.check_object(v, vp, {"arg"}, {"arg"});
    } else {
      p.check_object(v, vp, {"arg", n.target_key}, {"arg", n.target_key});
      s.target = get_string(v.at(n.target_key), member(vp, n.target_key));
    }
    s.arg.kind = Argument::Kind::kTensor;
    s.arg.names = {tensor_name(p, v.at("arg"), member(vp, "arg"))};
    return s;
  }
  fail(path, absl::StrCat("unknown output kind ", quote_for_message(key)));
}

const char* input_spec_key(InputSpec::Kind kind) {
  switch (kind) {
    case InputSpec::Kind::kUserInput: return "user_input";
    case InputSpec::Kind::kParameter: return "parameter";
    case InputSpec::Kind::kBuffer: return "buffer";
    case InputSpec::Kind::kTensorConstant: return "tensor_constant";
    case InputSpec::Kind::kCustomObj: return "custom_obj";
    case InputSpec::Kind::kToken: return "token";
    case InputSpec::Kind::kConstantInput: return "constant_input";
  }
  return "";
}

ojson input_spec_to_json(const InputSpec& s) {
  ojson v = ojson::object();
  switch (s.kind) {
    case InputSpec::Kind::kUserInput:
      v["arg"] = argument_to_json(s.arg);
      break;
    case InputSpec::Kind::kConstantInput: {
      v["name"] = s.target;
      ojson c = argument_to_json(s.constant);
      v["value"] = std::move(c);
      break;
    }
    case InputSpec::Kind::kCustomObj:
      v["arg"] = ojson::parse(s.arg.raw.dump());
      v["custom_obj_name"] = s.target;
      break;
    default:
      v["arg"] = ojson{{"name", s.arg.names.at(0)}};
      if (s.kind == InputSpec::Kind::kParameter) v["parameter_name"] = s.target;
      if (s.kind == InputSpec::Kind::kBuffer) {
        v["buffer_name"] = s.target;
        v["persistent"] = s.persistent;
      }
      if (s.kind == InputSpec::Kind::kTensorConstant) v["tensor_constant_name"] = s.target;
      break;
  }
  return ojson{{input_spec_key(s.kind), std::move(v)}};
}

ojson output_spec_to_json(const OutputSpec& s) {
  static constexpr std::pair<OutputSpec::Kind, std::pair<const char*, const char*>> kKeys[] = {
      {OutputSpec::Kind::kUserOutput, {"user_output", nullptr}},
      {OutputSpec::Kind::kLossOutput, {"loss_output", nullptr}},
      {OutputSpec::Kind::kBufferMutation, {"buffer_mutation", "buffer_name"}},
      {OutputSpec::Kind::kGradientToParameter, {"gradient_to_parameter", "parameter_name"}},
      {OutputSpec::Kind::kGradientToUserInput, {"gradient_to_user_input", "user_input_name"}},
      {OutputSpec::Kind::kUserInputMutation, {"user_input_mutation", "user_input_name"}},
      {OutputSpec::Kind::kToken, {"token", nullptr}},
      {OutputSpec::Kind::kParameterMutation, {"parameter_mutation", "parameter_name"}},
  };
  for (const auto& [kind, keys] : kKeys) {
    if (kind != s.kind) continue;
    ojson v = ojson::object();
    if (s.kind == OutputSpec::Kind::kUserOutput) {
      v["arg"] = argument_to_json(s.arg);
    } else {
      v["arg"] = ojson{{"name", s.arg.names.at(0)}};
    }
    if (keys.second != nullptr) v[keys.second] = s.target;
    return ojson{{keys.first, std::move(v)}};
  }
  return ojson::object();
}

ModuleCallEntry parse_module_call_entry(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"fqn", "signature"}, {"fqn"});
  ModuleCallEntry e;
  e.fqn = get_string(j.at("fqn"), member(path, "fqn"));
  if (j.contains("signature") && !j.at("signature").is_null()) {
    const json& s = j.at("signature");
    const std::string sp = member(path, "signature");
    p.check_object(s, sp, {"inputs", "outputs", "in_spec", "out_spec", "forward_arg_names"},
                   {"inputs", "outputs", "in_spec", "out_spec"});
    ModuleCallSignature sig;
    const json& inputs = get_array(s.at("inputs"), member(sp, "inputs"));
    for (size_t i = 0; i < inputs.size(); ++i) sig.inputs.push_back(parse_argument(p, inputs[i], item(member(sp, "inputs"), i)));
    const json& outputs = get_array(s.at("outputs"), member(sp, "outputs"));
    for (size_t i = 0; i < outputs.size(); ++i) sig.outputs.push_back(parse_argument(p, outputs[i], item(member(sp, "outputs"), i)));
    sig.in_spec = get_string(s.at("in_spec"), member(sp, "in_spec"));
    sig.out_spec = get_string(s.at("out_spec"), member(sp, "out_spec"));
    if (s.contains("forward_arg_names") && !s.at("forward_arg_names").is_null()) {
      const json& names = get_array(s.at("forward_arg_names"), member(sp, "forward_arg_names"));
      std::vector<std::string> out;
      for (size_t i = 0; i < names.size(); ++i) out.push_back(get_string(names[i], item(member(sp, "forward_arg_names"), i)));
      sig.forward_arg_names = std::move(out);
    }
    e.signature = std::move(sig);
  }
  return e;
}

ojson module_call_entry_to_json(const ModuleCallEntry& e) {
  ojson j = ojson::object();
  j["fqn"] = e.fqn;
  if (!e.signature) {
    j["signature"] = nullptr;
    return j;
  }
  const ModuleCallSignature& sig = *e.signature;
  ojson s = ojson::object();
  ojson inputs = ojson::array();
  for (const Argument& a : sig.inputs) inputs.push_back(argument_to_json(a));
  s["inputs"] = std::move(inputs);
  ojson outputs = ojson::array();
  for (const Argument& a : sig.outputs) outputs.push_back(argument_to_json(a));
  s["outputs"] = std::move(outputs);
  s["in_spec"] = sig.in_spec;
  s["out_spec"] = sig.out_spec;
  s["forward_arg_names"] = sig.forward_arg_names ? ojson(*sig.forward_arg_names) : ojson(nullptr);
  j["signature"] = std::move(s);
  return j;
}

Program parse_program_or_throw(Parser& p, const json& j) {
  p.check_object(j, "",
                 {"graph_module", "opset_version", "range_constraints", "schema_version", "verifiers",
                  "torch_version", "guards_code", "dialect"},
                 {"graph_module", "schema_version"});
  Program prog;
  const json& gm = j.at("graph_module");
  p.check_object(gm, "graph_module",
                 {"graph", "signature", "module_call_graph", "metadata", "treespec_namedtuple_fields"},
                 {"graph", "signature"});
  prog.graph_module.graph = *parse_graph(p, gm.at("graph"), "graph_module.graph");
  const json& sig = gm.at("signature");
  p.check_object(sig, "graph_module.signature", {"input_specs", "output_specs"}, {"input_specs", "output_specs"});
  const json& in = get_array(sig.at("input_specs"), "graph_module.signature.input_specs");
  for (size_t i = 0; i < in.size(); ++i) {
    prog.graph_module.input_specs.push_back(parse_input_spec(p, in[i], item("graph_module.signature.input_specs", i)));
  }
  const json& out = get_array(sig.at("output_specs"), "graph_module.signature.output_specs");
  for (size_t i = 0; i < out.size(); ++i) {
    prog.graph_module.output_specs.push_back(parse_output_spec(p, out[i], item("graph_module.signature.output_specs", i)));
  }
  if (gm.contains("module_call_graph")) {
    const json& calls = get_array(gm.at("module_call_graph"), "graph_module.module_call_graph");
    for (size_t i = 0; i < calls.size(); ++i) {
      prog.graph_module.module_call_graph.push_back(
          parse_module_call_entry(p, calls[i], item("graph_module.module_call_graph", i)));
    }
  }
  if (gm.contains("metadata")) prog.graph_module.metadata = string_map(gm.at("metadata"), "graph_module.metadata");
  if (gm.contains("treespec_namedtuple_fields")) {
    const json& nt = gm.at("treespec_namedtuple_fields");
    const std::string np = "graph_module.treespec_namedtuple_fields";
    if (!nt.is_object()) fail(np, absl::StrCat("expected an object, found ", json_kind(nt)));
    for (auto it = nt.begin(); it != nt.end(); ++it) {
      const std::string ep = member(np, it.key());
      p.check_object(it.value(), ep, {"field_names"}, {"field_names"});
      const json& names = get_array(it.value().at("field_names"), member(ep, "field_names"));
      std::vector<std::string> fields;
      for (size_t i = 0; i < names.size(); ++i) fields.push_back(get_string(names[i], item(member(ep, "field_names"), i)));
      prog.graph_module.namedtuple_fields[it.key()] = std::move(fields);
    }
  }
  if (j.contains("opset_version")) {
    const json& ops = j.at("opset_version");
    if (!ops.is_object()) fail("opset_version", absl::StrCat("expected an object, found ", json_kind(ops)));
    for (auto it = ops.begin(); it != ops.end(); ++it) {
      prog.opset_version[it.key()] = get_int(it.value(), member("opset_version", it.key()));
    }
  }
  if (j.contains("range_constraints")) {
    const json& rc = j.at("range_constraints");
    if (!rc.is_object()) fail("range_constraints", absl::StrCat("expected an object, found ", json_kind(rc)));
    for (auto it = rc.begin(); it != rc.end(); ++it) {
      const std::string rp = member("range_constraints", it.key());
      p.check_object(it.value(), rp, {"min_val", "max_val"}, {});
      RangeConstraint r;
      for (const char* key : {"min_val", "max_val"}) {
        if (!it.value().contains(key) || it.value().at(key).is_null()) continue;
        const json& bound = it.value().at(key);
        // Unbounded ranges are written as huge integers or, by older
        // versions, as floats (inf); both mean "no bound" here.
        if (!bound.is_number_integer()) continue;
        const int64_t v = bound.get<int64_t>();
        (key == std::string("min_val") ? r.min_val : r.max_val) = v;
      }
      prog.range_constraints[it.key()] = r;
    }
  }
  if (j.contains("verifiers")) {
    const json& v = get_array(j.at("verifiers"), "verifiers");
    for (size_t i = 0; i < v.size(); ++i) prog.verifiers.push_back(get_string(v[i], item("verifiers", i)));
  }
  prog.torch_version = j.contains("torch_version") ? get_string(j.at("torch_version"), "torch_version") : "<=2.4";
  if (j.contains("guards_code")) {
    const json& g = get_array(j.at("guards_code"), "guards_code");
    for (size_t i = 0; i < g.size(); ++i) prog.guards_code.push_back(get_string(g[i], item("guards_code", i)));
  }
  return prog;
}

}  // namespace

const char* argument_key(Argument::Kind kind) {
  for (const ArgumentKindInfo& k : kArgumentKinds) {
    if (k.kind == kind) return k.key;
  }
  return "unsupported";
}

absl::StatusOr<nlohmann::json> parse_python_json(const std::string& text) {
  // Python's non-standard literals become strings; text inside strings is
  // left alone.
  std::string fixed;
  bool rewritten = false;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        fixed += c;
        if (i + 1 < text.size()) fixed += text[++i];
        continue;
      }
      if (c == '"') in_string = false;
      fixed += c;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (absl::string_view literal : {"-Infinity", "Infinity", "NaN"}) {
      if (absl::string_view(text).substr(i, literal.size()) == literal) {
        absl::StrAppend(&fixed, "\"", literal, "\"");
        i += literal.size() - 1;
        replaced = rewritten = true;
        break;
      }
    }
    if (!replaced) fixed += c;
  }
  try {
    return nlohmann::json::parse(rewritten ? fixed : text);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    std::string what = e.what();
    const size_t at = what.find("at line");
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", at == std::string::npos ? what : what.substr(at)));
  }
}

absl::StatusOr<Program> parse_program(const nlohmann::json& j, std::vector<std::string>* warnings) {
  // The version decides how strict the rest is, so it is read first.
  if (!j.is_object() || !j.contains("schema_version")) {
    return absl::InvalidArgumentError(
        "not a torch.export program: the JSON has no 'schema_version' (is it an ExportedProgram "
        "written by torch.export.save?)");
  }
  const json& version = j.at("schema_version");
  int major = -1;
  int minor = -1;
  if (version.is_object() && version.contains("major") && version.contains("minor") &&
      version.at("major").is_number_integer() && version.at("minor").is_number_integer()) {
    major = version.at("major").get<int>();
    minor = version.at("minor").get<int>();
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "schema_version: expected {\"major\": N, \"minor\": M}, found ", escape_for_message(version.dump(), 100)));
  }
  if (major != kSchemaMajor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program is written in torch.export's schema version ", major, ".", minor,
        ", and this fxrun reads version ", kSchemaMajor, ".x (up to ", kSchemaMajor, ".", kSchemaMinor,
        ", torch 2.1 to 2.14)", major > kSchemaMajor ? "; save it with an older torch, or use a newer FX for C++" : ""));
  }
  const bool newer_minor = minor > kSchemaMinor;
  if (newer_minor && warnings != nullptr) {
    warnings->push_back(absl::StrCat("the program is written in torch.export's schema version ", major, ".",
                                     minor, ", newer than ", kSchemaMajor, ".", kSchemaMinor,
                                     " which this fxrun knows; reading it as far as it is known"));
  }
  Parser p(warnings, newer_minor);
  try {
    Program prog = parse_program_or_throw(p, j);
    prog.schema_major = major;
    prog.schema_minor = minor;
    return prog;
  } catch (const SchemaError& e) {
    return absl::InvalidArgumentError(e.path.empty() ? e.message : absl::StrCat(e.path, ": ", e.message));
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed program: ", e.what()));
  }
}

absl::StatusOr<std::map<std::string, PayloadMeta>> parse_payload_config(const nlohmann::json& j,
                                                                         const std::string& where) {
  Parser p(nullptr, /*newer_minor=*/true);
  try {
    p.check_object(j, where, {"config"}, {"config"});
    const json& config = j.at("config");
    if (!config.is_object()) fail(member(where, "config"), "expected an object");
    std::map<std::string, PayloadMeta> out;
    for (auto it = config.begin(); it != config.end(); ++it) {
      const std::string ep = member(member(where, "config"), it.key());
      p.check_object(it.value(), ep, {"path_name", "is_param", "use_pickle", "tensor_meta"}, {"path_name"});
      PayloadMeta m;
      m.path_name = get_string(it.value().at("path_name"), member(ep, "path_name"));
      if (it.value().contains("is_param")) m.is_param = get_bool(it.value().at("is_param"), member(ep, "is_param"));
      if (it.value().contains("use_pickle")) m.use_pickle = get_bool(it.value().at("use_pickle"), member(ep, "use_pickle"));
      if (it.value().contains("tensor_meta") && !it.value().at("tensor_meta").is_null()) {
        m.tensor_meta = parse_tensor_meta(p, it.value().at("tensor_meta"), member(ep, "tensor_meta"));
      }
      out[it.key()] = std::move(m);
    }
    return out;
  } catch (const SchemaError& e) {
    return absl::InvalidArgumentError(absl::StrCat(e.path, ": ", e.message));
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", e.what()));
  }
}

nlohmann::ordered_json sym_value_to_json(const SymValue& value) { return sym_to_json(value); }

absl::StatusOr<TensorMeta> parse_tensor_meta(const nlohmann::json& j) {
  Parser p(nullptr, /*newer_minor=*/false);
  try {
    return parse_tensor_meta(p, j, "tensor_meta");
  } catch (const SchemaError& e) {
    return absl::InvalidArgumentError(absl::StrCat(e.path, ": ", e.message));
  }
}

absl::StatusOr<SymValue> parse_sym_value(const nlohmann::json& j, SymValue::Kind constant) {
  Parser p(nullptr, /*newer_minor=*/false);
  try {
    return parse_sym(p, j, "sym", constant);
  } catch (const SchemaError& e) {
    return absl::InvalidArgumentError(absl::StrCat(e.path, ": ", e.message));
  }
}

nlohmann::ordered_json to_json(const TensorMeta& m) {
  ojson j = ojson::object();
  j["dtype"] = static_cast<int>(m.dtype);
  ojson sizes = ojson::array();
  for (const SymValue& s : m.sizes) sizes.push_back(sym_to_json(s));
  j["sizes"] = std::move(sizes);
  j["requires_grad"] = m.requires_grad;
  j["device"] = device_to_json(m.device);
  ojson strides = ojson::array();
  for (const SymValue& s : m.strides) strides.push_back(sym_to_json(s));
  j["strides"] = std::move(strides);
  j["storage_offset"] = sym_to_json(m.storage_offset);
  j["layout"] = static_cast<int>(m.layout);
  return j;
}

nlohmann::ordered_json to_json(const Program& prog) {
  ojson j = ojson::object();
  ojson gm = ojson::object();
  gm["graph"] = graph_to_json(prog.graph_module.graph);
  ojson sig = ojson::object();
  ojson in = ojson::array();
  for (const InputSpec& s : prog.graph_module.input_specs) in.push_back(input_spec_to_json(s));
  sig["input_specs"] = std::move(in);
  ojson out = ojson::array();
  for (const OutputSpec& s : prog.graph_module.output_specs) out.push_back(output_spec_to_json(s));
  sig["output_specs"] = std::move(out);
  gm["signature"] = std::move(sig);
  ojson calls = ojson::array();
  for (const ModuleCallEntry& e : prog.graph_module.module_call_graph) calls.push_back(module_call_entry_to_json(e));
  gm["module_call_graph"] = std::move(calls);
  ojson metadata = ojson::object();
  for (const auto& [k, v] : prog.graph_module.metadata) metadata[k] = v;
  gm["metadata"] = std::move(metadata);
  ojson nt = ojson::object();
  for (const auto& [k, v] : prog.graph_module.namedtuple_fields) nt[k] = ojson{{"field_names", v}};
  gm["treespec_namedtuple_fields"] = std::move(nt);
  j["graph_module"] = std::move(gm);
  ojson ops = ojson::object();
  for (const auto& [k, v] : prog.opset_version) ops[k] = v;
  j["opset_version"] = std::move(ops);
  ojson rc = ojson::object();
  for (const auto& [k, r] : prog.range_constraints) {
    ojson e = ojson::object();
    e["min_val"] = r.min_val ? ojson(*r.min_val) : ojson(nullptr);
    e["max_val"] = r.max_val ? ojson(*r.max_val) : ojson(nullptr);
    rc[k] = std::move(e);
  }
  j["range_constraints"] = std::move(rc);
  j["schema_version"] = ojson{{"major", prog.schema_major}, {"minor", prog.schema_minor}};
  j["verifiers"] = prog.verifiers;
  j["torch_version"] = prog.torch_version;
  j["guards_code"] = prog.guards_code;
  return j;
}

nlohmann::ordered_json payload_config_to_json(const std::vector<std::pair<std::string, PayloadMeta>>& config) {
  ojson c = ojson::object();
  for (const auto& [fqn, m] : config) {
    ojson e = ojson::object();
    e["path_name"] = m.path_name;
    e["is_param"] = m.is_param;
    e["use_pickle"] = m.use_pickle;
    e["tensor_meta"] = m.tensor_meta ? to_json(*m.tensor_meta) : ojson(nullptr);
    c[fqn] = std::move(e);
  }
  return ojson{{"config", std::move(c)}};
}

}  // namespace exported
}  // namespace fx
