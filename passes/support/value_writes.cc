// Copyright 2026 The FX for C++ Authors.
#include "passes/support/value_writes.h"

#include <string>
#include <vector>

#include "passes/support/call_arguments.h"
#include "passes/support/operator_effects.h"

namespace fx {
namespace {

// torch.nn.functional functions with an `inplace` parameter.
bool has_inplace_parameter(const std::string& target) {
  static const char* const kNames[] = {"relu",  "relu6",      "hardtanh", "elu",   "selu",
                                       "celu",  "leaky_relu", "rrelu",    "threshold",
                                       "hardswish", "silu",   "mish",     "dropout",
                                       "alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
                                       "feature_alpha_dropout"};
  const size_t dot = target.rfind('.');
  const std::string name = dot == std::string::npos ? target : target.substr(dot + 1);
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// Whether `arg` is `value`, or a list or tuple holding it (an out= list:
// `Tensor(a!)[] out`).
bool holds_node(const Argument& arg, const Node& value) {
  if (arg.is_node()) return arg.to_node() == &value;
  if (!arg.is_sequence()) return false;
  for (const Argument& e : arg.elements()) {
    if (holds_node(e, value)) return true;
  }
  return false;
}

// Whether a parameter's alias annotation writes it or its elements
// (`Tensor(a!)`, `Tensor(a!)[]`).
bool writes(const c10::AliasInfo* info) {
  if (info == nullptr) return false;
  if (info->isWrite()) return true;
  for (const c10::AliasInfo& contained : info->containedTypes()) {
    if (writes(&contained)) return true;
  }
  return false;
}

}  // namespace

// Users that read only a value's rank or sizes, which an MKLDNN tensor has.
bool reads_sizes_only(const Node& user) {
  if (user.op() == Op::kCallMethod) return user.target() == "dim" || user.target() == "size";
  if (user.op() != Op::kCallFunction) return false;
  const std::string& t = user.target();
  return t == "aten::dim" || t == "aten::size" || t == "aten::size.int";
}

// Whether `user` may write its argument `value`: an impure call, one whose
// schema writes the parameter taking `value`, a leaf function called in
// place, an in-place method, any module.
bool may_write(const Node& user, const Node& value) {
  if (user.op() == Op::kOutput || reads_sizes_only(user)) return false;
  if (user.is_impure()) return true;
  if (user.op() == Op::kCallModule) return true;
  if (user.op() == Op::kCallMethod) {
    // In place: `add_`, and Python's augmented assignments (`__ior__`, which
    // run aten::__ior__ on self); or given `out=` (the method then runs the
    // operator's out overload).
    const std::string& t = user.target();
    if (user.kwarg("out") != nullptr) return true;
    if (t.size() > 4 && t.rfind("__i", 0) == 0 && t.compare(t.size() - 2, 2, "__") == 0) {
      return true;
    }
    return !t.empty() && t.back() == '_' && t.rfind("__", 0) != 0;
  }
  if (user.op() != Op::kCallFunction) return false;
  if (auto call = bind_call(user)) {
    const auto& params = call->schema->arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      const Argument* a = call->given[i];
      if (a == nullptr || !holds_node(*a, value)) continue;
      if (writes(params[i].alias_info())) return true;
    }
    return false;
  }
  if (!has_inplace_parameter(user.target())) return false;
  for (const auto& [name, arg] : user.kwargs()) {
    if (name == "inplace" && !(arg.is_bool() && !arg.to_bool())) return true;
  }
  for (const Argument& a : user.args()) {
    if (a.is_bool() && a.to_bool()) return true;
  }
  return false;
}

// Whether the result of `user` may share its operands' storage; a user that
// reads only sizes shares nothing.
bool may_alias(const Node& user) {
  return !reads_sizes_only(user) && result_may_alias_operands(user);
}

bool only_reads(const Node& user, const Node& value) {
  return user.op() == Op::kCallFunction && !may_write(user, value) && !may_alias(user);
}

// A node outside `skip` that may write `value`, directly or through a view
// or alias of it; nullptr when none.
const Node* writer_of(const Node& value, const absl::flat_hash_set<Node*>& skip) {
  std::vector<const Node*> work = {&value};
  absl::flat_hash_set<const Node*> seen = {&value};
  while (!work.empty()) {
    const Node* v = work.back();
    work.pop_back();
    for (Node* user : v->users()) {
      if (skip.count(user) > 0) continue;
      if (may_write(*user, *v)) return user;
      if (may_alias(*user) && seen.insert(user).second) work.push_back(user);
    }
  }
  return nullptr;
}

const Node* value_writer(Node& value, const absl::flat_hash_set<Node*>& skip) {
  std::vector<Node*> work = {&value};
  absl::flat_hash_set<Node*> seen = {&value};
  while (!work.empty()) {
    Node* v = work.back();
    work.pop_back();
    if (const Node* writer = writer_of(*v, skip)) return writer;
    if (!may_alias(*v)) continue;
    for (Node* input : v->input_nodes()) {
      if (seen.insert(input).second) work.push_back(input);
    }
  }
  return nullptr;
}

bool may_be_written(Node& value, const absl::flat_hash_set<Node*>& skip) {
  return value_writer(value, skip) != nullptr;
}

// Whether the graph may write the attribute `target`, through any get_attr
// of it.
bool attribute_may_be_written(const Graph& graph, const std::string& target) {
  for (Node* n : graph.nodes()) {
    if (n->op() == Op::kGetAttr && n->target() == target && may_be_written(*n, {})) return true;
  }
  return false;
}

const Node* tensor_writer(const TensorReaders& readers, const at::Tensor& t,
                          const absl::flat_hash_set<Node*>& skip) {
  for (const Node* reader : readers.readers(t)) {
    if (skip.contains(const_cast<Node*>(reader))) continue;
    if (reader->op() == Op::kCallModule) return reader;
    // A reader of the same storage: whatever writes it, or a view of it.
    Node& value = *const_cast<Node*>(reader);
    if (const Node* writer = writer_of(value, skip)) return writer;
  }
  return nullptr;
}

StorageWrites::StorageWrites(const GraphModule& gm) : gm_(gm), readers_(gm) {
  for (Node* n : gm.graph().nodes()) {
    if (n->op() == Op::kPlaceholder) placeholders_.push_back(n);
  }
}

const Node* StorageWrites::writer(Node& value, const absl::flat_hash_set<Node*>& skip) const {
  if (const Node* w = value_writer(value, skip)) return w;
  // What `value` is or may view: back through every result that may share
  // its operands' storage.
  std::vector<Node*> work = {&value};
  absl::flat_hash_set<Node*> seen = {&value};
  bool views_an_input = false;
  while (!work.empty()) {
    Node* v = work.back();
    work.pop_back();
    if (v->op() == Op::kGetAttr) {
      auto attribute = gm_.get_attr(v->target());
      if (attribute.ok() && attribute->isTensor()) {
        if (const Node* w = tensor_writer(readers_, attribute->toTensor(), skip)) return w;
      }
      continue;
    }
    if (v->op() == Op::kPlaceholder) {
      views_an_input = true;
      continue;
    }
    if (v->op() == Op::kCallModule) {
      // Its result may be its module's state (`return self.mem`).
      auto module = gm_.get_submodule(v->target());
      if (module.ok()) {
        for (const auto& [name, tensor] : (*module)->named_tensors()) {
          if (const Node* w = tensor_writer(readers_, tensor, skip)) return w;
        }
      }
    }
    if (!may_alias(*v)) continue;
    for (Node* input : v->input_nodes()) {
      if (seen.insert(input).second) work.push_back(input);
    }
  }
  if (!views_an_input) return nullptr;
  for (Node* input : placeholders_) {
    if (const Node* w = writer_of(*input, skip)) return w;
  }
  return nullptr;
}

}  // namespace fx
