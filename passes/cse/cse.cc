// Copyright 2026 The FX for C++ Authors.
#include "passes/cse/cse.h"

#include <cstring>
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "passes/support/operator_effects.h"
#include "passes/support/operator_targets.h"
#include "runtime/graph_module.h"
#include "runtime/operator_aliasing.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// Whether calls of `target` (call_function or call_method) compute a value
// from their operands alone: an operator libtorch has, not random, with no
// overload that the call could resolve to that writes an argument.
bool target_is_pure(Op op, const std::string& target) {
  if (op == Op::kCallFunction) {
    if (target == kGetItemTarget || target == kGetAttrTarget) return true;
    if (const PythonOperator* py = find_python_operator(target)) {
      return py->kind != PythonOperator::Kind::kInplace;
    }
  }
  if (!names_aten_operator(op, target)) return false;
  if (!operator_overload(op, target).empty()) {
    auto exact = find_operator(target);
    return exact.ok() && !exact->schema->is_mutable() && !exact->is_random();
  }
  // Without an overload the arguments choose one at run time: any random
  // overload makes the call random. Mutating overloads (`out=`) are only
  // chosen by an `out` keyword, which the caller checks.
  std::vector<BoundOperator> overloads = find_overloads(operator_base_name(op, target));
  if (overloads.empty()) return false;
  for (const BoundOperator& o : overloads) {
    if (o.is_random()) return false;
  }
  return true;
}

bool is_assert(const Node& node) {
  return node.op() == Op::kCallFunction && is_assertion_target(node.target());
}

// Whether `node` may write to its operands: impure calls, and calls whose
// exact operator's schema is mutable, except assertions.
bool may_write_operands(const Node& node) {
  switch (node.op()) {
    case Op::kCallFunction:
    case Op::kCallMethod:
    case Op::kCallModule:
      break;
    default:
      return false;
  }
  if (is_assert(node)) return false;
  if (node.is_impure() || node.kwarg("out") != nullptr) return true;
  if (node.op() == Op::kCallFunction && !operator_overload(node.op(), node.target()).empty()) {
    auto exact = find_operator(node.target());
    return exact.ok() && exact->schema->is_mutable();
  }
  return false;
}

class Eliminator {
 public:
  explicit Eliminator(Graph& graph) : graph_(graph) {}

  size_t run() {
    graph_.ensure_order();
    analyse_storage();
    size_t removed = 0;
    for (Node* node : graph_.nodes()) {
      if (node->op() == Op::kCallModule) ++epoch_[classes_->find(kState)];
      if (may_write_operands(*node)) {
        for (Node* input : node->input_nodes()) ++epoch_[classes_->find(index(input))];
        continue;
      }
      if (!mergeable(*node)) continue;
      std::string key = key_of(*node);
      auto [it, inserted] = seen_.emplace(std::move(key), node);
      if (inserted) continue;
      node->replace_all_uses_with(it->second);
      if (graph_.erase_node(node).ok()) ++removed;
    }
    return removed;
  }

 private:
  size_t index(const Node* node) const { return static_cast<size_t>(Graph::order_of(*node)) + 1; }
  // The class of the module's tensors and the graph's inputs (which may be
  // one tensor given twice, or a module tensor given as an input).
  static constexpr size_t kState = 0;

  // Which values may share storage, and which storage the graph writes.
  // Without writes aliasing cannot change a value, so nothing is united. A
  // fresh result (relu, conv) starts a class of its own: a write to it (an
  // in-place relu_ after it) changes no operand of it. A module call may
  // write any tensor of the module's state in place (a BatchNorm's running
  // statistics in training, a cache's memory), so it writes the state's
  // class, and every view of a module tensor is in that class.
  void analyse_storage() {
    classes_.emplace(static_cast<size_t>(graph_.order_bound()) + 1);
    epoch_.assign(graph_.order_bound() + 1, 0);
    written_.assign(graph_.order_bound() + 1, false);
    bool writes = false;
    for (Node* node : graph_.nodes()) {
      writes = writes || may_write_operands(*node) || node->op() == Op::kCallModule;
    }
    if (!writes) return;
    for (Node* node : graph_.nodes()) {
      // A module call may return its module's state (`return self.mem`).
      if (node->op() == Op::kPlaceholder || node->op() == Op::kGetAttr ||
          node->op() == Op::kCallModule) {
        classes_->unite(index(node), kState);
      }
      if (node->op() != Op::kPlaceholder && node->op() != Op::kGetAttr &&
          result_may_alias_operands(*node)) {
        for (Node* input : node->input_nodes()) classes_->unite(index(node), index(input));
      }
    }
    for (Node* node : graph_.nodes()) {
      if (node->op() == Op::kCallModule) written_[classes_->find(kState)] = true;
      if (!may_write_operands(*node)) continue;
      for (Node* input : node->input_nodes()) written_[classes_->find(index(input))] = true;
    }
  }

  bool mergeable(const Node& node) {
    if (written_[classes_->find(index(&node))]) return false;
    if (node.op() == Op::kGetAttr) return true;
    if (node.op() != Op::kCallFunction && node.op() != Op::kCallMethod) return false;
    if (node.is_impure()) return false;
    auto [it, inserted] = pure_targets_.try_emplace(
        std::make_pair(node.op(), &node.target()), false);
    if (inserted) it->second = target_is_pure(node.op(), node.target());
    return it->second;
  }

  void append_bytes(std::string& out, const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
  }
  void append_int(std::string& out, int64_t v) { append_bytes(out, &v, sizeof v); }
  void append_string(std::string& out, const std::string& s) {
    append_int(out, static_cast<int64_t>(s.size()));
    out.append(s);
  }

  // An operand as the key holds it: its kind, then its value bit for bit; a
  // node by its position and the number of writes its storage had so far.
  void append_argument(std::string& out, const Argument& a) {
    out.push_back(static_cast<char>(a.kind()));
    switch (a.kind()) {
      case Argument::Kind::kNone:
        return;
      case Argument::Kind::kBool:
        out.push_back(a.to_bool() ? 1 : 0);
        return;
      case Argument::Kind::kInt:
        append_int(out, a.to_int());
        return;
      case Argument::Kind::kDouble: {
        double d = a.to_double();
        append_bytes(out, &d, sizeof d);
        return;
      }
      case Argument::Kind::kString:
        append_string(out, a.to_string());
        return;
      case Argument::Kind::kNode: {
        const Node* n = a.to_node();
        append_int(out, static_cast<int64_t>(index(n)));
        append_int(out, static_cast<int64_t>(epoch_[classes_->find(index(n))]));
        return;
      }
      case Argument::Kind::kList:
      case Argument::Kind::kTuple:
        if (a.is_named_tuple()) {
          append_string(out, a.tuple_type_name());
          for (const std::string& f : a.tuple_fields()) append_string(out, f);
        }
        append_int(out, static_cast<int64_t>(a.elements().size()));
        for (const Argument& e : a.elements()) append_argument(out, e);
        return;
      case Argument::Kind::kDict:
        append_int(out, static_cast<int64_t>(a.dict_items().size()));
        for (const auto& [k, v] : a.dict_items()) {
          append_string(out, k);
          append_argument(out, v);
        }
        return;
      case Argument::Kind::kDtype:
        append_int(out, static_cast<int64_t>(a.to_dtype()));
        return;
      case Argument::Kind::kDevice:
        append_int(out, static_cast<int64_t>(a.to_device().type()));
        append_int(out, a.to_device().index());
        return;
      case Argument::Kind::kLayout:
        append_int(out, static_cast<int64_t>(a.to_layout()));
        return;
      case Argument::Kind::kMemoryFormat:
        append_int(out, static_cast<int64_t>(a.to_memory_format()));
        return;
    }
  }

  std::string key_of(const Node& node) {
    std::string key;
    key.push_back(static_cast<char>(node.op()));
    append_string(key, node.target());
    append_string(key, node.type());
    append_int(key, static_cast<int64_t>(node.args().size()));
    for (const Argument& a : node.args()) append_argument(key, a);
    append_int(key, static_cast<int64_t>(node.kwargs().size()));
    for (const auto& [k, v] : node.kwargs()) {
      append_string(key, k);
      append_argument(key, v);
    }
    return key;
  }

  Graph& graph_;
  std::optional<AliasClasses> classes_;
  std::vector<uint64_t> epoch_;     // by storage class: writes seen so far
  std::vector<bool> written_;       // by storage class: written anywhere
  absl::flat_hash_map<std::string, Node*> seen_;
  absl::flat_hash_map<std::pair<Op, const std::string*>, bool> pure_targets_;
};

}  // namespace

size_t eliminate_common_subexpressions(Graph& graph) { return Eliminator(graph).run(); }

absl::Status CommonSubexpressionElimination::run(GraphModule& module, PassContext&) {
  eliminate_common_subexpressions(module.graph());
  return absl::OkStatus();
}

void register_cse(PluginRegistrar& registrar) {
  registrar.add_pass<CommonSubexpressionElimination>(
      "cse",
      "merges nodes that compute the same pure operation on the same operands (not random, "
      "in-place or mutated ones)");
}

}  // namespace fx
