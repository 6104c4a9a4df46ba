// Copyright 2026 The FX for C++ Authors.
//
// The program's signature in the IR: placeholders as ep.module() has them
// (forward's argument names; a structured input one placeholder with a
// getitem per leaf) from the input specs and in_spec, and the output from
// the output specs and out_spec, mutations written back with copy_.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"
#include "core/naming.h"
#include "core/well_known.h"
#include "tracer/program_walker.h"

namespace fx {
namespace tracer_internal {
namespace {

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

// forward's argument names become the parameters of printed code (`def
// forward(self, x)`) and of ep.module()'s: a name that is no identifier would
// be code there.
absl::Status check_argument_name(const std::string& name) {
  if (is_python_attribute_name(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the program names an argument of forward ", quote_for_message(name),
      ", which is not a Python identifier (or is a keyword): torch.export writes identifiers, so the "
      "file is damaged or was made by hand"));
}

}  // namespace

const ep::ModuleCallSignature* ProgramWalker::root_signature(std::string* path) const {
  const auto& calls = program_.graph_module.module_call_graph;
  const ep::ModuleCallSignature* signature = nullptr;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].fqn.empty() && calls[i].signature) {
      signature = &*calls[i].signature;
      *path = absl::StrCat("graph_module.module_call_graph[", i, "].signature");
    }
  }
  return signature;
}

absl::Status ProgramWalker::add_placeholders() {
  // forward's argument names, as ep.module() names its placeholders.
  std::string spec_path;
  const ep::ModuleCallSignature* signature = root_signature(&spec_path);
  std::vector<const ep::InputSpec*> user_inputs;
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    if (s.kind == ep::InputSpec::Kind::kUserInput || s.kind == ep::InputSpec::Kind::kConstantInput) {
      user_inputs.push_back(&s);
    }
  }
  // forward's arguments: (name, structure); without a signature, one leaf
  // per flat input.
  std::vector<std::pair<std::string, ep::TreeSpec>> arguments;
  size_t positional = 0;  // arguments from here on are keyword arguments
  if (signature != nullptr) {
    auto spec = ep::parse_treespec(signature->in_spec);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(spec_path, ".in_spec: ", spec.status().message()));
    }
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
    positional = arguments.size();
    for (size_t i = 0; i < kwargs.children.size(); ++i) {
      if (!kwargs.keys[i].is_string()) return absl::InvalidArgumentError("a keyword argument whose name is not a string");
      arguments.emplace_back(kwargs.keys[i].get<std::string>(), kwargs.children[i]);
    }
  } else {
    for (size_t i = 0; i < user_inputs.size(); ++i) arguments.emplace_back("", ep::leaf_spec());
    positional = arguments.size();
  }
  size_t next_input = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const auto& [arg_name, spec] = arguments[i];
    // What the writer needs to write the argument back as it was read.
    Meta record{{"spec", ep::to_string(spec)}, {"keyword", i >= positional}};
    if (spec.kind == ep::TreeSpec::Kind::kLeaf) {
      if (next_input >= user_inputs.size()) return absl::InvalidArgumentError("the program's in_spec has more inputs than its signature");
      const ep::InputSpec& input = *user_inputs[next_input++];
      auto p = add_leaf_placeholder(input, arg_name, i);
      if (!p.ok()) return p.status();
      record.set("constant", input.kind == ep::InputSpec::Kind::kConstantInput);
      exported_meta(*p).set("input", std::move(record));
      continue;
    }
    // A structure (a dict of feature maps, a list of tensors): one
    // placeholder, and a getitem for each leaf, named as the program names it.
    const std::string annotation = annotation_of(spec);
    if (absl::Status s = check_argument_name(arg_name); !s.ok()) return s;
    Node* p = tracer_.create_proxy(Op::kPlaceholder, arg_name, {}, {}, arg_name);
    if (!annotation.empty()) {
      p->set_type(annotation);
      p->meta().set(kTorchScriptTypeKey, annotation);
    }
    MetaValue::List leaf_records;  // each leaf's value, for one that a pass leaves unread
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
          Meta leaf{{"name", name}};
          if (const MetaValue* t = exported_meta(g).find("tensor_meta")) leaf.set("tensor_meta", *t);
          leaf_records.push_back(std::move(leaf));
        } else {
          Node* g = tracer_.create_proxy(Op::kCallFunction, kGetItemTarget, {Argument(parent), key}, {});
          if (absl::Status st = leaves(g, child); !st.ok()) return st;
        }
      }
      return absl::OkStatus();
    };
    if (absl::Status s = leaves(p, spec); !s.ok()) return s;
    record.set("constant", false);
    record.set("leaves", std::move(leaf_records));
    exported_meta(p).set("input", std::move(record));
  }
  if (next_input != user_inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program's in_spec arranges ", next_input, " inputs, and it has ",
                                                   user_inputs.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Node*> ProgramWalker::add_leaf_placeholder(const ep::InputSpec& s, std::string name, size_t index) {
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
  if (absl::Status s = check_argument_name(name); !s.ok()) return s;
  Node* p = tracer_.create_proxy(Op::kPlaceholder, name, std::move(default_value), {}, name);
  if (type != "Tensor") p->set_type(type);
  p->meta().set(kTorchScriptTypeKey, type);
  if (!value_name.empty()) bind_value(value_name, p);
  return p;
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
  std::string spec_path;
  const ep::ModuleCallSignature* signature = root_signature(&spec_path);
  if (signature != nullptr) {
    auto spec = ep::parse_treespec(signature->out_spec);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(spec_path, ".out_spec: ", spec.status().message()));
    }
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

}  // namespace tracer_internal
}  // namespace fx
