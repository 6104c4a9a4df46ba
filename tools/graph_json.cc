// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_json.h"

#include <cmath>

#include "core/printer.h"

namespace fx {

using Json = nlohmann::ordered_json;

namespace {

// JSON has no inf or nan: those become {"float": "inf"} (Python's spelling).
Json float_to_json(double value) {
  if (!std::isfinite(value)) return Json{{"float", python_float_repr(value)}};
  return value;
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
    Json users = Json::array();
    for (const Node* u : n->users()) users.push_back(u->name());
    Json node = {{"name", n->name()},    {"op", std::string(op_name(n->op()))},
                 {"target", n->target()}, {"args", std::move(args)},
                 {"kwargs", std::move(kwargs)}, {"users", std::move(users)},
                 {"meta", meta_to_json(n->meta())}};
    if (!n->type().empty()) node["type"] = n->type();
    nodes.push_back(std::move(node));
  }
  return Json{{"nodes", std::move(nodes)}, {"meta", meta_to_json(graph.meta())}};
}

}  // namespace fx
