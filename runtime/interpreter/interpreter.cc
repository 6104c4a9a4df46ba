// Copyright 2026 The FX for C++ Authors.
#include "runtime/interpreter/interpreter.h"

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/last_uses.h"
#include "core/printer.h"
#include "runtime/input_constraints.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/operator_binding.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/value_conversion.h"

namespace fx {

// What is resolved once per node.
struct NodePlan {
  const Node* node = nullptr;
  uint64_t slot = 0;
  // Slots whose last use is this node.
  std::vector<uint64_t> release;
  int placeholder_index = -1;
  NodeTarget target;
  // call_function / call_method of an operator, once resolved.
  bool resolved = false;
  ResolvedCall call;
};

namespace {

NodePlan* find_plan(std::vector<NodePlan>& nodes, const Node& node) {
  const uint64_t slot = Graph::order_of(node);
  // Plans are in graph order and slots grow with it: binary search.
  auto it = std::lower_bound(nodes.begin(), nodes.end(), slot,
                             [](const NodePlan& p, uint64_t s) { return p.slot < s; });
  return it != nodes.end() && it->node == &node ? &*it : nullptr;
}


}  // namespace

struct Interpreter::Plan {
  std::vector<NodePlan> nodes;
  std::vector<const Node*> placeholders;
  uint64_t bound = 0;
  InputConstraints constraints;
};

Interpreter::Interpreter(GraphModule& module) : module_(module) {}
Interpreter::~Interpreter() = default;

absl::Status Interpreter::build_plan() {
  const Graph& graph = module_.graph();
  graph.ensure_order();
  auto plan = std::make_unique<Plan>();
  plan->bound = graph.order_bound();
  plan->nodes.reserve(graph.size());
  for (const Node* n : graph.nodes()) {
    NodePlan p;
    p.node = n;
    p.slot = Graph::order_of(*n);
    if (n->op() == Op::kPlaceholder) {
      p.placeholder_index = static_cast<int>(plan->placeholders.size());
      plan->placeholders.push_back(n);
    }
    auto target = lookup_target(module_, *n);
    if (!target.ok()) return target.status();
    p.target = *std::move(target);
    plan->nodes.push_back(std::move(p));
  }
  auto constraints = InputConstraints::from_graph(graph);
  if (!constraints.ok()) return constraints.status();
  plan->constraints = *std::move(constraints);
  // Release each value after its last user.
  const LastUses last_uses(graph);
  for (NodePlan& p : plan->nodes) {
    for (const Node* dead : last_uses.freed_after(*p.node)) {
      p.release.push_back(Graph::order_of(*dead));
    }
  }
  plan_ = std::move(plan);
  plan_version_ = module_.version();
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Interpreter::run(std::vector<c10::IValue> inputs) {
  // The graph or the state changed (a leaf module's object is made from the state).
  if (!plan_ || plan_version_ != module_.version()) {
    if (absl::Status s = build_plan(); !s.ok()) return s;
  }
  const auto& placeholders = plan_->placeholders;
  if (inputs.size() > placeholders.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "forward takes ", placeholders.size(), " input(s) (",
        absl::StrJoin(placeholders, ", ", NodeNameFormatter()),
        ") but ", inputs.size(), " were given"));
  }
  if (absl::Status s = plan_->constraints.check(inputs); !s.ok()) return s;
  inputs_ = std::move(inputs);
  env_.assign(plan_->bound, c10::IValue());
  has_value_.assign(plan_->bound, 0);
  // Nothing of a run outlives it, whichever way it ends.
  absl::Cleanup release_run = [this] {
    env_.clear();
    inputs_.clear();
  };
  c10::IValue result;
  for (NodePlan& p : plan_->nodes) {
    auto value = run_node(*p.node);
    if (!value.ok()) return value.status();
    if (p.node->op() == Op::kOutput) result = *value;
    env_[p.slot] = std::move(*value);
    has_value_[p.slot] = 1;
    for (uint64_t slot : p.release) env_[slot] = c10::IValue();
  }
  return result;
}

absl::StatusOr<c10::IValue> Interpreter::value_of(const Node& node) const {
  const uint64_t slot = Graph::order_of(node);
  if (&node.graph() != &module_.graph() || slot >= has_value_.size() || !has_value_[slot]) {
    return absl::FailedPreconditionError(
        absl::StrCat("the value of node '", node.name(), "' is not available"));
  }
  return env_[slot];
}

absl::Status Interpreter::fetch_args(const Node& node, std::vector<c10::IValue>* args,
                                     IValueKwargs* kwargs) const {
  const NodeValueFn lookup = [this](Node* n) { return value_of(*n); };
  args->clear();
  args->reserve(node.args().size());
  for (const Argument& a : node.args()) {
    auto v = argument_to_ivalue(a, nullptr, lookup);
    if (!v.ok()) return node_error(node, v.status().message());
    args->push_back(std::move(*v));
  }
  kwargs->clear();
  for (const auto& [key, a] : node.kwargs()) {
    auto v = argument_to_ivalue(a, nullptr, lookup);
    if (!v.ok()) return node_error(node, v.status().message());
    kwargs->emplace_back(key, std::move(*v));
  }
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Interpreter::run_node(const Node& node) {
  switch (node.op()) {
    case Op::kPlaceholder: {
      const NodePlan* p = find_plan(plan_->nodes, node);
      std::optional<c10::IValue> input;
      if (p != nullptr && p->placeholder_index >= 0 &&
          static_cast<size_t>(p->placeholder_index) < inputs_.size()) {
        input = inputs_[p->placeholder_index];
      }
      return placeholder(node, std::move(input));
    }
    case Op::kGetAttr:
      return get_attr(node);
    case Op::kOutput: {
      const Argument result = node.args().empty() ? Argument() : node.args()[0];
      auto v = argument_to_ivalue(result, nullptr, [this](Node* n) { return value_of(*n); });
      if (!v.ok()) return node_error(node, v.status().message());
      return output(node, std::move(*v));
    }
    default:
      break;
  }
  std::vector<c10::IValue> args;
  IValueKwargs kwargs;
  if (absl::Status s = fetch_args(node, &args, &kwargs); !s.ok()) return s;
  switch (node.op()) {
    case Op::kCallFunction:
      return call_function(node, std::move(args), std::move(kwargs));
    case Op::kCallMethod:
      return call_method(node, std::move(args), std::move(kwargs));
    default:
      return call_module(node, std::move(args), std::move(kwargs));
  }
}

absl::StatusOr<c10::IValue> Interpreter::placeholder(const Node& node,
                                                     std::optional<c10::IValue> input) {
  const NodePlan* p = find_plan(plan_->nodes, node);
  const int index = p != nullptr ? p->placeholder_index : -1;
  if (!input.has_value()) {
    if (node.args().empty()) {
      return absl::InvalidArgumentError(absl::StrCat("missing input ", index, " (placeholder '",
                                                     node.name(), "'), which has no default"));
    }
    auto v = argument_to_ivalue(node.args()[0], nullptr);
    if (!v.ok()) return node_error(node, v.status().message());
    return *v;
  }
  if (absl::Status s = check_input_type(node, index, *input); !s.ok()) return s;
  return *std::move(input);
}

absl::StatusOr<c10::IValue> Interpreter::get_attr(const Node& node) {
  if (const NodePlan* p = find_plan(plan_->nodes, node)) return read_attribute(node, p->target);
  return module_.get_attr(node.target());
}


namespace {

absl::StatusOr<c10::IValue> run_operator(NodePlan& p, std::vector<c10::IValue> args,
                                         const IValueKwargs& kwargs) {
  if (!p.resolved) {
    if (p.target.exact) {
      p.call.op = p.target.op;
      p.call.wrap_numbers = true;
    } else {
      auto call = resolve_call(*p.node, args, kwargs);
      if (!call.ok()) return call.status();
      p.call = *std::move(call);
    }
    p.resolved = true;
  }
  return call_operator(*p.node, p.call, std::move(args), kwargs);
}

}  // namespace

absl::StatusOr<c10::IValue> Interpreter::call_function(const Node& node,
                                                       std::vector<c10::IValue> args,
                                                       IValueKwargs kwargs) {
  NodePlan* p = find_plan(plan_->nodes, node);
  if (p == nullptr) return node_error(node, "the node is not part of the plan");
  NodeTarget& t = p->target;
  if (t.builtin != Builtin::kNone) {
    try {
      return run_builtin(node, t.builtin, args, kwargs);
    } catch (const std::exception& e) {  // e.g. `not x` on a tensor of several values
      return node_error(node, exception_message(e));
    }
  }
  if (t.script != nullptr) return call_script(node, *t.script, std::move(args), kwargs);
  return run_operator(*p, std::move(args), kwargs);
}

absl::StatusOr<c10::IValue> Interpreter::call_method(const Node& node,
                                                     std::vector<c10::IValue> args,
                                                     IValueKwargs kwargs) {
  NodePlan* p = find_plan(plan_->nodes, node);
  if (p == nullptr) return node_error(node, "the node is not part of the plan");
  if (args.empty()) return node_error(node, "a method call needs the object as args[0]");
  return run_operator(*p, std::move(args), kwargs);
}

absl::StatusOr<c10::IValue> Interpreter::call_module(const Node& node,
                                                     std::vector<c10::IValue> args,
                                                     IValueKwargs kwargs) {
  NodePlan* p = find_plan(plan_->nodes, node);
  if (p == nullptr) return node_error(node, "the submodule was not resolved");
  NodeTarget& t = p->target;
  if (t.graph_module != nullptr) {
    // A graph submodule runs as a whole (as torch.fx's Interpreter calls a
    // submodule), by its plan, compiled at its first call. Autograd records
    // as in the rest of the Interpreter's run.
    if (t.graph_module_plan == nullptr) {
      PlanOptions options;
      options.inference_mode = false;
      options.plan_memory = false;
      if (absl::Status s = compile_graph_submodule(node, t, options); !s.ok()) return s;
    }
    return call_graph_module(node, *t.graph_module_plan, std::move(args), kwargs);
  }
  if (t.script == nullptr) return node_error(node, "the submodule has no code to call");
  return call_script(node, *t.script, std::move(args), kwargs);
}

absl::StatusOr<c10::IValue> Interpreter::output(const Node& node, c10::IValue value) {
  return value;
}

}  // namespace fx
