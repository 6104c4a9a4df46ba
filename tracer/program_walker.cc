// Copyright 2026 The FX for C++ Authors.
//
// The walk of a program's nodes: the module tree they ran in (their
// nn_module_stack, with the classes it names), each module call entered
// through the call_module hook, and each node recorded through the tracer.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/version.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/operator_binding.h"
#include "tracer/program_walker.h"

namespace fx {
namespace tracer_internal {
namespace {

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

// Whether `name` is a dotted name whose every part is non-empty: a module
// path (`layer1.0`) or a class (`torch.nn.modules.conv.Conv2d`). TorchScript
// asserts on others ("torch.nn.", "a..b").
bool is_dotted_name(absl::string_view name) {
  if (name.empty()) return false;
  for (absl::string_view part : absl::StrSplit(name, '.')) {
    if (part.empty()) return false;
  }
  return true;
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

}  // namespace

absl::StatusOr<Module*> ProgramWalker::module_at(const std::string& path) {
  auto it = modules_.find(path);
  if (it != modules_.end()) return it->second.get();
  const size_t dot = path.rfind('.');
  const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
  absl::StatusOr<Module*> owner = module_at(parent);
  if (!owner.ok()) return owner.status();
  auto type = module_types_.find(path);
  auto child = std::make_shared<Module>(type != module_types_.end() ? type->second
                                                                    : "torch.nn.modules.module.Module");
  if (absl::Status s = (*owner)->register_module(dot == std::string::npos ? path : path.substr(dot + 1), child);
      !s.ok()) {
    return s;
  }
  return modules_.emplace(path, std::move(child)).first->second.get();
}

absl::StatusOr<const ModuleInfo*> ProgramWalker::info_for(const std::string& path) {
  auto it = info_by_path_.find(path);
  if (it != info_by_path_.end()) return it->second;
  absl::StatusOr<Module*> m = module_at(path);
  if (!m.ok()) return m.status();
  // No TorchScript object: the module and its class are all there is.
  ModuleInfo info;
  info.state = *m;
  info.qualname = path;
  info.cls = &module_class_of((*m)->type_name());
  infos_.push_back(std::move(info));
  info_by_path_[path] = &infos_.back();
  return &infos_.back();
}

absl::Status ProgramWalker::build_root() {
  // The classes of the modules the program ran, from the nodes' stacks, so
  // that modules are made with their own class (ModuleRef::type_name), and
  // the order they were first called in.
  std::vector<std::string> called;
  for (const ep::Node& n : graph_.nodes) {
    auto it = n.metadata.find("nn_module_stack");
    if (it == n.metadata.end()) continue;
    auto refused = [&](absl::string_view what, absl::string_view name) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(n), ": its nn_module_stack names the ", what, " ",
          quote_for_message(std::string(name)),
          ", which is not a dotted name (the program is damaged or was written by hand)"));
    };
    for (absl::string_view entry : absl::StrSplit(it->second, ';', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(entry, absl::MaxSplits(',', 2));
      if (parts.size() == 3 && normalise_module_path(parts[1]).empty() &&
          !absl::StartsWith(parts[0], "_empty")) {
        if (!is_dotted_name(parts[2])) return refused("class", parts[2]);
        root_type_ = parts[2];
      }
    }
    for (const ModuleCall& c : parse_module_stack(it->second)) {
      if (!c.path.empty() && !is_dotted_name(c.path)) return refused("module", c.path);
      if (!is_dotted_name(c.type)) return refused("class", c.type);
      if (module_types_.emplace(c.path, c.type).second) called.push_back(c.path);
    }
  }
  auto root = std::make_shared<Module>(root_type_);
  modules_.emplace("", root);
  // Every module is made before any state is registered (a parameter named
  // like a submodule is then refused below). Owners of state come first, in
  // the signature's order, which is the eager model's named_parameters() then
  // named_buffers() order, so named_parameters() lists them as the model does
  // (FSDP's execution order reads it); then the modules without state, in the
  // order the program first calls them.
  auto owner_of = [](const std::string& fqn) {
    const size_t dot = fqn.rfind('.');
    return dot == std::string::npos ? std::string() : fqn.substr(0, dot);
  };
  auto kind_name = [](const ep::InputSpec& s) {
    using Kind = ep::InputSpec::Kind;
    return s.kind == Kind::kParameter ? "parameter" : s.kind == Kind::kTensorConstant ? "constant" : "buffer";
  };
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    using Kind = ep::InputSpec::Kind;
    if (s.kind == Kind::kParameter || s.kind == Kind::kBuffer || s.kind == Kind::kTensorConstant) {
      if (!is_dotted_name(s.target)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the program's ", kind_name(s), " ", quote_for_message(s.target),
            " is not a dotted name (the program is damaged or was written by hand)"));
      }
      if (absl::StatusOr<Module*> m = module_at(owner_of(s.target)); !m.ok()) return m.status();
    }
  }
  for (const std::string& path : called) {
    if (absl::StatusOr<Module*> m = module_at(path); !m.ok()) return m.status();
  }

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
    // Constants and non-persistent buffers (a causal mask, rotary tables:
    // not in the state dict) are kept with the constants; some versions keep
    // them with the weights all the same.
    const bool is_constant = s.kind == Kind::kTensorConstant;
    const bool with_constants = is_constant || (s.kind == Kind::kBuffer && !s.persistent);
    const at::Tensor* tensor = nullptr;
    if (with_constants) {
      if (auto found = constants.find(s.target); found != constants.end()) tensor = found->second;
    }
    if (tensor == nullptr) {
      if (auto found = state.find(s.target); found != state.end()) tensor = found->second;
    }
    if (tensor == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the program's ", kind_name(s), " ", quote_for_message(s.target), " is not in the archive's ",
          with_constants ? "constants or weights" : "weights"));
    }
    const std::string owner_path = owner_of(s.target);
    const std::string attr = owner_path.empty() ? s.target : s.target.substr(owner_path.size() + 1);
    absl::StatusOr<Module*> owner = module_at(owner_path);
    if (!owner.ok()) return owner.status();
    lifted_[s.arg.names.at(0)] = s.target;
    // Tied weights: torch.export lifts one parameter once per module that
    // uses it, each naming the same attribute.
    if (!registered_.insert(s.target).second) continue;
    if (s.kind == Kind::kBuffer && !s.persistent) non_persistent_buffers_.push_back(s.target);
    if ((*owner)->contains(attr)) {
      return absl::InvalidArgumentError(absl::StrCat("the program lifts ", quote_for_message(s.target),
                                                     ", which is also a submodule's name"));
    }
    const absl::Status registered = s.kind == Kind::kParameter ? (*owner)->register_parameter(attr, *tensor)
                                    : s.kind == Kind::kBuffer  ? (*owner)->register_buffer(attr, *tensor)
                                                               : (*owner)->register_attribute(attr, *tensor);
    if (!registered.ok()) return registered;
  }
  gm_ = std::make_unique<GraphModule>(std::move(root), std::make_unique<Graph>(), "GraphModule");
  return absl::OkStatus();
}

absl::Status ProgramWalker::add_node(const ep::Node& n) {
  const std::string w = where(n);
  std::string target = operator_target(n.target);
  const c10::FunctionSchema* schema = nullptr;
  if (!target.empty() && (schema = builtin_schema(target)) != nullptr) {
    // run by FX for C++ itself, on any libtorch
  } else if (!target.empty()) {
    auto op = find_operator(target);
    if (!op.ok()) {
      return absl::NotFoundError(absl::StrCat(
          w, ": operator ", target, " is not in libtorch ", TORCH_VERSION,
          " (this platform), and the program was exported with torch ", program_.torch_version,
          ": run it where libtorch has the operator (Debian 13 has 2.6, Debian unstable 2.14; "
          "see docs/platforms.md)"));
    }
    schema = op->schema;
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
  if (schema != nullptr) {
    if (absl::Status s = check_argument_kinds(n, *schema, w); !s.ok()) return s;
  }
  Arguments args;
  Kwargs kwargs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ep::NamedArgument& na = n.inputs[i];
    auto v = convert(na.arg, w);
    if (!v.ok()) return v.status();
    bool keyword = na.kind && *na.kind == 2;
    if (!na.kind && schema != nullptr) {
      // The legacy layout does not say: keyword-only parameters, and any
      // that follows a parameter left to its default, are keywords.
      const auto& params = schema->arguments();
      for (size_t p = 0; p < params.size(); ++p) {
        if (params[p].name() == na.name) keyword = params[p].kwarg_only() || p != args.size();
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
    absl::StatusOr<const ModuleInfo*> info = info_for(call.path);
    if (!info.ok()) return info.status();
    absl::Status body_status = absl::OkStatus();
    ModuleForward forward = [&](const Arguments&, const Kwargs&) -> absl::StatusOr<Argument> {
      body_status = walk(depth + 1, inner);
      if (!body_status.ok()) return body_status;
      return Argument();
    };
    auto called = tracer_.call_module(ModuleRef(*info), forward, {}, {});
    if (!called.ok()) return called.status();
    if (!body_status.ok()) return body_status;
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
