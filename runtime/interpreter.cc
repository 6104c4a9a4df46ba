// Copyright 2026 The FX for C++ Authors.
#include "runtime/interpreter.h"

#include <ATen/ScalarOps.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/method.h>
#include <torch/csrc/jit/mobile/type_parser.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/last_uses.h"
#include "core/naming.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "core/well_known.h"

namespace fx {
namespace {

// Natively implemented call_function targets.
enum class Builtin { kNone, kGetItem, kNot, kPos, kGetAttr, kAssert, kAssertIsNone };

Builtin builtin_for(absl::string_view target) {
  if (target == kGetItemTarget) return Builtin::kGetItem;
  if (target == kNotTarget) return Builtin::kNot;
  if (target == "operator.pos") return Builtin::kPos;
  if (target == kGetAttrTarget) return Builtin::kGetAttr;
  if (target == kAssertTarget) return Builtin::kAssert;
  if (target == kAssertIsNoneTarget) return Builtin::kAssertIsNone;
  return Builtin::kNone;
}

// How a Python-level target maps to aten: the aten names to search, in
// order, and what to do with a leading number in `number op tensor`.
struct PythonTarget {
  std::vector<std::string> aten_names;
  std::string reflected_name;  // 2 - x == rsub(x, 2); 2 + x == add(x, 2)
};

absl::StatusOr<PythonTarget> python_target(Op op, absl::string_view target) {
  if (op == Op::kCallMethod) return PythonTarget{{absl::StrCat("aten::", target)}, ""};
  if (const PythonOperator* py = find_python_operator(target)) {
    return PythonTarget{absl::StrSplit(py->aten, '|', absl::SkipEmpty()),
                        std::string(py->reflected)};
  }
  if (absl::StartsWith(target, kOperatorModulePrefix)) {
    return absl::UnimplementedError(absl::StrCat("no aten operator for ", target));
  }
  if (target.find("::") != absl::string_view::npos) {
    // `ns::name` without an overload: any overload that fits.
    return PythonTarget{{std::string(target)}, ""};
  }
  if (target.substr(0, 6) == "torch." || target.find('.') == absl::string_view::npos) {
    return PythonTarget{{absl::StrCat("aten::", function_base_name(target))}, ""};
  }
  return absl::UnimplementedError(absl::StrCat(
      "cannot run call_function target '", target,
      "': it is neither an operator (ns::name.overload) nor a torch, operator or builtin function"));
}

bool is_number(const c10::IValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }

// A Python number as the 0-dim "wrapped number" tensor torch makes of it.
c10::IValue wrap_number(const c10::IValue& v) {
  at::Tensor t = c10::scalar_to_tensor(v.toScalar());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

std::string describe_target(const Node& node) {
  if (node.op() == Op::kCallFunction) return spell_function_target(node.target(), TargetStyle::kGraph);
  return absl::StrCat(op_name(node.op()), " ", node.target());
}

absl::Status node_error(const Node& node, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (",
                                                 describe_target(node), "): ", message));
}

// Checks a caller's input against a placeholder's TorchScript type, when known.
absl::Status check_input_type(const Node& node, size_t index, const c10::IValue& value) {
  std::string annotation;
  if (const MetaValue* t = node.meta().find(kTorchScriptTypeKey); t != nullptr && t->is_string()) {
    annotation = t->to_string();
  } else if (node.type() == "torch.Tensor") {
    annotation = "Tensor";
  } else {
    return absl::OkStatus();
  }
  c10::TypePtr expected;
  try {
    expected = c10::parseType(annotation);
  } catch (const std::exception&) {
    return absl::OkStatus();  // an annotation we cannot check
  }
  if (value.type()->isSubtypeOf(*expected) ||
      (expected->kind() == c10::TypeKind::FloatType && value.isInt())) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("input ", index, " (placeholder '", node.name(),
                                                 "') must be ", annotation, " but got ",
                                                 value.type()->repr_str()));
}

}  // namespace

// What is resolved once per node.
struct NodePlan {
  const Node* node = nullptr;
  uint64_t slot = 0;
  // Slots whose last use is this node.
  std::vector<uint64_t> release;
  int placeholder_index = -1;
  Builtin builtin = Builtin::kNone;
  // call_function / call_method: the operator, once resolved.
  bool resolved = false;
  BoundOperator op;
  bool exact = false;         // the target names one overload
  bool swap_operands = false;  // reflected commutative operator
  bool wrap_first = false;     // reflected operator on a wrapped number
  // call_function of a TorchScript function of the model (a leaf function)
  torch::jit::Function* function = nullptr;
  // ... when several TorchScript overloads share the target: chosen at the
  // first call, by the arguments they accept.
  std::vector<torch::jit::Function*> function_overloads;
  // call_module: the submodule's forward, or its TorchScript overloads
  // (`forward__0`, `forward__1`: nn.LSTM's), one chosen at the first call.
  c10::optional<torch::jit::Method> method;
  std::vector<torch::jit::Method> method_overloads;
  // get_attr
  c10::IValue attr;
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
    switch (n->op()) {
      case Op::kPlaceholder:
        p.placeholder_index = static_cast<int>(plan->placeholders.size());
        plan->placeholders.push_back(n);
        break;
      case Op::kGetAttr: {
        auto value = module_.get_attr(n->target());
        if (!value.ok()) return node_error(*n, value.status().message());
        p.attr = std::move(*value);
        break;
      }
      case Op::kCallFunction:
        p.builtin = builtin_for(n->target());
        if (p.builtin != Builtin::kNone) break;
        if (n->target().find("::") != std::string::npos) {
          auto op = find_operator(n->target());
          // `ns::name` without overload is resolved by argument types later.
          if (op.ok()) {
            p.op = *op;
            p.resolved = p.exact = true;
          } else if (n->target().find('.') != std::string::npos) {
            return node_error(*n, op.status().message());
          }
        } else if (!module_.find_functions(n->target()).empty()) {
          // A leaf function the tracer recorded: run through its body.
          p.function_overloads = module_.find_functions(n->target());
          if (p.function_overloads.size() == 1) p.function = p.function_overloads[0];
        } else if (auto cu = module_.root()._ivalue()->compilation_unit()) {
          // A function of the model's code, by name.
          const std::string name = absl::StartsWith(n->target(), "__torch__.")
                                       ? n->target()
                                       : absl::StrCat("__torch__.", n->target());
          p.function = cu->find_function(c10::QualifiedName(name));
        }
        break;
      case Op::kCallModule: {
        auto sub = module_.get_submodule(n->target());
        if (!sub.ok()) return node_error(*n, sub.status().message());
        if (auto method = sub->find_method("forward")) {
          p.method = *method;
          break;
        }
        for (const torch::jit::Method& m : sub->get_methods()) {
          if (absl::StartsWith(m.name(), "forward__")) p.method_overloads.push_back(m);
        }
        if (p.method_overloads.empty()) {
          return node_error(*n, "the submodule has no forward method");
        }
        break;
      }
      default:
        break;
    }
    plan->nodes.push_back(std::move(p));
  }
  // Release each value after its last user.
  const LastUses last_uses(graph);
  for (NodePlan& p : plan->nodes) {
    for (const Node* dead : last_uses.freed_after(*p.node)) {
      p.release.push_back(Graph::order_of(*dead));
    }
  }
  plan_ = std::move(plan);
  plan_version_ = graph.version();
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Interpreter::run(std::vector<c10::IValue> inputs) {
  if (!plan_ || plan_version_ != module_.graph().version()) {
    if (absl::Status s = build_plan(); !s.ok()) return s;
  }
  const auto& placeholders = plan_->placeholders;
  if (inputs.size() > placeholders.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "forward takes ", placeholders.size(), " input(s) (",
        absl::StrJoin(placeholders, ", ", NodeNameFormatter()),
        ") but ", inputs.size(), " were given"));
  }
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
  if (const NodePlan* p = find_plan(plan_->nodes, node)) return p->attr;
  return module_.get_attr(node.target());
}

namespace {

absl::StatusOr<c10::IValue> run_builtin(const Node& node, Builtin builtin,
                                        std::vector<c10::IValue>& args) {
  auto arity = [&](size_t n) -> absl::Status {
    if (args.size() == n) return absl::OkStatus();
    return node_error(node, absl::StrCat("expects ", n, " arguments, got ", args.size()));
  };
  switch (builtin) {
    case Builtin::kGetItem: {
      if (absl::Status s = arity(2); !s.ok()) return s;
      const c10::IValue& seq = args[0];
      if ((seq.isList() || seq.isTuple()) && args[1].isInt()) {
        const std::vector<c10::IValue> items = sequence_elements(seq);
        int64_t i = args[1].toInt();
        const int64_t n = static_cast<int64_t>(items.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) {
          return node_error(node, absl::StrCat("index ", args[1].toInt(), " out of range for ",
                                               n, " elements"));
        }
        return items[i];
      }
      if (seq.isGenericDict()) {
        auto dict = seq.toGenericDict();
        auto it = dict.find(args[1]);
        if (it == dict.end()) return node_error(node, "key not found");
        return it->value();
      }
      if (seq.isTensor() && args[1].isInt()) return seq.toTensor().select(0, args[1].toInt());
      return node_error(node, absl::StrCat("cannot index a ", seq.tagKind(), " with a ",
                                           args[1].tagKind()));
    }
    case Builtin::kNot:
      if (absl::Status s = arity(1); !s.ok()) return s;
      if (args[0].isBool()) return c10::IValue(!args[0].toBool());
      if (args[0].isInt()) return c10::IValue(args[0].toInt() == 0);
      if (args[0].isTensor()) return c10::IValue(!args[0].toTensor().item<bool>());
      return node_error(node, absl::StrCat("cannot negate a ", args[0].tagKind()));
    case Builtin::kPos:
      if (absl::Status s = arity(1); !s.ok()) return s;
      return args[0];
    case Builtin::kGetAttr: {
      if (absl::Status s = arity(2); !s.ok()) return s;
      if (!args[0].isTensor() || !args[1].isString()) {
        return node_error(node, "getattr runs on a tensor and an attribute name");
      }
      const at::Tensor& t = args[0].toTensor();
      const std::string& attr = args[1].toStringRef();
      if (attr == "shape") return c10::IValue(c10::List<int64_t>(t.sizes()));
      if (attr == "dtype") return c10::IValue(static_cast<int64_t>(t.scalar_type()));
      if (attr == "device") return c10::IValue(t.device());
      if (attr == "ndim") return c10::IValue(t.dim());
      return node_error(node, absl::StrCat("unsupported tensor attribute '", attr, "'"));
    }
    case Builtin::kAssert: {
      if (args.empty() || args.size() > 2) return node_error(node, "expects (condition, message)");
      bool ok = false;
      if (args[0].isBool()) {
        ok = args[0].toBool();
      } else if (args[0].isTensor()) {
        ok = args[0].toTensor().item<bool>();
      } else if (args[0].isInt()) {
        ok = args[0].toInt() != 0;
      } else {
        return node_error(node, "the condition must be a bool or a tensor");
      }
      if (!ok) {
        const std::string message = args.size() == 2 && args[1].isString() ? args[1].toStringRef()
                                                                          : "assertion failed";
        return node_error(node, absl::StrCat("assertion failed: ", message));
      }
      return c10::IValue();
    }
    case Builtin::kAssertIsNone: {
      if (args.empty() || args.size() > 2) return node_error(node, "expects (value, message)");
      if (args[0].isNone()) return c10::IValue();
      const std::string message = args.size() == 2 && args[1].isString() ? args[1].toStringRef()
                                                                        : "value is not None";
      return node_error(node, absl::StrCat("assertion failed: ", message));
    }
    case Builtin::kNone:
      break;
  }
  return absl::InternalError("not a builtin");
}

// Finds the overload of a Python-level target that accepts these arguments.
absl::Status resolve(NodePlan& p, const std::vector<c10::IValue>& args,
                     const IValueKwargs& kwargs) {
  const Node& node = *p.node;
  auto target = python_target(node.op(), node.target());
  if (!target.ok()) return node_error(node, target.status().message());
  // TorchScript passes dtypes, layouts and memory formats as ints; a graph
  // literal says which it is. An int literal never binds to a dtype parameter
  // (so `x.view(-1)` is not `view.dtype`).
  auto literal_fits = [&](const c10::FunctionSchema& schema, bool swapped) {
    const auto& params = schema.arguments();
    auto fits = [](const c10::Argument& p, const Argument& a) {
      const c10::TypePtr t = without_optional(p.real_type());
      const bool enum_like = t->kind() == c10::TypeKind::ScalarTypeType ||
                             t->kind() == c10::TypeKind::LayoutType ||
                             t->kind() == c10::TypeKind::MemoryFormatType;
      return !(enum_like && a.is_int());
    };
    for (size_t i = 0; i < node.args().size() && i < params.size(); ++i) {
      const size_t arg_index = swapped && node.args().size() == 2 ? 1 - i : i;
      if (!fits(params[i], node.args()[arg_index])) return false;
    }
    for (const auto& [key, value] : node.kwargs()) {
      for (const c10::Argument& p : params) {
        if (p.name() == key && !fits(p, value)) return false;
      }
    }
    return true;
  };
  auto try_overloads = [&](const std::string& name, const std::vector<c10::IValue>& candidate_args,
                           bool swapped = false) -> bool {
    for (const BoundOperator& op : find_overloads(name)) {
      if (!literal_fits(*op.schema, swapped)) continue;
      if (op.schema->is_mutable() && node.op() == Op::kCallFunction &&
          !absl::string_view(name).empty() && name.back() != '_') {
        continue;  // `out=` overloads write to an argument
      }
      if (bind_arguments(*op.schema, candidate_args, kwargs).ok()) {
        p.op = op;
        return true;
      }
    }
    return false;
  };
  for (const std::string& name : target->aten_names) {
    if (try_overloads(name, args)) {
      p.resolved = true;
      return absl::OkStatus();
    }
  }
  // `2 - x`: Python's reflected operators on a number and a tensor.
  if (args.size() == 2 && is_number(args[0]) && args[1].isTensor()) {
    if (!target->reflected_name.empty() &&
        try_overloads(target->reflected_name, {args[1], args[0]}, true)) {
      p.resolved = p.swap_operands = true;
      return absl::OkStatus();
    }
    for (const std::string& name : target->aten_names) {
      if (try_overloads(name, {wrap_number(args[0]), args[1]})) {
        p.resolved = p.wrap_first = true;
        return absl::OkStatus();
      }
    }
  }
  std::vector<std::string> types;
  for (const c10::IValue& a : args) types.push_back(a.type()->repr_str());
  for (const auto& [k, v] : kwargs) types.push_back(absl::StrCat(k, "=", v.type()->repr_str()));
  return node_error(node, absl::StrCat("no overload of ", absl::StrJoin(target->aten_names, " or "),
                                       " accepts (",
                                       absl::StrJoin(types, ", "), ")"));
}

absl::StatusOr<c10::IValue> run_operator(NodePlan& p, std::vector<c10::IValue> args,
                                         const IValueKwargs& kwargs) {
  const Node& node = *p.node;
  if (!p.resolved) {
    if (absl::Status s = resolve(p, args, kwargs); !s.ok()) return s;
  }
  if (p.swap_operands && args.size() == 2) std::swap(args[0], args[1]);
  if (p.wrap_first && !args.empty() && is_number(args[0])) args[0] = wrap_number(args[0]);
  auto stack = bind_arguments(*p.op.schema, std::move(args), kwargs);
  if (!stack.ok()) return node_error(node, stack.status().message());
  try {
    p.op.run(*stack);
  } catch (const std::exception& e) {
    return node_error(node, exception_message(e));
  }
  const size_t returns = p.op.schema->returns().size();
  if (returns == 1 && stack->size() >= 1) return std::move(stack->back());
  if (returns == 0) return c10::IValue();
  std::vector<c10::IValue> outs(std::make_move_iterator(stack->end() - returns),
                                std::make_move_iterator(stack->end()));
  return c10::IValue(c10::ivalue::Tuple::create(std::move(outs)));
}

}  // namespace

absl::StatusOr<c10::IValue> Interpreter::call_function(const Node& node,
                                                       std::vector<c10::IValue> args,
                                                       IValueKwargs kwargs) {
  NodePlan* p = find_plan(plan_->nodes, node);
  if (p == nullptr) return node_error(node, "the node is not part of the plan");
  if (p->builtin != Builtin::kNone) {
    if (!kwargs.empty()) return node_error(node, "takes no keyword arguments");
    try {
      return run_builtin(node, p->builtin, args);
    } catch (const std::exception& e) {  // e.g. `not x` on a tensor of several values
      return node_error(node, exception_message(e));
    }
  }
  if (p->function == nullptr && !p->function_overloads.empty()) {
    for (torch::jit::Function* fn : p->function_overloads) {
      if (bind_arguments(fn->getSchema(), args, kwargs).ok()) {
        p->function = fn;
        break;
      }
    }
    if (p->function == nullptr) {
      return node_error(node, "none of the TorchScript overloads of the function accepts its "
                              "arguments");
    }
  }
  if (p->function != nullptr) {
    try {
      return (*p->function)(std::move(args), torch::jit::Kwargs(kwargs.begin(), kwargs.end()));
    } catch (const std::exception& e) {
      return node_error(node, exception_message(e));
    }
  }
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
  if (!p->method) {
    // The overload of forward these arguments fit (self first in its schema).
    for (const torch::jit::Method& m : p->method_overloads) {
      std::vector<c10::IValue> with_self = {m.owner()._ivalue()};
      with_self.insert(with_self.end(), args.begin(), args.end());
      if (bind_arguments(m.function().getSchema(), std::move(with_self), kwargs).ok()) {
        p->method = m;
        break;
      }
    }
    if (!p->method) {
      return node_error(node, "none of the submodule's forward overloads accepts its arguments");
    }
  }
  torch::jit::Kwargs named(kwargs.begin(), kwargs.end());
  try {
    return (*p->method)(std::move(args), named);
  } catch (const std::exception& e) {
    return node_error(node, exception_message(e));
  }
}

absl::StatusOr<c10::IValue> Interpreter::output(const Node& node, c10::IValue value) {
  return value;
}

}  // namespace fx
