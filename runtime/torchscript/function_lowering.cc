// Copyright 2026 The FX for C++ Authors.
//
// Partial evaluation of leaf functions (function_lowering.h): bind the
// literals as constants into a copy of the body, let TorchScript's passes fold
// what they decide, and emit the straight-line calls that remain as nodes.
#include "runtime/torchscript/function_lowering.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/torchscript/script_callables.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

namespace jit = torch::jit;

// What a function parameter is bound to: a node of the graph (stays an input
// of the lowered calls) or a constant (a literal, or the default).
struct Binding {
  Node* node = nullptr;
  c10::IValue constant;
};

// The node's arguments bound to `schema`'s parameters, or nullopt when some
// argument is neither a node nor a literal, or a literal the function would
// refuse (the call keeps its error then).
std::optional<std::vector<Binding>> bind(const c10::FunctionSchema& schema, const Node& node) {
  std::vector<std::string> names;
  std::vector<const Argument*> keyword;
  for (const auto& [key, a] : node.kwargs()) {
    names.push_back(key);
    keyword.push_back(&a);
  }
  auto positions = bind_positions(schema, node.args().size(), names);
  if (!positions.ok()) return std::nullopt;
  std::vector<Binding> out(schema.arguments().size());
  for (size_t i = 0; i < out.size(); ++i) {
    const c10::Argument& param = schema.arguments()[i];
    const ParamBinding& b = (*positions)[i];
    const Argument* arg = nullptr;
    switch (b.kind) {
      case ParamBinding::kDefault:
        out[i].constant = *param.default_value();
        continue;
      case ParamBinding::kPositional:
        arg = &node.args()[b.index];
        break;
      case ParamBinding::kKeyword:
        arg = keyword[b.index];
        break;
      case ParamBinding::kPacked:
        return std::nullopt;  // a function call packs nothing
    }
    if (arg->is_node()) {
      out[i].node = arg->to_node();
      continue;
    }
    if (arg->contains_node()) return std::nullopt;
    // As the call converts it, and checked as the call checks it.
    auto value = argument_to_ivalue(*arg, nullptr);
    if (!value.ok() || value->isTensor() || !value->type()->isSubtypeOf(*param.type())) {
      return std::nullopt;
    }
    out[i].constant = *std::move(value);
  }
  return out;
}

// The body of `function` specialised to `bindings`: constants in place of
// bound literals, nested calls inlined, folded and cleaned.
std::shared_ptr<jit::Graph> specialised_body(jit::Function& function,
                                             const std::vector<Binding>& bindings) {
  jit::GraphFunction* body = jit::tryToGraphFunction(function);
  if (body == nullptr) return nullptr;
  std::shared_ptr<jit::Graph> graph = body->graph()->copy();
  if (graph->inputs().size() != bindings.size()) return nullptr;
  jit::WithInsertPoint at_start(graph->block()->nodes().front());
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i].node != nullptr) continue;
    c10::optional<jit::Value*> constant = jit::tryInsertConstant(*graph, bindings[i].constant);
    if (!constant) return nullptr;
    graph->inputs()[i]->replaceAllUsesWith(*constant);
  }
  jit::Inline(*graph);
  jit::ConstantPropagation(graph);
  jit::LowerSimpleTuples(graph);
  jit::EliminateDeadCode(graph);
  return graph;
}

bool writes_non_tensor(const c10::FunctionSchema& schema) {
  for (const c10::Argument& a : schema.arguments()) {
    if (a.alias_info() != nullptr && a.alias_info()->isWrite() &&
        !a.type()->isSubtypeOf(*c10::TensorType::get()) &&
        !a.type()->isSubtypeOf(*c10::OptionalType::ofTensor())) {
      return true;
    }
  }
  return false;
}

bool has_free_variables(const c10::FunctionSchema& schema) {
  for (const c10::Argument& a : schema.arguments()) {
    if (a.type()->hasFreeVariables()) return true;
  }
  for (const c10::Argument& r : schema.returns()) {
    if (r.type()->hasFreeVariables()) return true;
  }
  return false;
}

// The operator calls of a specialised body, as nodes of an FX graph.
class Emitter {
 public:
  Emitter(const jit::Graph& body, const std::vector<Binding>& bindings)
      : body_(body), bindings_(bindings) {}

  // Whether the body is straight-line calls to registered operators that
  // end in the function's result (after dead-code elimination, the last
  // call). Records the calls for emit().
  bool lowerable() {
    if (body_.outputs().size() != 1) return false;
    for (const jit::Node* n : body_.nodes()) {
      const c10::Symbol kind = n->kind();
      if (kind == c10::prim::Constant || kind == c10::prim::ListConstruct ||
          kind == c10::prim::TupleConstruct) {
        continue;
      }
      if (!is_call(*n) || n->outputs().size() != 1) return false;
      calls_.push_back(n);
    }
    return !calls_.empty() && calls_.back() == body_.outputs()[0]->node();
  }

  // Emits the calls lowerable() found before `node` and makes `node` the
  // last of them. On failure the graph is as it was.
  bool emit(Graph& graph, Node& node) {
    std::vector<Node*> emitted;
    auto undo = [&] {
      for (auto it = emitted.rbegin(); it != emitted.rend(); ++it) (void)graph.erase_node(*it);
      return false;
    };
    InsertionGuard guard = graph.inserting_before(&node);
    for (const jit::Node* n : calls_) {
      Arguments args;
      Kwargs kwargs;
      if (!call_arguments(*n, args, kwargs)) return undo();
      const std::string target = operator_name(n->schema());
      if (n == calls_.back()) {
        node.set_target(target);
        node.set_args_kwargs(std::move(args), std::move(kwargs));
        return true;
      }
      // Named after the node it comes from, so errors point there.
      emitted.push_back(graph.create_node(Op::kCallFunction, target, std::move(args),
                                          std::move(kwargs),
                                          absl::StrCat(node.name(), "_", n->kind().toUnqualString())));
      emitted_[n->output()] = emitted.back();
    }
    return undo();
  }

 private:
  static bool is_call(const jit::Node& n) {
    const c10::FunctionSchema* schema = n.maybeSchema();
    return schema != nullptr && n.maybeOperator() != nullptr && n.blocks().empty() &&
           !n.hasSideEffects() && !writes_non_tensor(*schema) && !has_free_variables(*schema) &&
           find_operator(operator_name(*schema)).ok();
  }

  bool call_arguments(const jit::Node& n, Arguments& args, Kwargs& kwargs) const {
    const c10::FunctionSchema& schema = n.schema();
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
      const c10::Argument& param = schema.arguments()[i];
      std::optional<Argument> value = argument_for(n.inputs()[i], param.type());
      if (!value) return false;
      if (param.kwarg_only()) {
        kwargs.emplace_back(param.name(), *std::move(value));
      } else {
        args.push_back(*std::move(value));
      }
    }
    return true;
  }

  // `value` as an FX argument for a parameter of `type`.
  std::optional<Argument> argument_for(const jit::Value* value, const c10::TypePtr& type) const {
    const jit::Node* producer = value->node();
    if (producer->kind() == c10::prim::Param) {
      const Binding& b = bindings_[value->offset()];
      if (b.node == nullptr) return std::nullopt;  // replaced by a constant before
      return Argument(b.node);
    }
    if (auto it = emitted_.find(value); it != emitted_.end()) return Argument(it->second);
    if (producer->kind() == c10::prim::Constant) {
      c10::optional<c10::IValue> constant = jit::toIValue(value);
      if (!constant || constant->isTensor()) return std::nullopt;
      auto literal = ivalue_to_argument(*constant, type);
      if (!literal.ok()) return std::nullopt;
      return *std::move(literal);
    }
    const bool list = producer->kind() == c10::prim::ListConstruct;
    if (!list && producer->kind() != c10::prim::TupleConstruct) return std::nullopt;
    std::vector<Argument> items;
    const c10::TypePtr element_type = list ? element_of(type) : nullptr;
    for (size_t i = 0; i < producer->inputs().size(); ++i) {
      c10::TypePtr item_type = element_type;
      if (!list) item_type = tuple_element_of(type, i);
      std::optional<Argument> item = argument_for(producer->inputs()[i], item_type);
      if (!item) return std::nullopt;
      items.push_back(*std::move(item));
    }
    return list ? Argument::List(std::move(items)) : Argument::Tuple(std::move(items));
  }

  static c10::TypePtr element_of(const c10::TypePtr& type) {
    const c10::TypePtr t = without_optional(type);
    if (t == nullptr) return nullptr;
    if (auto l = t->cast<c10::ListType>()) return l->getElementType();
    return nullptr;
  }

  static c10::TypePtr tuple_element_of(const c10::TypePtr& type, size_t i) {
    const c10::TypePtr t = without_optional(type);
    if (t == nullptr) return nullptr;
    if (auto tuple = t->cast<c10::TupleType>(); tuple && i < tuple->elements().size()) {
      return tuple->elements()[i];
    }
    return nullptr;
  }

  const jit::Graph& body_;
  const std::vector<Binding>& bindings_;
  std::vector<const jit::Node*> calls_;  // in order; the last gives the result
  absl::flat_hash_map<const jit::Value*, Node*> emitted_;
};

// The function `node` calls and how its arguments bind, when exactly one
// recorded function (overload) takes its literals.
jit::Function* chosen_function(const ScriptCallee& callee, const Node& node,
                               std::vector<Binding>& bindings) {
  jit::Function* chosen = nullptr;
  for (const std::shared_ptr<const ScriptCall>& call : callee.overloads) {
    jit::Function* f = call->function;
    if (f == nullptr) continue;
    std::optional<std::vector<Binding>> b = bind(f->getSchema(), node);
    if (!b) continue;
    if (chosen != nullptr) return nullptr;  // the run-time values decide
    chosen = f;
    bindings = *std::move(b);
  }
  return chosen;
}

}  // namespace

size_t lower_leaf_functions(GraphModule& gm) {
  size_t lowered = 0;
  std::vector<Node*> calls = gm.graph().find_nodes(Op::kCallFunction);
  for (Node* node : calls) {
    auto target = lookup_target(gm, *node);
    if (!target.ok() || target->script == nullptr) continue;
    std::vector<Binding> bindings;
    jit::Function* function = chosen_function(*target->script, *node, bindings);
    if (function == nullptr) continue;
    std::shared_ptr<jit::Graph> body;
    try {
      body = specialised_body(*function, bindings);
    } catch (const std::exception&) {
      continue;  // TorchScript could not specialise it: the call stays
    }
    if (body == nullptr) continue;
    Emitter emitter(*body, bindings);
    if (!emitter.lowerable()) continue;
    if (emitter.emit(gm.graph(), *node)) ++lowered;
  }
  return lowered;
}

}  // namespace fx
