// Copyright 2026 The FX for C++ Authors.
//
// Tracer::trace of a torch.export program: the program's graph read into the
// IR the way `ep.module()` presents it to torch.fx users, through the hooks a
// trace of a TorchScript module goes through, so every tracer extension works
// on it unchanged. See tracer.h ("Reading torch.export programs").
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/version.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/sym_expr.h"
#include "exported_program/treespec.h"
#include "runtime/operator_binding.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

namespace ep = exported;

// One entry of a node's nn_module_stack: the module call it ran in.
struct ModuleCall {
  std::string key;   // distinguishes calls of one module ("L__self___relu", "...@1")
  std::string path;  // "layer1.0.conv1"
  std::string type;  // "torch.nn.modules.conv.Conv2d"
};

// torch.export writes `key,path,type;key,path,type` outermost first. Paths
// written by dynamo's strict mode (`L['self'].layer1[0]`) are normalised to
// module paths.
std::string normalise_module_path(std::string path) {
  for (absl::string_view prefix : {"L['self'].", "L['self']", "L__self__."}) {
    if (absl::StartsWith(path, prefix)) {
      path = path.substr(prefix.size());
      break;
    }
  }
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) return path;
      std::string inner = path.substr(i + 1, close - i - 1);
      inner = std::string(absl::StripPrefix(absl::StripSuffix(inner, "'"), "'"));
      if (!out.empty()) out += '.';
      out += inner;
      i = close;
    } else if (absl::StartsWith(absl::string_view(path).substr(i), "._modules")) {
      i += std::string("._modules").size() - 1;
    } else {
      out += path[i];
    }
  }
  return out;
}

std::vector<ModuleCall> parse_module_stack(const std::string& text) {
  std::vector<ModuleCall> stack;
  for (absl::string_view entry : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(entry, absl::MaxSplits(',', 2));
    if (parts.size() != 3) continue;
    // Nodes made by export's own passes carry a placeholder stack.
    if (absl::StartsWith(parts[0], "_empty_nn_module_stack")) continue;
    stack.push_back({parts[0], normalise_module_path(parts[1]), parts[2]});
  }
  // The root's entry ("" path) is implied: calls below it are what matter.
  if (!stack.empty() && stack.front().path.empty()) stack.erase(stack.begin());
  return stack;
}

// `torch.ops.aten.add.Tensor` -> `aten::add.Tensor`, `torch.ops.aten.relu.default`
// -> `aten::relu`; "" when the target is not an operator overload.
std::string operator_target(const std::string& target) {
  if (!absl::StartsWith(target, "torch.ops.")) return "";
  std::vector<std::string> parts = absl::StrSplit(target.substr(10), '.');
  if (parts.size() != 3) return "";
  std::string name = absl::StrCat(parts[0], "::", parts[1]);
  if (parts[2] != "default") absl::StrAppend(&name, ".", parts[2]);
  return name;
}

// The Python function a program node calls (`_operator.mul`), as the IR
// names it (`operator.mul`), or "".
std::string python_target(const std::string& target) {
  absl::string_view t = target;
  if (absl::ConsumePrefix(&t, "_operator.") || absl::ConsumePrefix(&t, "operator.")) {
    const std::string name = absl::StrCat(kOperatorModulePrefix, t);
    if (find_python_operator(name) != nullptr) return name;
  }
  return "";
}

class ProgramWalker {
 public:
  ProgramWalker(Tracer& tracer, const ep::LoadedProgram& loaded)
      : tracer_(tracer), loaded_(loaded), program_(loaded.program), graph_(program_.graph_module.graph) {}

  // Builds the module tree and the GraphModule the hooks will see.
  absl::Status prepare();
  GraphModule& graph_module() { return *gm_; }
  // Reads the program through the tracer's hooks (the tracer's current
  // module must be graph_module()).
  absl::StatusOr<GraphModule> run();

 private:
  absl::Status build_root();
  // The module object for a path, made on first use with the class the
  // program names for it.
  torch::jit::Module& module_at(const std::string& path, const std::string& type);
  const ModuleInfo* info_for(const std::string& path, const std::string& type);
  absl::Status add_placeholders();
  // The placeholder of one flat input (a tensor, or a number the program was
  // specialised for: its value is the default).
  absl::Status add_leaf_placeholder(const ep::InputSpec& s, std::string name, size_t index);
  // Processes nodes from `next_` while their module stack starts with the
  // first `depth` entries of `current`: the body of one module call.
  absl::Status walk(size_t depth, const std::vector<ModuleCall>& current);
  absl::Status add_node(const ep::Node& n);
  absl::StatusOr<Argument> convert(const ep::Argument& a, const std::string& where);
  absl::StatusOr<Argument> value(const std::string& name, const std::string& where);
  absl::Status add_output();
  absl::StatusOr<Argument> arrange(const ep::TreeSpec& spec, const std::vector<Argument>& leaves,
                                   size_t& next);
  void record_graph_meta(GraphModule& gm);
  // Records that program value `name` is `node`, and what the program says
  // of it: tensor_meta (shape_prop's form, symbolic sizes as expressions) and,
  // for writing it back, the program's own metadata of the value.
  void bind_value(const std::string& name, Node* node);
  std::string where(const ep::Node& n) const {
    return absl::StrCat("node ", quote_for_message(n.name ? *n.name : n.target), " (", n.target, ")");
  }

  Tracer& tracer_;
  const ep::LoadedProgram& loaded_;
  const ep::Program& program_;
  const ep::Graph& graph_;
  std::unique_ptr<GraphModule> gm_;
  std::string root_type_ = "torch.nn.modules.module.Module";
  // Module objects by path, and what hooks see of them.
  std::map<std::string, torch::jit::Module> modules_;
  std::deque<ModuleInfo> infos_;
  std::map<std::string, const ModuleInfo*> info_by_path_;
  std::shared_ptr<torch::jit::CompilationUnit> unit_ = std::make_shared<torch::jit::CompilationUnit>();
  // Program value name -> what it is in the IR.
  absl::flat_hash_map<std::string, Argument> values_;
  // Lifted inputs (parameters, buffers, constants): value name -> fqn, and
  // whether it is a module attribute (else an own attribute of the GraphModule).
  absl::flat_hash_map<std::string, std::string> lifted_;
  std::set<std::string> registered_;
  size_t next_ = 0;  // the next program node to process
};

torch::jit::Module& ProgramWalker::module_at(const std::string& path, const std::string& type) {
  auto it = modules_.find(path);
  if (it != modules_.end()) return it->second;
  const size_t dot = path.rfind('.');
  const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
  torch::jit::Module& owner = module_at(parent, "torch.nn.modules.module.Module");
  torch::jit::Module child(c10::QualifiedName(absl::StrCat("__torch__.", type)), unit_, /*shouldMangle=*/true);
  owner.register_module(dot == std::string::npos ? path : path.substr(dot + 1), child);
  return modules_.emplace(path, child).first->second;
}

const ModuleInfo* ProgramWalker::info_for(const std::string& path, const std::string& type) {
  auto it = info_by_path_.find(path);
  if (it != info_by_path_.end()) return it->second;
  torch::jit::Module m = module_at(path, type);
  ModuleInfo info;
  info.module = m;
  info.qualname = path;
  info.type = m.type().get();
  info.cls = &module_class_of(m.type());
  infos_.push_back(std::move(info));
  info_by_path_[path] = &infos_.back();
  return &infos_.back();
}

absl::Status ProgramWalker::build_root() {
  // The classes of the modules the program ran, from the nodes' stacks, so
  // that modules are made with their own class (ModuleRef::type_name).
  std::map<std::string, std::string> types;
  for (const ep::Node& n : graph_.nodes) {
    auto it = n.metadata.find("nn_module_stack");
    if (it == n.metadata.end()) continue;
    for (absl::string_view entry : absl::StrSplit(it->second, ';', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(entry, absl::MaxSplits(',', 2));
      if (parts.size() == 3 && normalise_module_path(parts[1]).empty() &&
          !absl::StartsWith(parts[0], "_empty")) {
        root_type_ = parts[2];
      }
    }
    for (const ModuleCall& c : parse_module_stack(it->second)) types.emplace(c.path, c.type);
  }
  torch::jit::Module root(c10::QualifiedName(absl::StrCat("__torch__.", root_type_)), unit_, true);
  modules_.emplace("", root);
  // Modules in path order, so parents exist with their class before children.
  for (const auto& [path, type] : types) module_at(path, type);
  gm_ = std::make_unique<GraphModule>(root, std::make_unique<Graph>(), "GraphModule");

  absl::flat_hash_map<std::string, const at::Tensor*> state, constants;
  for (const auto& [fqn, t] : loaded_.state) state[fqn] = &t;
  for (const auto& [fqn, t] : loaded_.constants) constants[fqn] = &t;
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    using Kind = ep::InputSpec::Kind;
    if (s.kind == Kind::kUserInput || s.kind == Kind::kConstantInput) continue;
    if (s.kind == Kind::kCustomObj || s.kind == Kind::kToken) {
      return absl::UnimplementedError(absl::StrCat(
          "the program takes ", s.kind == Kind::kToken ? "an effect token" : "a custom object",
          " (input ", quote_for_message(s.target), "): programs with side-effecting custom operators "
          "or TorchScript objects are not supported"));
    }
    const bool is_constant = s.kind == Kind::kTensorConstant;
    const auto& table = is_constant ? constants : state;
    auto found = table.find(s.target);
    if (found == table.end() && is_constant) {
      // Some versions keep constants with the weights.
      found = state.find(s.target);
      if (found == state.end()) found = table.end();
    }
    if (found == table.end() && found == state.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the program's ", s.kind == Kind::kParameter ? "parameter" : is_constant ? "constant" : "buffer",
          " ", quote_for_message(s.target), " is not in the archive's weights"));
    }
    const at::Tensor& tensor = *found->second;
    const size_t dot = s.target.rfind('.');
    const std::string owner_path = dot == std::string::npos ? "" : s.target.substr(0, dot);
    const std::string attr = dot == std::string::npos ? s.target : s.target.substr(dot + 1);
    torch::jit::Module& owner = module_at(owner_path, "torch.nn.modules.module.Module");
    lifted_[s.arg.names.at(0)] = s.target;
    // Tied weights: torch.export lifts one parameter once per module that
    // uses it, each naming the same attribute.
    if (!registered_.insert(s.target).second) continue;
    if (owner.hasattr(attr)) {
      return absl::InvalidArgumentError(absl::StrCat("the program lifts ", quote_for_message(s.target),
                                                     ", which is also a submodule's name"));
    }
    if (s.kind == Kind::kParameter) {
      owner.register_parameter(attr, tensor, /*is_buffer=*/false);
    } else if (s.kind == Kind::kBuffer) {
      owner.register_buffer(attr, tensor);
    } else {
      owner.register_attribute(attr, c10::TensorType::get(), tensor);
    }
  }
  return absl::OkStatus();
}

// The TorchScript annotation of an input of this structure (the runtime
// checks inputs against it), or "" when it is not one TorchScript can say.
std::string annotation_of(const ep::TreeSpec& spec) {
  using K = ep::TreeSpec::Kind;
  switch (spec.kind) {
    case K::kLeaf: return "Tensor";
    case K::kList: {
      for (const ep::TreeSpec& c : spec.children) {
        if (c.kind != K::kLeaf) return "";
      }
      return "List[Tensor]";
    }
    case K::kDict: {
      for (size_t i = 0; i < spec.children.size(); ++i) {
        if (spec.children[i].kind != K::kLeaf || !spec.keys[i].is_string()) return "";
      }
      return "Dict[str, Tensor]";
    }
    case K::kTuple:
    case K::kNamedTuple: {
      std::vector<std::string> items;
      for (const ep::TreeSpec& c : spec.children) {
        std::string a = annotation_of(c);
        if (a.empty()) return "";
        items.push_back(std::move(a));
      }
      return absl::StrCat("Tuple[", absl::StrJoin(items, ", "), "]");
    }
    default: return "";
  }
}

absl::Status ProgramWalker::add_placeholders() {
  // forward's argument names, as ep.module() names its placeholders.
  const ep::ModuleCallSignature* signature = nullptr;
  for (const ep::ModuleCallEntry& e : program_.graph_module.module_call_graph) {
    if (e.fqn.empty() && e.signature) signature = &*e.signature;
  }
  std::vector<const ep::InputSpec*> user_inputs;
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    if (s.kind == ep::InputSpec::Kind::kUserInput || s.kind == ep::InputSpec::Kind::kConstantInput) {
      user_inputs.push_back(&s);
    }
  }
  // forward's arguments: (name, structure); without a signature, one leaf
  // per flat input.
  std::vector<std::pair<std::string, ep::TreeSpec>> arguments;
  if (signature != nullptr) {
    auto spec = ep::parse_treespec(signature->in_spec);
    if (!spec.ok()) return absl::InvalidArgumentError(absl::StrCat("the program's in_spec: ", spec.status().message()));
    if (spec->kind != ep::TreeSpec::Kind::kTuple || spec->children.size() != 2 ||
        spec->children[1].kind != ep::TreeSpec::Kind::kDict) {
      return absl::InvalidArgumentError("the program's in_spec is not (args, kwargs)");
    }
    const ep::TreeSpec& args = spec->children[0];
    const ep::TreeSpec& kwargs = spec->children[1];
    for (size_t i = 0; i < args.children.size(); ++i) {
      std::string name = signature->forward_arg_names && i < signature->forward_arg_names->size()
                             ? (*signature->forward_arg_names)[i]
                             : absl::StrCat("arg", i);
      arguments.emplace_back(std::move(name), args.children[i]);
    }
    for (size_t i = 0; i < kwargs.children.size(); ++i) {
      if (!kwargs.keys[i].is_string()) return absl::InvalidArgumentError("a keyword argument whose name is not a string");
      arguments.emplace_back(kwargs.keys[i].get<std::string>(), kwargs.children[i]);
    }
  } else {
    for (size_t i = 0; i < user_inputs.size(); ++i) arguments.emplace_back("", ep::leaf_spec());
  }
  size_t next_input = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const auto& [arg_name, spec] = arguments[i];
    if (spec.kind == ep::TreeSpec::Kind::kLeaf) {
      if (next_input >= user_inputs.size()) return absl::InvalidArgumentError("the program's in_spec has more inputs than its signature");
      if (absl::Status s = add_leaf_placeholder(*user_inputs[next_input++], arg_name, i); !s.ok()) return s;
      continue;
    }
    // A structure (a dict of feature maps, a list of tensors): one
    // placeholder, and a getitem for each leaf, named as the program names it.
    const std::string annotation = annotation_of(spec);
    Node* p = tracer_.create_proxy(Op::kPlaceholder, arg_name, {}, {}, arg_name);
    if (!annotation.empty()) {
      p->set_type(annotation);
      p->meta().set(kTorchScriptTypeKey, annotation);
    }
    std::function<absl::Status(Node*, const ep::TreeSpec&)> leaves = [&](Node* parent, const ep::TreeSpec& s) -> absl::Status {
      for (size_t c = 0; c < s.children.size(); ++c) {
        const ep::TreeSpec& child = s.children[c];
        if (child.kind == ep::TreeSpec::Kind::kNone) continue;
        Argument key = s.kind == ep::TreeSpec::Kind::kDict
                           ? (s.keys[c].is_string() ? Argument(s.keys[c].get<std::string>())
                                                    : Argument(s.keys[c].get<int64_t>()))
                           : Argument(static_cast<int64_t>(c));
        std::string name;
        if (child.kind == ep::TreeSpec::Kind::kLeaf) {
          if (next_input >= user_inputs.size()) return absl::InvalidArgumentError("the program's in_spec has more inputs than its signature");
          const ep::InputSpec& input = *user_inputs[next_input++];
          if (input.arg.kind != ep::Argument::Kind::kTensor) {
            return absl::UnimplementedError("a number inside a structured input is not supported");
          }
          name = input.arg.names.at(0);
          Node* g = tracer_.create_proxy(Op::kCallFunction, kGetItemTarget, {Argument(parent), key}, {}, name);
          bind_value(name, g);
        } else {
          Node* g = tracer_.create_proxy(Op::kCallFunction, kGetItemTarget, {Argument(parent), key}, {});
          if (absl::Status st = leaves(g, child); !st.ok()) return st;
        }
      }
      return absl::OkStatus();
    };
    if (absl::Status s = leaves(p, spec); !s.ok()) return s;
  }
  if (next_input != user_inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program's in_spec arranges ", next_input, " inputs, and it has ",
                                                   user_inputs.size()));
  }
  return absl::OkStatus();
}

absl::Status ProgramWalker::add_leaf_placeholder(const ep::InputSpec& s, std::string name, size_t index) {
  const ep::Argument& a = s.kind == ep::InputSpec::Kind::kConstantInput ? s.constant : s.arg;
  std::string value_name;
  std::string type;
  Arguments default_value;
  switch (a.kind) {
    case ep::Argument::Kind::kTensor:
      value_name = a.names.at(0);
      type = "Tensor";
      break;
    case ep::Argument::Kind::kSymInt:
      if (!a.is_name.at(0)) {
        default_value.push_back(a.ints.at(0));
      } else {
        value_name = a.names.at(0);
      }
      type = "int";
      break;
    case ep::Argument::Kind::kSymFloat:
      value_name = a.is_name.at(0) ? a.names.at(0) : "";
      type = "float";
      break;
    case ep::Argument::Kind::kSymBool:
      value_name = a.is_name.at(0) ? a.names.at(0) : "";
      type = "bool";
      break;
    case ep::Argument::Kind::kInt:
      default_value.push_back(a.ints.at(0));
      type = "int";
      break;
    case ep::Argument::Kind::kFloat:
      default_value.push_back(a.floats.at(0));
      type = "float";
      break;
    case ep::Argument::Kind::kBool:
      default_value.push_back(a.ints.at(0) != 0);
      type = "bool";
      break;
    case ep::Argument::Kind::kString:
      default_value.push_back(a.strings.at(0));
      type = "str";
      break;
    case ep::Argument::Kind::kNone:
      default_value.push_back(Argument());
      type = "Optional[Tensor]";
      break;
    default:
      return absl::UnimplementedError(absl::StrCat("the program's input ", index, " is of kind ",
                                                   ep::argument_key(a.kind), ", which is not supported"));
  }
  if (name.empty()) name = value_name.empty() ? absl::StrCat("arg", index) : value_name;
  Node* p = tracer_.create_proxy(Op::kPlaceholder, name, std::move(default_value), {}, name);
  if (type != "Tensor") p->set_type(type);
  p->meta().set(kTorchScriptTypeKey, type);
  if (!value_name.empty()) bind_value(value_name, p);
  return absl::OkStatus();
}

Meta& exported_meta(Node* node) {
  MetaValue* m = node->meta().find(kExportedValueKey);
  if (m == nullptr || !m->is_map()) {
    node->meta().set(kExportedValueKey, Meta());
    m = node->meta().find(kExportedValueKey);
  }
  return m->to_map();
}

// A size or stride as tensor_meta shows it: the number, or the expression
// as Python prints it ("3*s77"; sympy's own text when it cannot be read).
MetaValue size_meta(const ep::SymValue& s) {
  if (s.kind != ep::SymValue::Kind::kExpr) return MetaValue(s.i);
  auto e = ep::parse_sym_expr(s.expr);
  return MetaValue(e.ok() ? e->to_string() : s.expr);
}

// torch.fx's TensorMetadata (as shape_prop records it) of a program value.
MetaValue tensor_meta_of(const ep::TensorMeta& t) {
  MetaValue::List shape, stride;
  bool symbolic = false;
  std::vector<int64_t> sizes, strides;
  for (const ep::SymValue& s : t.sizes) {
    shape.push_back(size_meta(s));
    symbolic = symbolic || s.kind == ep::SymValue::Kind::kExpr;
    sizes.push_back(s.i);
  }
  for (const ep::SymValue& s : t.strides) {
    stride.push_back(size_meta(s));
    symbolic = symbolic || s.kind == ep::SymValue::Kind::kExpr;
    strides.push_back(s.i);
  }
  auto dtype = ep::to_c10(t.dtype);
  MetaValue memory_format;
  if (!symbolic && t.layout == ep::Layout::kStrided && sizes.size() == strides.size()) {
    const at::Tensor probe = at::empty_strided(sizes, strides, at::TensorOptions().device(c10::kMeta));
    for (c10::MemoryFormat f : {c10::MemoryFormat::Contiguous, c10::MemoryFormat::ChannelsLast,
                                c10::MemoryFormat::ChannelsLast3d}) {
      if (probe.is_contiguous(f)) {
        memory_format = python_memory_format_name(f);
        break;
      }
    }
  }
  std::string device = t.device.type;
  if (t.device.index) absl::StrAppend(&device, ":", *t.device.index);
  return Meta{{"shape", std::move(shape)},
              {"dtype", dtype.ok() ? python_dtype_name(*dtype) : absl::StrCat("dtype ", static_cast<int>(t.dtype))},
              {"requires_grad", t.requires_grad},
              {"stride", std::move(stride)},
              {"memory_format", std::move(memory_format)},
              {"is_quantized", false},
              {"device", device}};
}

void ProgramWalker::bind_value(const std::string& name, Node* node) {
  values_[name] = Argument(node);
  if (auto t = graph_.tensor_values.find(name); t != graph_.tensor_values.end()) {
    node->meta().set(kTensorMetaKey, tensor_meta_of(t->second));
    exported_meta(node).set("tensor_meta", ep::to_json(t->second).dump());
    return;
  }
  for (const auto* table : {&graph_.sym_int_values, &graph_.sym_float_values, &graph_.sym_bool_values}) {
    if (auto v = table->find(name); v != table->end()) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      j["table"] = table == &graph_.sym_int_values ? "sym_int_values"
                   : table == &graph_.sym_float_values ? "sym_float_values" : "sym_bool_values";
      j["value"] = nlohmann::ordered_json::parse(ep::sym_value_to_json(v->second).dump());
      exported_meta(node).set("sym", j.dump());
      return;
    }
  }
}

absl::StatusOr<Argument> ProgramWalker::value(const std::string& name, const std::string& where) {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto lifted = lifted_.find(name);
  if (lifted != lifted_.end()) {
    // Parameters, buffers and constants are fetched where first used, as a
    // trace of the module would fetch them (so hooks see them in the module
    // that uses them).
    Node* n = tracer_.create_proxy(Op::kGetAttr, lifted->second, {}, {});
    bind_value(name, n);
    return Argument(n);
  }
  return absl::InvalidArgumentError(absl::StrCat(where, " reads value ", quote_for_message(name),
                                                 ", which nothing before it defines"));
}

absl::StatusOr<Argument> ProgramWalker::convert(const ep::Argument& a, const std::string& where) {
  using K = ep::Argument::Kind;
  auto list = [](std::vector<Argument> items) { return Argument::List(std::move(items)); };
  switch (a.kind) {
    case K::kNone: return Argument();
    case K::kTensor: return value(a.names.at(0), where);
    case K::kTensors:
    case K::kOptionalTensors:
    case K::kOptionalTensor: {
      std::vector<Argument> items;
      for (const std::string& n : a.names) {
        if (n.empty()) {
          items.emplace_back();
          continue;
        }
        auto v = value(n, where);
        if (!v.ok()) return v.status();
        items.push_back(std::move(*v));
      }
      if (a.kind == K::kOptionalTensor) return items.at(0);
      return list(std::move(items));
    }
    case K::kInt: return Argument(a.ints.at(0));
    case K::kBool: return Argument(a.ints.at(0) != 0);
    case K::kFloat: return Argument(a.floats.at(0));
    case K::kString: return Argument(a.strings.at(0));
    case K::kInts: {
      std::vector<Argument> items(a.ints.begin(), a.ints.end());
      return list(std::move(items));
    }
    case K::kBools: {
      std::vector<Argument> items;
      for (int64_t v : a.ints) items.emplace_back(v != 0);
      return list(std::move(items));
    }
    case K::kFloats: {
      std::vector<Argument> items(a.floats.begin(), a.floats.end());
      return list(std::move(items));
    }
    case K::kStrings: {
      std::vector<Argument> items(a.strings.begin(), a.strings.end());
      return list(std::move(items));
    }
    case K::kSymInt:
    case K::kSymFloat:
    case K::kSymBool:
    case K::kSymInts:
    case K::kSymFloats:
    case K::kSymBools: {
      std::vector<Argument> items;
      for (size_t i = 0; i < a.is_name.size(); ++i) {
        if (a.is_name[i]) {
          auto v = value(a.names[i], where);
          if (!v.ok()) return v.status();
          items.push_back(std::move(*v));
        } else if (a.kind == K::kSymFloat || a.kind == K::kSymFloats) {
          items.emplace_back(a.floats[i]);
        } else if (a.kind == K::kSymBool || a.kind == K::kSymBools) {
          items.emplace_back(a.ints[i] != 0);
        } else {
          items.emplace_back(a.ints[i]);
        }
      }
      if (a.kind == K::kSymInt || a.kind == K::kSymFloat || a.kind == K::kSymBool) return items.at(0);
      return list(std::move(items));
    }
    case K::kScalarType: {
      auto t = ep::to_c10(static_cast<ep::ScalarType>(a.ints.at(0)));
      if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", t.status().message()));
      return Argument(*t);
    }
    case K::kLayout: {
      auto l = ep::to_c10(static_cast<ep::Layout>(a.ints.at(0)));
      if (!l.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", l.status().message()));
      return Argument(*l);
    }
    case K::kMemoryFormat: {
      auto m = ep::to_c10(static_cast<ep::MemoryFormat>(a.ints.at(0)));
      if (!m.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", m.status().message()));
      return Argument(*m);
    }
    case K::kDevice: {
      try {
        c10::Device d(a.device.type);
        if (a.device.index) d = c10::Device(d.type(), static_cast<c10::DeviceIndex>(*a.device.index));
        return Argument(d);
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown device ", quote_for_message(a.device.type)));
      }
    }
    case K::kIntLists: {
      std::vector<Argument> outer;
      for (const auto& inner : a.int_lists) outer.push_back(list(std::vector<Argument>(inner.begin(), inner.end())));
      return list(std::move(outer));
    }
    case K::kFloatLists: {
      std::vector<Argument> outer;
      for (const auto& inner : a.float_lists) outer.push_back(list(std::vector<Argument>(inner.begin(), inner.end())));
      return list(std::move(outer));
    }
    case K::kNestedTensors: {
      std::vector<Argument> outer;
      for (const auto& inner : a.nested_names) {
        std::vector<Argument> items;
        for (const std::string& n : inner) {
          auto v = value(n, where);
          if (!v.ok()) return v.status();
          items.push_back(std::move(*v));
        }
        outer.push_back(list(std::move(items)));
      }
      return list(std::move(outer));
    }
    case K::kStringToArgument: {
      Kwargs items;
      for (const auto& [k, v] : a.items) {
        auto c = convert(v, where);
        if (!c.ok()) return c.status();
        items.emplace_back(k, std::move(*c));
      }
      return Argument::Dict(std::move(items));
    }
    case K::kGraph:
      return absl::UnimplementedError(absl::StrCat(
          where, " takes a subgraph (", quote_for_message(a.names.at(0)),
          "): higher-order operators (cond, while_loop, map) are not supported yet"));
    case K::kUnsupported:
      return absl::UnimplementedError(absl::StrCat(where, " takes an argument of kind ", a.names.at(0),
                                                   ", which FX for C++ does not support"));
  }
  return Argument();
}

absl::Status ProgramWalker::add_node(const ep::Node& n) {
  const std::string w = where(n);
  std::string target = operator_target(n.target);
  const c10::FunctionSchema* schema = nullptr;
  if (!target.empty()) {
    auto op = find_operator(target);
    if (!op.ok()) {
      return absl::NotFoundError(absl::StrCat(
          w, ": operator ", target, " is not in libtorch ", TORCH_VERSION,
          " (this platform), and the program was exported with torch ", program_.torch_version,
          ": run it where libtorch has the operator (Debian 13 has 2.6, Debian unstable 2.14; "
          "see README's Platforms)"));
    }
    schema = &op->op->schema();
  } else {
    target = python_target(n.target);
    if (target.empty()) {
      if (absl::StartsWith(n.target, "torch.ops.higher_order.")) {
        return absl::UnimplementedError(absl::StrCat(
            w, ": higher-order operator ", n.target.substr(23),
            " is not supported yet (its subgraphs are not run); export without it, or use torch.cond's "
            "branches as separate programs"));
      }
      return absl::UnimplementedError(absl::StrCat(w, ": calls ", quote_for_message(n.target),
                                                   ", which FX for C++ does not run"));
    }
  }
  Arguments args;
  Kwargs kwargs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ep::NamedArgument& na = n.inputs[i];
    auto v = convert(na.arg, w);
    if (!v.ok()) return v.status();
    bool keyword = na.kind && *na.kind == 2;
    if (!na.kind && schema != nullptr) {
      for (const c10::Argument& p : schema->arguments()) {
        if (p.name() == na.name) keyword = p.kwarg_only();
      }
    }
    if (keyword) {
      kwargs.emplace_back(na.name, std::move(*v));
    } else if (!kwargs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(w, ": positional argument ", quote_for_message(na.name),
                                                     " after a keyword argument"));
    } else {
      args.push_back(std::move(*v));
    }
  }
  // The node's name: its value's, as ep.module() names it; a multi-result
  // node's own (2.8 and later) or its target's.
  std::string name;
  const bool single = n.outputs.size() == 1 && (n.outputs[0].kind == ep::Argument::Kind::kTensor ||
                                                n.outputs[0].kind == ep::Argument::Kind::kSymInt ||
                                                n.outputs[0].kind == ep::Argument::Kind::kSymFloat ||
                                                n.outputs[0].kind == ep::Argument::Kind::kSymBool);
  if (single && !n.outputs[0].names.empty() && !n.outputs[0].names[0].empty()) {
    name = n.outputs[0].names[0];
  } else if (n.name) {
    name = *n.name;
  }
  Node* node = tracer_.create_proxy(Op::kCallFunction, target, std::move(args), std::move(kwargs), name);
  // What export knew of the node (stack_trace, nn_module_stack, torch_fn,
  // ...), kept to be written back.
  Meta metadata;
  for (const auto& [key, text] : n.metadata) metadata.set(key, text);
  exported_meta(node).set("metadata", std::move(metadata));
  if (schema != nullptr && schema->is_mutable()) node->set_impure(true);
  if (single) {
    bind_value(n.outputs[0].names[0], node);
    return absl::OkStatus();
  }
  // Several results: a getitem node per named result, as ep.module() has.
  auto getitem = [&](Node* of, int64_t index, const std::string& result) {
    Node* g = tracer_.create_proxy(Op::kCallFunction, kGetItemTarget, {Argument(of), Argument(index)}, {}, result);
    bind_value(result, g);
    return g;
  };
  // What the program says of each result, kept on the node too: a result
  // nobody reads loses its getitem to dead-code elimination, and writing the
  // program back still needs it.
  MetaValue::List results;
  const std::vector<std::string>& result_names =
      n.outputs.size() == 1 && n.outputs[0].kind == ep::Argument::Kind::kTensors ? n.outputs[0].names
                                                                                   : std::vector<std::string>();
  std::vector<std::string> per_output;
  for (const ep::Argument& out : n.outputs) per_output.push_back(out.names.empty() ? "" : out.names[0]);
  for (const std::string& r : result_names.empty() ? per_output : result_names) {
    auto t = graph_.tensor_values.find(r);
    results.push_back(t == graph_.tensor_values.end() ? MetaValue() : MetaValue(ep::to_json(t->second).dump()));
  }
  exported_meta(node).set("results", std::move(results));
  if (n.outputs.size() == 1 && n.outputs[0].kind == ep::Argument::Kind::kTensors) {
    node->meta().set(kNumResultsKey, static_cast<int64_t>(n.outputs[0].names.size()));
    for (size_t i = 0; i < n.outputs[0].names.size(); ++i) getitem(node, static_cast<int64_t>(i), n.outputs[0].names[i]);
    return absl::OkStatus();
  }
  if (n.outputs.size() > 1) node->meta().set(kNumResultsKey, static_cast<int64_t>(n.outputs.size()));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const ep::Argument& out = n.outputs[i];
    switch (out.kind) {
      case ep::Argument::Kind::kNone:
        break;
      case ep::Argument::Kind::kTensor:
      case ep::Argument::Kind::kSymInt:
      case ep::Argument::Kind::kSymFloat:
      case ep::Argument::Kind::kSymBool:
        if (!out.names.empty() && !out.names[0].empty()) getitem(node, static_cast<int64_t>(i), out.names[0]);
        break;
      case ep::Argument::Kind::kTensors: {
        Node* inner = getitem(node, static_cast<int64_t>(i), absl::StrCat(node->name(), "_", i));
        for (size_t k = 0; k < out.names.size(); ++k) getitem(inner, static_cast<int64_t>(k), out.names[k]);
        break;
      }
      default:
        return absl::UnimplementedError(absl::StrCat(w, ": a result of kind ", ep::argument_key(out.kind),
                                                     " is not supported"));
    }
  }
  return absl::OkStatus();
}

absl::Status ProgramWalker::walk(size_t depth, const std::vector<ModuleCall>& current) {
  while (next_ < graph_.nodes.size()) {
    const ep::Node& n = graph_.nodes[next_];
    auto it = n.metadata.find("nn_module_stack");
    const std::vector<ModuleCall> stack =
        it == n.metadata.end() ? std::vector<ModuleCall>{} : parse_module_stack(it->second);
    // Still inside this call?
    bool inside = stack.size() >= depth;
    for (size_t i = 0; inside && i < depth; ++i) inside = stack[i].key == current[i].key;
    if (!inside) return absl::OkStatus();
    if (stack.size() == depth) {
      ++next_;
      if (absl::Status s = add_node(n); !s.ok()) return s;
      continue;
    }
    // A call one level down: enter it through the call_module hook, whose
    // `forward` reads its body.
    std::vector<ModuleCall> inner(stack.begin(), stack.begin() + depth + 1);
    const ModuleCall& call = inner.back();
    const ModuleInfo* info = info_for(call.path, call.type);
    absl::Status body_status = absl::OkStatus();
    ModuleForward forward = [&](const Arguments&, const Kwargs&) -> absl::StatusOr<Argument> {
      body_status = walk(depth + 1, inner);
      if (!body_status.ok()) return body_status;
      return Argument();
    };
    auto called = tracer_.call_module(ModuleRef(info), forward, {}, {});
    if (!called.ok()) return called.status();
    if (!body_status.ok()) return body_status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Argument> ProgramWalker::arrange(const ep::TreeSpec& spec, const std::vector<Argument>& leaves,
                                                size_t& next) {
  using K = ep::TreeSpec::Kind;
  if (spec.kind == K::kLeaf) {
    if (next >= leaves.size()) return absl::InvalidArgumentError("the program's out_spec has more leaves than outputs");
    return leaves[next++];
  }
  if (spec.kind == K::kNone) return Argument();
  std::vector<Argument> items;
  for (const ep::TreeSpec& c : spec.children) {
    auto v = arrange(c, leaves, next);
    if (!v.ok()) return v.status();
    items.push_back(std::move(*v));
  }
  switch (spec.kind) {
    case K::kList:
      return Argument::List(std::move(items));
    case K::kDict: {
      Kwargs kv;
      for (size_t i = 0; i < items.size(); ++i) {
        if (!spec.keys[i].is_string()) {
          return absl::UnimplementedError("the program returns a dict whose keys are not strings");
        }
        kv.emplace_back(spec.keys[i].get<std::string>(), std::move(items[i]));
      }
      return Argument::Dict(std::move(kv));
    }
    default:
      return Argument::Tuple(std::move(items));
  }
}

absl::Status ProgramWalker::add_output() {
  std::vector<Argument> user;
  for (const ep::OutputSpec& s : program_.graph_module.output_specs) {
    using Kind = ep::OutputSpec::Kind;
    switch (s.kind) {
      case Kind::kUserOutput: {
        auto v = convert(s.arg, "the program's output");
        if (!v.ok()) return v.status();
        user.push_back(std::move(*v));
        break;
      }
      case Kind::kBufferMutation:
      case Kind::kParameterMutation:
      case Kind::kUserInputMutation: {
        // ep.module() writes the new value back with copy_ before returning.
        auto v = value(s.arg.names.at(0), "the program's output");
        if (!v.ok()) return v.status();
        Argument target;
        if (s.kind == Kind::kUserInputMutation) {
          for (Node* p : tracer_.graph().placeholders()) {
            if (p->name() == s.target || p->target() == s.target) target = Argument(p);
          }
          if (target.is_none()) {
            auto found = values_.find(s.target);
            if (found != values_.end()) target = found->second;
          }
        } else {
          for (const auto& [value_name, fqn] : lifted_) {
            if (fqn == s.target) {
              auto t = value(value_name, "the program's output");
              if (!t.ok()) return t.status();
              target = *t;
            }
          }
        }
        if (target.is_none()) {
          return absl::InvalidArgumentError(absl::StrCat("the program's output mutates ",
                                                         quote_for_message(s.target), ", which it does not take"));
        }
        Node* copy = tracer_.create_proxy(Op::kCallFunction, "aten::copy_", {target, *v}, {});
        copy->set_impure(true);
        break;
      }
      case Kind::kLossOutput:
      case Kind::kGradientToParameter:
      case Kind::kGradientToUserInput:
        return absl::UnimplementedError(
            "the program is a joint forward-backward (training) program; FX for C++ reads inference programs");
      case Kind::kToken:
        return absl::UnimplementedError("the program returns effect tokens (side-effecting custom operators), "
                                        "which are not supported");
    }
  }
  Argument result;
  const ep::ModuleCallSignature* signature = nullptr;
  for (const ep::ModuleCallEntry& e : program_.graph_module.module_call_graph) {
    if (e.fqn.empty() && e.signature) signature = &*e.signature;
  }
  if (signature != nullptr) {
    auto spec = ep::parse_treespec(signature->out_spec);
    if (!spec.ok()) return absl::InvalidArgumentError(absl::StrCat("the program's out_spec: ", spec.status().message()));
    if (spec->num_leaves() != user.size()) {
      return absl::InvalidArgumentError(absl::StrCat("the program's out_spec arranges ", spec->num_leaves(),
                                                     " outputs, and it has ", user.size()));
    }
    size_t next = 0;
    auto arranged = arrange(*spec, user, next);
    if (!arranged.ok()) return arranged.status();
    result = std::move(*arranged);
  } else {
    result = user.size() == 1 ? user[0] : Argument::Tuple(user);
  }
  tracer_.create_node(Op::kOutput, "output", {std::move(result)}, {});
  return absl::OkStatus();
}

void ProgramWalker::record_graph_meta(GraphModule& gm) {
  // Where the program came from, and the shapes its inputs must have
  // (runtime/input_constraints.h checks them at each run).
  Meta source{{"torch_version", program_.torch_version},
              {"schema_version", absl::StrCat(program_.schema_major, ".", program_.schema_minor)},
              {"layout", loaded_.layout == ep::ArchiveLayout::kLegacy ? "legacy" : "pt2"},
              {"root_type", root_type_}};
  gm.meta().set(kExportedProgramKey, std::move(source));
  Meta symbols;
  for (const auto& [name, r] : program_.range_constraints) {
    symbols.set(name, MetaValue::List{r.min_val ? MetaValue(*r.min_val) : MetaValue(),
                                      r.max_val ? MetaValue(*r.max_val) : MetaValue()});
  }
  MetaValue::List inputs;
  for (Node* p : gm.graph().placeholders()) {
    // The program's value of this placeholder.
    std::string value_name;
    for (const auto& [n, v] : values_) {
      if (v.is_node() && v.to_node() == p) value_name = n;
    }
    auto tv = graph_.tensor_values.find(value_name);
    if (tv == graph_.tensor_values.end()) continue;
    MetaValue::List sizes;
    for (const ep::SymValue& s : tv->second.sizes) {
      if (s.kind == ep::SymValue::Kind::kExpr) {
        sizes.push_back(s.expr);
      } else {
        sizes.push_back(s.i);
      }
    }
    inputs.push_back(Meta{{"placeholder", p->name()}, {"sizes", std::move(sizes)}});
  }
  gm.meta().set(kInputConstraintsKey, Meta{{"symbols", std::move(symbols)}, {"inputs", std::move(inputs)}});
}

absl::Status ProgramWalker::prepare() { return build_root(); }

absl::StatusOr<GraphModule> ProgramWalker::run() {
  const ModuleInfo* root = info_for("", root_type_);
  for (auto& ext : tracer_.extensions()) ext->begin_trace(tracer_, ModuleRef(root));
  if (absl::Status s = add_placeholders(); !s.ok()) return s;
  if (absl::Status s = walk(0, {}); !s.ok()) return s;
  if (next_ != graph_.nodes.size()) {
    return absl::InternalError("the program's nodes were not all read (its module stacks are inconsistent)");
  }
  // State no node reads is still the program's (num_batches_tracked): its
  // get_attr goes before the output, for dead-code elimination to decide.
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    if (lifted_.count(s.arg.names.empty() ? "" : s.arg.names[0]) > 0 && values_.count(s.arg.names[0]) == 0) {
      auto v = value(s.arg.names[0], "the program's state");
      if (!v.ok()) return v.status();
    }
  }
  if (absl::Status s = add_output(); !s.ok()) return s;
  record_graph_meta(*gm_);
  for (const std::string& w : loaded_.warnings) tracer_.warn(w);
  for (auto& ext : tracer_.extensions()) {
    if (absl::Status s = ext->end_trace(tracer_, *gm_); !s.ok()) return s;
  }
  return std::move(*gm_);
}

}  // namespace

absl::StatusOr<GraphModule> Tracer::trace(const exported::LoadedProgram& program) {
  ProgramWalker walker(*this, program);
  if (absl::Status s = walker.prepare(); !s.ok()) return s;
  current_ = &walker.graph_module();
  reading_program_ = true;
  absl::Cleanup done = [this] {
    current_ = nullptr;
    reading_program_ = false;
  };
  return walker.run();
}

}  // namespace fx
