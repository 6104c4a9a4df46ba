// Copyright 2026 The FX for C++ Authors.
#include "core/node.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/check.h"
#include "core/graph.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/well_known.h"

namespace fx {

absl::string_view op_name(Op op) {
  switch (op) {
    case Op::kPlaceholder:
      return "placeholder";
    case Op::kGetAttr:
      return "get_attr";
    case Op::kCallFunction:
      return "call_function";
    case Op::kCallMethod:
      return "call_method";
    case Op::kCallModule:
      return "call_module";
    case Op::kOutput:
      return "output";
  }
  return "?";
}

absl::StatusOr<Op> parse_op(absl::string_view name) {
  for (Op op : {Op::kPlaceholder, Op::kGetAttr, Op::kCallFunction, Op::kCallMethod,
                Op::kCallModule, Op::kOutput}) {
    if (op_name(op) == name) return op;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown opcode '", name,
      "'; expected one of placeholder, get_attr, call_function, call_method, "
      "call_module, output"));
}

Node::Node(Key, Graph* graph, Op op, std::string name, const std::string* target,
           const std::string* type)
    : graph_(graph), op_(op), name_(std::move(name)), target_(target), type_(type) {}

Node* Node::next() const { return next_ == graph_->root_ ? nullptr : next_; }
Node* Node::prev() const { return prev_ == graph_->root_ ? nullptr : prev_; }

void Node::attach_inputs() {
  inputs_.clear();
  auto add_input = [this](Node* n) {
    // Nodes rarely have many inputs: a scan is faster than a set.
    if (std::find(inputs_.begin(), inputs_.end(), n) == inputs_.end()) inputs_.push_back(n);
  };
  for_each_node(args_, add_input);
  for_each_node(kwargs_, add_input);
  for (Node* input : inputs_) {
    FX_DCHECK(input != nullptr, "node '", name_, "' has a null node argument");
    FX_DCHECK(input->graph_ == graph_, "node '", name_, "' uses node '", input->name_,
              "' of another graph (copy it with Graph::node_copy or graph_copy)");
    FX_DCHECK(!input->erased_, "node '", name_, "' uses node '", input->name_,
              "', which was erased");
    input->users_.push_back(this);
  }
}

void Node::detach_inputs() {
  for (Node* input : inputs_) input->remove_user(this);
  inputs_.clear();
}

void Node::remove_user(Node* user) {
  // Scan from the back: the most recent users are the likeliest to go first
  // (dead-code elimination and rewrites walk graphs backwards).
  for (auto it = users_.rbegin(); it != users_.rend(); ++it) {
    if (*it == user) {
      users_.erase(std::next(it).base());
      return;
    }
  }
}

void Node::set_args(Arguments args) { set_args_kwargs(std::move(args), std::move(kwargs_)); }

void Node::set_kwargs(Kwargs kwargs) { set_args_kwargs(std::move(args_), std::move(kwargs)); }

void Node::set_args_kwargs(Arguments args, Kwargs kwargs) {
  detach_inputs();
  args_ = std::move(args);
  kwargs_ = std::move(kwargs);
  attach_inputs();
  ++graph_->version_;
}

void Node::update_arg(size_t index, Argument value) {
  FX_DCHECK(index < args_.size(), "update_arg(", index, ") on node '", name_, "', which has ",
            args_.size(), " args");
  Arguments args = args_;
  args.at(index) = std::move(value);
  set_args(std::move(args));
}

void Node::update_kwarg(absl::string_view key, Argument value) {
  Kwargs kwargs = kwargs_;
  bool found = false;
  for (auto& kv : kwargs) {
    if (kv.first == key) {
      kv.second = std::move(value);
      found = true;
      break;
    }
  }
  if (!found) kwargs.emplace_back(std::string(key), std::move(value));
  set_kwargs(std::move(kwargs));
}

void Node::set_target(absl::string_view target) {
  if (graph_->target_index_built_) graph_->unindex_target(this);
  target_ = graph_->intern(target);
  if (graph_->target_index_built_) graph_->index_target(this);
  ++graph_->version_;
}

absl::Status Node::set_call(Op op, absl::string_view target) {
  const auto is_call = [](Op o) {
    return o == Op::kCallFunction || o == Op::kCallMethod || o == Op::kCallModule;
  };
  if (!is_call(op_) || !is_call(op)) {
    return absl::InvalidArgumentError(absl::StrCat("node '", name_, "' (", op_name(op_),
                                                   ") cannot become a ", op_name(op),
                                                   ": only calls change kind"));
  }
  if (graph_->target_index_built_) graph_->unindex_target(this);
  op_ = op;
  target_ = graph_->intern(target);
  if (graph_->target_index_built_) graph_->index_target(this);
  ++graph_->version_;
  return absl::OkStatus();
}

void Node::set_type(absl::string_view type) {
  type_ = graph_->intern(type);
  ++graph_->version_;
}

void Node::set_impure(bool impure) {
  if (impure_ == impure) return;
  impure_ = impure;
  ++graph_->version_;
}

const std::string& Node::rename(absl::string_view candidate) {
  if (candidate != name_) {
    name_ = graph_->names_.create_name(candidate);
    ++graph_->version_;
  }
  return name_;
}

std::vector<Node*> Node::replace_all_uses_with(Node* replacement,
                                               const std::function<bool(Node*)>& filter,
                                               bool propagate_meta) {
  FX_DCHECK(replacement != nullptr && replacement->graph_ == graph_,
            "replace_all_uses_with: the replacement of '", name_, "' must be in its graph");
  if (propagate_meta) {
    for (const auto& [key, value] : meta_) replacement->meta().set(key, value);
  }
  std::vector<Node*> to_process(users_.begin(), users_.end());
  std::vector<Node*> changed;
  changed.reserve(to_process.size());
  for (Node* user : to_process) {
    if (filter && !filter(user)) continue;
    user->replace_input_with(this, replacement);
    changed.push_back(user);
  }
  return changed;
}

void Node::replace_input_with(Node* old_input, Node* new_input) {
  auto swap_node = [&](Node* n) -> Argument { return n == old_input ? new_input : n; };
  set_args_kwargs(map_arg(args_, swap_node), map_arg(kwargs_, swap_node));
}

void Node::prepend(Node* other) {
  FX_DCHECK(other != nullptr && other->graph_ == graph_ && !other->erased_,
            "prepend: the node to move must be a live node of the same graph as '", name_, "'");
  if (other == this) return;
  graph_->unlink(other);
  graph_->link_before(other, this);
  graph_->order_valid_ = false;
  ++graph_->version_;
}

void Node::append(Node* other) {
  FX_DCHECK(other != nullptr && other->graph_ == graph_ && !other->erased_,
            "append: the node to move must be a live node of the same graph as '", name_, "'");
  if (other == this || next_ == other) return;
  graph_->unlink(other);
  graph_->link_before(other, next_);
  graph_->order_valid_ = false;
  ++graph_->version_;
}

bool Node::comes_before(const Node& other) const {
  graph_->ensure_order();
  return order_ < other.order_;
}

bool Node::is_impure() const {
  switch (op_) {
    case Op::kPlaceholder:
    case Op::kOutput:
      return true;
    case Op::kCallFunction:
    case Op::kCallMethod:
      return impure_ || is_side_effect_target(op_, *target_);
    default:
      return impure_;
  }
}

std::string Node::format() const { return format_node(*this); }

namespace {

struct SideEffectRegistry {
  absl::Mutex mu;
  absl::flat_hash_set<std::string> targets ABSL_GUARDED_BY(mu) = {
      // torch.fx's `_side_effectful_functions`, and their operator forms.
      // (Assertions: is_assertion_target.)
      "profiler::_record_function_enter",
      "profiler::_record_function_enter_new",
      "profiler::_record_function_exit",
      // Python's in-place operators and item assignment.
      "operator.setitem",
      "operator.iadd",
      "operator.iand",
      "operator.ifloordiv",
      "operator.ilshift",
      "operator.imod",
      "operator.imul",
      "operator.imatmul",
      "operator.ior",
      "operator.ipow",
      "operator.irshift",
      "operator.isub",
      "operator.itruediv",
      "operator.ixor",
      // TorchScript operators with effects that do not mutate a tensor argument.
      "aten::warn",
      "aten::_set_item",
      "prim::RaiseException",
      "prim::Print",
  };
};

SideEffectRegistry& side_effect_registry() {
  static SideEffectRegistry* registry = new SideEffectRegistry();
  return *registry;
}

// `ns::name.overload` -> `ns::name`; other names unchanged.
absl::string_view without_overload(absl::string_view target) {
  size_t ns = target.find("::");
  if (ns == absl::string_view::npos) return target;
  size_t dot = target.find('.', ns + 2);
  return dot == absl::string_view::npos ? target : target.substr(0, dot);
}

}  // namespace

void register_side_effect_target(absl::string_view target) {
  SideEffectRegistry& r = side_effect_registry();
  absl::MutexLock lock(&r.mu);
  r.targets.emplace(target);
}

bool is_assertion_target(absl::string_view target) {
  if (target == kAssertTarget || target == kAssertIsNoneTarget || target == kAssertIsNotNoneTarget) {
    return true;
  }
  const absl::string_view op = without_overload(target);
  return op == "aten::_assert_async" || op == "aten::_assert_scalar" ||
         op == "aten::_assert_tensor_metadata" || op == "aten::sym_constrain_range" ||
         op == "aten::sym_constrain_range_for_size";
}

bool is_side_effect_target(Op op, absl::string_view target) {
  if (op == Op::kCallMethod) return is_inplace_name(target) || target == "__setitem__";
  if (op != Op::kCallFunction) return false;
  if (is_inplace_name(function_base_name(target)) || is_assertion_target(target)) return true;
  SideEffectRegistry& r = side_effect_registry();
  absl::ReaderMutexLock lock(&r.mu);
  return r.targets.contains(target) || r.targets.contains(without_overload(target));
}

}  // namespace fx
