// Copyright 2026 The FX for C++ Authors.
//
// Reading a program: graphs, nodes, the signature's input and output specs,
// the module call graph and the program around them; and schema.h's entry
// points, which turn what the readers throw into a Status.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/message_text.h"
#include "exported_program/schema.h"
#include "exported_program/schema_parser.h"

namespace fx {
namespace exported {
namespace schema_internal {
namespace {

std::map<std::string, std::string> string_map(const json& j, const std::string& path) {
  if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
  std::map<std::string, std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = get_string(it.value(), member(path, it.key()));
  return out;
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

std::map<std::string, SymValue> parse_sym_values(Parser& p, const json& j, const std::string& path,
                                                 SymValue::Kind kind) {
  if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
  std::map<std::string, SymValue> out;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = parse_sym(p, it.value(), member(path, it.key()), kind);
  return out;
}

}  // namespace

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

namespace {

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
}  // namespace schema_internal

using schema_internal::fail;
using schema_internal::get_bool;
using schema_internal::get_string;
using schema_internal::json;
using schema_internal::member;
using schema_internal::parse_program_or_throw;
using schema_internal::parse_sym;
using schema_internal::parse_tensor_meta;
using schema_internal::Parser;
using schema_internal::SchemaError;

absl::StatusOr<nlohmann::json> parse_python_json(const std::string& text) {
  // Python's non-standard literals become strings; text inside strings is
  // left alone.
  // nlohmann's parser and destructor recurse once per level: nesting is
  // bounded on the text first (real programs nest some 10 levels, 8 more
  // for each subgraph of a higher-order operator).
  constexpr int kMaxNesting = 256;
  if (absl::Status s = schema_internal::check_json_nesting(text, kMaxNesting); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(s.message(), ", which no torch.export program does"));
  }
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
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406, "number overflow parsing '1e999'": a number beyond a
    // double (Python reads it as inf; torch.export writes inf as Infinity).
    // The parser throws no other kind, but none may escape.
    std::string what = e.what();
    const size_t close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    return absl::InvalidArgumentError(
        absl::StrCat("not valid JSON: ", escape_for_message(what),
                     e.id == 406 ? " (a number beyond the range of a double; torch.export writes infinity as Infinity)"
                                 : ""));
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

}  // namespace exported
}  // namespace fx
