// Copyright 2026 The FX for C++ Authors.
//
// Writing a program back to JSON (to_json and its parts), in the key order
// PyTorch writes, so that what parse_program reads comes back the same.
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exported_program/schema.h"

namespace fx {
namespace exported {
namespace {

using ojson = nlohmann::ordered_json;

ojson float_to_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

ojson device_to_json(const Device& d) {
  ojson j = ojson::object();
  j["type"] = d.type;
  j["index"] = d.index ? ojson(*d.index) : ojson(nullptr);
  return j;
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

ojson graph_to_json(const Graph& g);

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

}  // namespace

nlohmann::ordered_json sym_value_to_json(const SymValue& value) { return sym_to_json(value); }

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
