// Copyright 2026 The FX for C++ Authors.
//
// The program's outputs: buffer mutations first, then the user outputs
// flattened, their structure kept as the out_spec of the root module call.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "exported_program/program_builder.h"
#include "exported_program/treespec.h"

namespace fx {
namespace exported {
namespace writer_internal {

absl::StatusOr<TreeSpec> ProgramBuilder::output_structure(const ::fx::Argument& given, std::vector<Argument>* leaves) {
  const ::fx::Argument& a = resolved(given);
  TreeSpec spec;
  if (a.is_tuple() || a.is_list()) {
    spec.kind = a.is_tuple() ? TreeSpec::Kind::kTuple : TreeSpec::Kind::kList;
    spec.type = a.is_tuple() ? "builtins.tuple" : "builtins.list";
    for (const ::fx::Argument& e : a.elements()) {
      auto c = output_structure(e, leaves);
      if (!c.ok()) return c.status();
      spec.children.push_back(*std::move(c));
    }
    return spec;
  }
  if (a.is_dict()) {
    spec.kind = TreeSpec::Kind::kDict;
    spec.type = "builtins.dict";
    for (const auto& [key, value] : a.dict_items()) {
      spec.keys.push_back(key);
      auto c = output_structure(value, leaves);
      if (!c.ok()) return c.status();
      spec.children.push_back(*std::move(c));
    }
    return spec;
  }
  if (a.is_none()) {
    spec.kind = TreeSpec::Kind::kNone;
    spec.type = "builtins.NoneType";
    return spec;
  }
  Argument leaf;
  if (a.is_node()) {
    auto it = names_.find(a.to_node());
    if (it == names_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("the output reads '", a.to_node()->name(), "', which is not a value"));
    }
    const ValueKind k = kinds_[a.to_node()];
    leaf.kind = k == ValueKind::kTensor ? Argument::Kind::kTensor
                : k == ValueKind::kSymInt ? Argument::Kind::kSymInt
                : k == ValueKind::kSymFloat ? Argument::Kind::kSymFloat : Argument::Kind::kSymBool;
    if (k != ValueKind::kTensor && k != ValueKind::kSymInt && k != ValueKind::kSymFloat && k != ValueKind::kSymBool) {
      return absl::InvalidArgumentError(absl::StrCat("the output returns '", a.to_node()->name(),
                                                     "', which is neither a tensor nor a number"));
    }
    leaf.names = {it->second};
    if (k != ValueKind::kTensor) {
      leaf.is_name = {true};
      leaf.ints = {0};
      leaf.floats = {0};
    }
  } else {
    auto constant = constant_value(a);  // None is handled above
    if (!constant.ok()) return absl::InvalidArgumentError(absl::StrCat("the output returns ", constant.status().message()));
    leaf = *std::move(constant);
  }
  leaves->push_back(std::move(leaf));
  return leaf_spec();
}

absl::Status ProgramBuilder::add_outputs() {
  const IrNode* output = gm_.graph().output_node();
  if (output == nullptr || output->args().empty()) return absl::InvalidArgumentError("the graph has no output");
  // Buffer mutations first, as torch.export orders its outputs.
  for (const IrNode* n : gm_.graph().nodes()) {
    if (mutations_.count(n) == 0) continue;
    const IrNode* value = n->args()[1].to_node();
    OutputSpec spec;
    spec.kind = OutputSpec::Kind::kBufferMutation;
    spec.arg.kind = Argument::Kind::kTensor;
    spec.arg.names = {names_[value]};
    spec.target = n->args()[0].to_node()->target();
    mutation_specs_.push_back(spec);
    graph().outputs.push_back(spec.arg);
  }
  std::vector<Argument> leaves;
  auto spec = output_structure(output->args()[0], &leaves);
  if (!spec.ok()) return spec.status();
  auto& specs = program_.graph_module.output_specs;
  specs = mutation_specs_;
  for (Argument& leaf : leaves) {
    OutputSpec s;
    s.kind = OutputSpec::Kind::kUserOutput;
    s.arg = leaf;
    specs.push_back(s);
    graph().outputs.push_back(std::move(leaf));
  }
  // The module call graph's root entry: forward(*args, **kwargs) -> structure.
  ModuleCallEntry root;
  ModuleCallSignature sig;
  sig.in_spec = to_string(in_spec());
  sig.out_spec = to_string(*spec);
  sig.forward_arg_names = forward_arg_names();
  root.signature = std::move(sig);
  program_.graph_module.module_call_graph.push_back(std::move(root));
  return absl::OkStatus();
}

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx
