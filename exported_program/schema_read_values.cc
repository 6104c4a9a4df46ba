// Copyright 2026 The FX for C++ Authors.
//
// Reading the schema's values: devices, symbolic values, tensor metadata, and
// the Argument union every input and output of a node is, with the table of
// its kinds.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "exported_program/schema.h"
#include "exported_program/schema_parser.h"

namespace fx {
namespace exported {
namespace {

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

}  // namespace

const char* argument_key(Argument::Kind kind) {
  for (const ArgumentKindInfo& k : kArgumentKinds) {
    if (k.kind == kind) return k.key;
  }
  return "unsupported";
}

namespace schema_internal {
namespace {

const json& at(const json& j, const char* key) { return j.at(key); }

Device parse_device(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"type", "index"}, {"type"});
  Device d;
  d.type = get_string(at(j, "type"), member(path, "type"));
  if (j.contains("index") && !j.at("index").is_null()) d.index = get_int(j.at("index"), member(path, "index"));
  return d;
}

}  // namespace

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
  // No tensor has a negative size, stride or offset (libtorch throws making one).
  // (A named array: GCC 13 and later take a braced list of make_pair temporaries
  // for a dangling reference, -Wdangling-reference.)
  const std::pair<std::vector<SymValue>*, const char*> checked[] = {{&m.sizes, "sizes"},
                                                                    {&m.strides, "strides"}};
  for (const auto& [values, key] : checked) {
    for (size_t i = 0; i < values->size(); ++i) {
      const SymValue& v = (*values)[i];
      if (v.kind == SymValue::Kind::kInt && v.i < 0) fail(item(member(path, key), i), absl::StrCat("negative: ", v.i));
    }
  }
  if (m.storage_offset.kind == SymValue::Kind::kInt && m.storage_offset.i < 0) {
    fail(member(path, "storage_offset"), absl::StrCat("negative: ", m.storage_offset.i));
  }
  return m;
}

std::string tensor_name(Parser& p, const json& j, const std::string& path) {
  p.check_object(j, path, {"name"}, {"name"});
  return get_string(j.at("name"), member(path, "name"));
}

namespace {

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

}  // namespace

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

}  // namespace schema_internal
}  // namespace exported
}  // namespace fx
