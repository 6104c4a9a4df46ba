// Copyright 2026 The FX for C++ Authors.
//
// How an ExecutionPlan turns the first run of an input signature into steps:
// the node-by-node run that resolves every target, the steps built from its
// choices, and the memory plan built from its values.
#include <algorithm>

#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <ATen/ops/empty.h>

#include "absl/strings/str_cat.h"
#include "core/last_uses.h"
#include "runtime/memory_planner.h"
#include "runtime/operator_aliasing.h"
#include "runtime/out_variants.h"
#include "runtime/plan_steps.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

// Signature codes of input kinds.
enum : int64_t { kTensor = 1, kInt, kDouble, kBool, kNone, kString, kSequence, kOther };

void append_signature(const c10::IValue& v, std::vector<int64_t>& out, int depth) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) {
      out.push_back(kNone);
      return;
    }
    out.push_back(kTensor);
    out.push_back(static_cast<int64_t>(t.scalar_type()));
    out.push_back(static_cast<int64_t>(t.device().type()));
    out.push_back(t.device().index());
    out.push_back(t.requires_grad());
    out.push_back(t.is_contiguous());
    out.push_back(t.dim());
    for (int64_t s : t.sizes()) out.push_back(s);
  } else if (v.isInt()) {
    out.push_back(kInt);
  } else if (v.isDouble()) {
    out.push_back(kDouble);
  } else if (v.isBool()) {
    out.push_back(kBool);
  } else if (v.isNone()) {
    out.push_back(kNone);
  } else if (v.isString()) {
    out.push_back(kString);
  } else if ((v.isList() || v.isTuple()) && depth < 4) {
    const std::vector<c10::IValue> items = sequence_elements(v);
    out.push_back(kSequence);
    out.push_back(v.isList());
    out.push_back(static_cast<int64_t>(items.size()));
    for (const c10::IValue& item : items) append_signature(item, out, depth + 1);
  } else {
    out.push_back(kOther);
    out.push_back(static_cast<int64_t>(std::hash<std::string>()(v.type()->annotation_str())));
  }
}

// The tensors a value holds (itself, or the elements of a list or tuple).
void collect_tensors(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) out.push_back(v.toTensor());
  } else if (v.isList() || v.isTuple()) {
    for (const c10::IValue& item : sequence_elements(v)) collect_tensors(item, out);
  }
}

bool shares_storage(const c10::IValue& a, const c10::IValue& b) {
  std::vector<at::Tensor> ta, tb;
  collect_tensors(a, ta);
  collect_tensors(b, tb);
  for (const at::Tensor& x : ta) {
    for (const at::Tensor& y : tb) {
      // (is_alias_of would throw on tensors without storage, as MKLDNN's.)
      if (storage_identity(x) == storage_identity(y)) return true;
    }
  }
  return false;
}

}  // namespace

void input_signature(const std::vector<c10::IValue>& inputs, std::vector<int64_t>& out) {
  out.clear();
  out.push_back(static_cast<int64_t>(inputs.size()));
  for (const c10::IValue& v : inputs) append_signature(v, out, 0);
}

absl::StatusOr<c10::IValue> convert_argument(const ArgSource& source, const Step& step,
                                             const std::vector<c10::IValue>& slots) {
  const NodeValueFn lookup = [&](Node* n) -> absl::StatusOr<c10::IValue> {
    for (const auto& [node, slot] : source.node_slots) {
      if (node == n) return slots[slot];
    }
    return absl::InternalError(absl::StrCat("no slot for node '", n->name(), "'"));
  };
  c10::IValue value;
  if (source.packed) {
    c10::impl::GenericList list(c10::AnyType::get());
    for (const Argument* a : source.from) {
      auto v = argument_to_ivalue(*a, nullptr, lookup);
      if (!v.ok()) return node_error(*step.node, v.status().message());
      list.push_back(*std::move(v));
    }
    value = std::move(list);
  } else {
    auto v = argument_to_ivalue(*source.from[0], nullptr, lookup);
    if (!v.ok()) return node_error(*step.node, v.status().message());
    value = *std::move(v);
  }
  if (source.wrap_number && (value.isInt() || value.isDouble() || value.isBool())) {
    value = wrap_number(value);
  }
  if (source.type == nullptr) return value;
  auto coerced = coerce_to_type(std::move(value), source.type, source.list_size);
  if (!coerced.ok()) return node_error(*step.node, coerced.status().message());
  return coerced;
}

absl::StatusOr<c10::IValue> run_call_step(const Step& step, const std::vector<c10::IValue>& slots) {
  std::vector<c10::IValue> args;
  args.reserve(step.args.size());
  for (const ArgSource& a : step.args) {
    if (a.kind == ArgSource::kConstant) {
      args.push_back(a.constant);
    } else if (a.kind == ArgSource::kConvert) {
      auto v = convert_argument(a, step, slots);
      if (!v.ok()) return v.status();
      args.push_back(*std::move(v));
    } else {
      args.push_back(slots[a.slot]);
    }
  }
  if (step.kind == StepKind::kOutput) return args.empty() ? c10::IValue() : args[0];
  IValueKwargs kwargs;
  for (const auto& [name, a] : step.kwargs) {
    if (a.kind == ArgSource::kConstant) {
      kwargs.emplace_back(name, a.constant);
    } else if (a.kind == ArgSource::kConvert) {
      auto v = convert_argument(a, step, slots);
      if (!v.ok()) return v.status();
      kwargs.emplace_back(name, *std::move(v));
    } else {
      kwargs.emplace_back(name, slots[a.slot]);
    }
  }
  if (step.builtin != Builtin::kNone) {
    try {
      return run_builtin(*step.node, step.builtin, args, kwargs);
    } catch (const std::exception& e) {
      return node_error(*step.node, exception_message(e));
    }
  }
  if (step.function != nullptr) {
    return call_function_body(*step.node, *step.function, std::move(args), kwargs);
  }
  if (step.graph_module_plan != nullptr) {
    return call_graph_module(*step.node, *step.graph_module_plan, std::move(args), kwargs);
  }
  return call_method_body(*step.node, *step.method, std::move(args), kwargs);
}

namespace {

// Drops the get_attr steps whose value every reader took as a constant (the
// usual case: a weight read as it is): putting it into its slot each run
// would only touch the tensor's reference count. Counts the arguments left
// to convert at run time.
void drop_unread_get_attrs(ExecutionPlan::Specialisation& spec) {
  std::vector<char> read(spec.num_slots, 0);
  auto mark = [&](const ArgSource& a) {
    if (a.kind == ArgSource::kSlot || a.kind == ArgSource::kMoveSlot) read[a.slot] = 1;
    for (const auto& node_slot : a.node_slots) read[node_slot.second] = 1;
    spec.stats.converted_arguments += a.kind == ArgSource::kConvert;
  };
  for (const Step& step : spec.steps) {
    for (const ArgSource& a : step.args) mark(a);
    for (const auto& kwarg : step.kwargs) mark(kwarg.second);
    if (step.contraction != nullptr) {
      for (const ArgSource& a : step.contraction->operands) mark(a);
    }
  }
  std::vector<char> dropped(spec.num_slots, 0);
  auto unread = [&](const Step& step) {
    const bool drop = step.kind == StepKind::kGetAttr && !read[step.slot] &&
                      std::all_of(step.release.begin(), step.release.end(),
                                  [&](uint32_t slot) { return slot == step.slot; });
    if (drop) dropped[step.slot] = 1;
    return drop;
  };
  spec.steps.erase(std::remove_if(spec.steps.begin(), spec.steps.end(), unread), spec.steps.end());
  // Their slots stay empty: nothing to release.
  for (Step& step : spec.steps) {
    auto& release = step.release;
    release.erase(std::remove_if(release.begin(), release.end(),
                                 [&](uint32_t slot) { return dropped[slot] != 0; }),
                  release.end());
  }
  spec.stats.steps = spec.steps.size();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ExecutionPlan::Specialisation>> ExecutionPlan::specialise(
    const std::vector<int64_t>& signature, const std::vector<c10::IValue>& inputs,
    c10::IValue* result, bool* ran) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, spec] : specialisations_) {
    if (key == signature) return spec;
  }
  std::vector<c10::IValue> values(nodes_.size());
  std::vector<NodeChoice> choices(nodes_.size());
  if (absl::Status s = run_node_by_node(inputs, values, choices); !s.ok()) return s;
  auto spec = make_steps(values, choices);
  if (!spec.ok()) return spec.status();
  plan_memory(values, **spec);
  drop_unread_get_attrs(**spec);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].node->op() == Op::kOutput) *result = values[i];
  }
  *ran = true;
  // Inputs of many shapes: keep the most recent signatures only.
  constexpr size_t kMaxSpecialisations = 64;
  if (specialisations_.size() == kMaxSpecialisations) {
    specialisations_.erase(specialisations_.begin());
  }
  specialisations_.emplace_back(signature, *spec);
  return std::shared_ptr<const Specialisation>(*std::move(spec));
}

absl::Status ExecutionPlan::run_node_by_node(const std::vector<c10::IValue>& inputs,
                                             std::vector<c10::IValue>& values,
                                             std::vector<NodeChoice>& choices) const {
  const NodeValueFn lookup = [&](Node* n) -> absl::StatusOr<c10::IValue> {
    return values[slot_of_.at(n)];
  };
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo& info = nodes_[i];
    const Node& node = *info.node;
    const NodeTarget& t = info.target;
    NodeChoice& choice = choices[i];
    if (node.op() == Op::kPlaceholder) {
      const size_t index = static_cast<size_t>(info.placeholder_index);
      if (index < inputs.size()) {
        if (absl::Status s = check_input_type(node, index, inputs[index]); !s.ok()) return s;
        if (inputs[index].isTensor() && inputs[index].toTensor().defined() &&
            inputs[index].toTensor().device() != options_.device) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input ", index, " (placeholder '", node.name(), "') is on ",
              inputs[index].toTensor().device().str(), " but the plan runs on ",
              options_.device.str(), ": move it there first (tensor.to(device))"));
        }
        values[i] = inputs[index];
      } else if (node.args().empty()) {
        return absl::InvalidArgumentError(absl::StrCat("missing input ", index, " (placeholder '",
                                                       node.name(), "'), which has no default"));
      } else {
        auto v = argument_to_ivalue(node.args()[0], nullptr);
        if (!v.ok()) return node_error(node, v.status().message());
        values[i] = *std::move(v);
      }
      continue;
    }
    if (node.op() == Op::kGetAttr) {
      values[i] = t.attr;
      continue;
    }
    if (node.op() == Op::kOutput) {
      auto v = argument_to_ivalue(node.args().empty() ? Argument() : node.args()[0], nullptr,
                                  lookup);
      if (!v.ok()) return node_error(node, v.status().message());
      values[i] = *std::move(v);
      continue;
    }
    std::vector<c10::IValue> args;
    IValueKwargs kwargs;
    for (const Argument& a : node.args()) {
      auto v = argument_to_ivalue(a, nullptr, lookup);
      if (!v.ok()) return node_error(node, v.status().message());
      args.push_back(*std::move(v));
    }
    for (const auto& [key, a] : node.kwargs()) {
      auto v = argument_to_ivalue(a, nullptr, lookup);
      if (!v.ok()) return node_error(node, v.status().message());
      kwargs.emplace_back(key, *std::move(v));
    }
    absl::StatusOr<c10::IValue> value;
    if (t.graph_module_plan != nullptr) {
      choice.graph_module_plan = t.graph_module_plan;
      value = call_graph_module(node, *t.graph_module_plan, std::move(args), kwargs);
    } else if (node.op() == Op::kCallModule) {
      choice.method = t.method;
      if (!choice.method) {
        auto m = choose_method(node, t.method_overloads, args, kwargs);
        if (!m.ok()) return m.status();
        choice.method = *m;
      }
      value = call_method_body(node, *choice.method, std::move(args), kwargs);
    } else if (t.builtin != Builtin::kNone) {
      try {
        value = run_builtin(node, t.builtin, args, kwargs);
      } catch (const std::exception& e) {
        return node_error(node, exception_message(e));
      }
    } else if (t.function != nullptr || !t.function_overloads.empty()) {
      choice.function = t.function;
      if (choice.function == nullptr) {
        auto fn = choose_function(node, t.function_overloads, args, kwargs);
        if (!fn.ok()) return fn.status();
        choice.function = *fn;
      }
      value = call_function_body(node, *choice.function, std::move(args), kwargs);
    } else {
      if (node.op() == Op::kCallMethod && args.empty()) {
        return node_error(node, "a method call needs the object as args[0]");
      }
      choice.is_operator = true;
      if (t.exact) {
        choice.call.op = t.op;
        choice.call.wrap_numbers = true;
      } else {
        auto call = resolve_call(node, args, kwargs);
        if (!call.ok()) return call.status();
        choice.call = *std::move(call);
      }
      const bool contraction = options_.compile_contractions && options_.inference_mode &&
                               Contraction::is_contraction(*choice.call.op.schema);
      torch::jit::Stack called_with;
      value = call_operator(node, choice.call, std::move(args), kwargs,
                            contraction ? &called_with : nullptr);
      if (contraction && value.ok() && value->isTensor()) {
        auto compiled = Contraction::plan(*choice.call.op.schema, called_with, value->toTensor());
        if (compiled.ok()) choice.contraction = std::make_shared<const Contraction>(*compiled);
      }
    }
    if (!value.ok()) return value.status();
    values[i] = *std::move(value);
  }
  return absl::OkStatus();
}

namespace {

// Whether a literal holds a list or dict (which a callee can change in place).
bool holds_container(const Argument& arg) {
  if (arg.is_list() || arg.is_dict()) return true;
  if (!arg.is_tuple()) return false;
  for (const Argument& item : arg.elements()) {
    if (holds_container(item)) return true;
  }
  return false;
}

// Builds sources for one step, given where each node's value lives.
class SourceBuilder {
 public:
  SourceBuilder(const absl::flat_hash_map<const Node*, uint32_t>& slot_of,
                const std::vector<c10::IValue>& values, const std::vector<c10::IValue>& attrs)
      : slot_of_(slot_of), values_(values), attrs_(attrs) {}

  // `arg` as a value of `type` (nullptr: as it is) for a parameter of
  // `list_size` elements. A literal the callee `may_write` is made afresh
  // each run when it holds a list or dict: a constant would carry one run's
  // changes into the next.
  absl::StatusOr<ArgSource> source(const Argument& arg, const c10::TypePtr& type,
                                   c10::optional<int32_t> list_size, bool wrap_number,
                                   bool may_write) {
    ArgSource s;
    if (arg.is_node()) {
      const uint32_t slot = slot_of_.at(arg.to_node());
      const c10::IValue& observed = values_[slot];
      const bool is_attr = arg.to_node()->op() == Op::kGetAttr;
      // Only a number is wrapped: a node whose value is a tensor (as every
      // tensor argument of an exact overload is) is read as it is.
      const bool wraps = wrap_number && (observed.isInt() || observed.isDouble() || observed.isBool());
      if (!wraps && (type == nullptr || observed.type()->isSubtypeOf(*type))) {
        if (is_attr) {
          s.kind = ArgSource::kConstant;
          s.constant = attrs_[slot];
        } else {
          s.kind = ArgSource::kSlot;
          s.slot = slot;
        }
        return s;
      }
    } else if (!arg.contains_node() && !(may_write && holds_container(arg))) {
      auto v = argument_to_ivalue(arg, nullptr);
      if (!v.ok()) return v.status();
      c10::IValue value = *std::move(v);
      if (wrap_number && (value.isInt() || value.isDouble() || value.isBool())) {
        value = fx::wrap_number(value);
      }
      if (type != nullptr) {
        auto coerced = coerce_to_type(std::move(value), type, list_size);
        if (!coerced.ok()) return coerced.status();
        value = *std::move(coerced);
      }
      s.kind = ArgSource::kConstant;
      s.constant = std::move(value);
      return s;
    }
    s.kind = ArgSource::kConvert;
    s.from = {&arg};
    s.wrap_number = wrap_number;
    s.type = type;
    s.list_size = list_size;
    add_node_slots(arg, s);
    return s;
  }

  // Positional arguments [begin, end) packed into a list of `type`.
  ArgSource packed(const std::vector<const Argument*>& args, size_t begin, size_t end,
                   const c10::TypePtr& type, c10::optional<int32_t> list_size) {
    ArgSource s;
    s.kind = ArgSource::kConvert;
    s.packed = true;
    s.from.assign(args.begin() + begin, args.begin() + end);
    s.type = type;
    s.list_size = list_size;
    for (const Argument* a : s.from) add_node_slots(*a, s);
    return s;
  }

 private:
  void add_node_slots(const Argument& arg, ArgSource& s) {
    for_each_node(arg, [&](Node* n) { s.node_slots.emplace_back(n, slot_of_.at(n)); });
  }

  const absl::flat_hash_map<const Node*, uint32_t>& slot_of_;
  const std::vector<c10::IValue>& values_;
  const std::vector<c10::IValue>& attrs_;
};

// The operator step's stack in schema order; `bound` gets, per parameter,
// the argument given for it (nullptr: its default, or several packed).
absl::Status build_operator_step(const Node& node, const ResolvedCall& call, SourceBuilder& sources,
                                 Step& step, std::vector<const Argument*>& bound) {
  std::vector<const Argument*> positional;
  for (const Argument& a : node.args()) positional.push_back(&a);
  if (call.swap_operands && positional.size() == 2) std::swap(positional[0], positional[1]);
  std::vector<std::string> kwarg_names;
  std::vector<const Argument*> kwarg_values;
  for (const auto& [key, a] : node.kwargs()) {
    kwarg_names.push_back(key);
    kwarg_values.push_back(&a);
  }
  const c10::FunctionSchema& schema = *call.op.schema;
  auto bindings = bind_positions(schema, positional.size(), kwarg_names);
  if (!bindings.ok()) return node_error(node, bindings.status().message());
  const auto& params = schema.arguments();
  bound.assign(params.size(), nullptr);
  for (size_t i = 0; i < params.size(); ++i) {
    const c10::Argument& p = params[i];
    const ParamBinding& b = (*bindings)[i];
    const bool writes = p.alias_info() != nullptr && p.alias_info()->isWrite();
    absl::StatusOr<ArgSource> s;
    switch (b.kind) {
      case ParamBinding::kDefault:
        s = ArgSource();
        s->constant = *p.default_value();
        break;
      case ParamBinding::kPositional:
        bound[i] = positional[b.index];
        s = sources.source(*positional[b.index], p.type(), p.N(),
                           (call.wrap_first && b.index == 0) ||
                               (call.wrap_numbers && takes_wrapped_number(p)),
                           writes);
        break;
      case ParamBinding::kKeyword:
        bound[i] = kwarg_values[b.index];
        s = sources.source(*kwarg_values[b.index], p.type(), p.N(),
                           call.wrap_numbers && takes_wrapped_number(p), writes);
        break;
      case ParamBinding::kPacked:
        s = sources.packed(positional, b.index, b.end, p.type(), p.N());
        break;
    }
    if (!s.ok()) {
      return node_error(node, absl::StrCat("argument '", p.name(), "': ", s.status().message()));
    }
    step.args.push_back(*std::move(s));
  }
  step.kind = StepKind::kOperator;
  step.operation = call.op.op->getOperation();
  step.schema = &schema;
  step.single_return = schema.returns().size() == 1;
  return absl::OkStatus();
}

// The operator step `step` of an einsum or tensordot run as `contraction`
// (compiled in the first run); nullptr where the step's arguments do not
// allow it (it stays an operator call).
std::shared_ptr<ContractionStep> compile_contraction(const Step& step,
                                                     const std::vector<const Argument*>& bound,
                                                     const std::vector<c10::IValue>& values,
                                                     SourceBuilder& sources,
                                                     const Contraction* contraction) {
  if (contraction == nullptr) return nullptr;
  // The operands' arguments: einsum's list of two (or two packed varargs,
  // as torch.einsum(eq, a, b) passes them), tensordot's first two.
  const bool einsum = step.schema->name() == "aten::einsum";
  std::array<const Argument*, 2> operands{};
  if (einsum) {
    const Argument* list = bound.size() > 1 ? bound[1] : nullptr;
    if (list != nullptr && list->is_list() && list->elements().size() == 2) {
      operands = {&list->elements()[0], &list->elements()[1]};
    } else if (list == nullptr && step.args.size() > 1 && step.args[1].packed &&
               step.args[1].from.size() == 2) {
      operands = {step.args[1].from[0], step.args[1].from[1]};
    } else {
      return nullptr;
    }
  } else {
    if (bound.size() < 2 || bound[0] == nullptr || bound[1] == nullptr) return nullptr;
    operands = {bound[0], bound[1]};
  }
  // The rest (equation, dims, path) is what the step was compiled for: it
  // must be the same in every run.
  for (size_t j = 0; j < step.args.size(); ++j) {
    const bool operand = einsum ? j == 1 : j < 2;
    if (!operand && step.args[j].kind != ArgSource::kConstant) return nullptr;
  }
  auto cs = std::make_shared<ContractionStep>();
  for (int k = 0; k < 2; ++k) {
    auto s = sources.source(*operands[k], c10::TensorType::get(), c10::nullopt, false, false);
    if (!s.ok()) return nullptr;
    const bool is_tensor = s->kind == ArgSource::kSlot
                               ? values[s->slot].isTensor()
                               : s->kind == ArgSource::kConstant && s->constant.isTensor();
    if (!is_tensor) return nullptr;
    cs->operands[k] = *std::move(s);
  }
  cs->contraction = *contraction;
  return cs;
}

}  // namespace

absl::StatusOr<std::shared_ptr<ExecutionPlan::Specialisation>> ExecutionPlan::make_steps(
    const std::vector<c10::IValue>& values, const std::vector<NodeChoice>& choices) const {
  auto spec = std::make_shared<Specialisation>();
  spec->num_slots = static_cast<uint32_t>(nodes_.size());
  std::vector<c10::IValue> attrs(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) attrs[i] = nodes_[i].target.attr;
  SourceBuilder sources(slot_of_, values, attrs);
  const LastUses last_uses(module_->graph());
  spec->steps.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo& info = nodes_[i];
    const Node& node = *info.node;
    Step step;
    step.node = &node;
    step.slot = static_cast<uint32_t>(i);
    switch (node.op()) {
      case Op::kPlaceholder:
        step.kind = StepKind::kPlaceholder;
        step.input = info.placeholder_index;
        if (!node.args().empty()) {
          auto v = argument_to_ivalue(node.args()[0], nullptr);
          if (!v.ok()) return node_error(node, v.status().message());
          step.constant = *std::move(v);
        }
        break;
      case Op::kGetAttr:
        step.kind = StepKind::kGetAttr;
        step.constant = info.target.attr;
        break;
      default: {
        const NodeChoice& choice = choices[i];
        if (choice.is_operator) {
          std::vector<const Argument*> bound;
          if (absl::Status s = build_operator_step(node, choice.call, sources, step, bound);
              !s.ok()) {
            return s;
          }
          step.contraction =
              compile_contraction(step, bound, values, sources, choice.contraction.get());
          break;
        }
        step.kind = node.op() == Op::kOutput ? StepKind::kOutput : StepKind::kCall;
        step.builtin = info.target.builtin;
        step.function = choice.function;
        step.method = choice.method;
        step.graph_module_plan = choice.graph_module_plan;
        const Argument none;
        const size_t n = node.op() == Op::kOutput ? 1 : node.args().size();
        for (size_t k = 0; k < n; ++k) {
          // A function, a submodule or the caller (of an output) may
          // change what it is given.
          auto s = sources.source(k < node.args().size() ? node.args()[k] : none, nullptr,
                                  c10::nullopt, false, /*may_write=*/true);
          if (!s.ok()) return node_error(node, s.status().message());
          step.args.push_back(*std::move(s));
        }
        for (const auto& [key, a] : node.kwargs()) {
          auto s = sources.source(a, nullptr, c10::nullopt, false, /*may_write=*/true);
          if (!s.ok()) return node_error(node, s.status().message());
          step.kwargs.emplace_back(key, *std::move(s));
        }
        break;
      }
    }
    for (const Node* dead : last_uses.freed_after(node)) step.release.push_back(slot_of_.at(dead));
    // A value read once by its last reader moves into that reader's stack
    // (not into a contraction's: it reads its operands in place).
    if (step.kind == StepKind::kOperator && step.contraction == nullptr) {
      for (ArgSource& a : step.args) {
        if (a.kind != ArgSource::kSlot) continue;
        auto released = std::find(step.release.begin(), step.release.end(), a.slot);
        const auto reads = std::count_if(step.args.begin(), step.args.end(), [&](const ArgSource& o) {
          return (o.kind == ArgSource::kSlot && o.slot == a.slot) ||
                 std::any_of(o.node_slots.begin(), o.node_slots.end(),
                             [&](const auto& ns) { return ns.second == a.slot; });
        });
        if (released != step.release.end() && reads == 1) {
          a.kind = ArgSource::kMoveSlot;
          step.release.erase(released);
        }
      }
    }
    if (step.kind == StepKind::kOperator) {
      ++spec->stats.operator_steps;
      spec->stats.contraction_steps += step.contraction != nullptr;
    }
    spec->steps.push_back(std::move(step));
  }
  spec->stats.steps = spec->steps.size();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Op op = nodes_[i].node->op();
    if (op != Op::kCallFunction && op != Op::kCallMethod && op != Op::kCallModule) continue;
    std::vector<at::Tensor> produced;
    collect_tensors(values[i], produced);
    for (const at::Tensor& t : produced) spec->stats.intermediate_bytes += t.nbytes();
  }
  return spec;
}

void ExecutionPlan::plan_memory(const std::vector<c10::IValue>& values,
                                Specialisation& spec) const {
  if (!options_.plan_memory || !options_.inference_mode ||
      options_.device.type() == c10::kMeta) {
    return;
  }
  const size_t n = nodes_.size();
  // Which values may share memory: an operator's result and its inputs when
  // the schema says so (views, in-place ops) or the first run saw it; any
  // other call's result and all its inputs.
  AliasClasses sets(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = *nodes_[i].node;
    const Step& step = spec.steps[i];
    const bool functional = step.kind == StepKind::kOperator && is_functional_schema(*step.schema);
    for (const Node* input : node.input_nodes()) {
      const uint32_t j = slot_of_.at(input);
      if (!functional || shares_storage(values[i], values[j])) sets.unite(i, j);
    }
  }
  // Each set's lifetime: from its first definition to its last use.
  std::vector<int> first(n, static_cast<int>(n)), last(n, 0);
  std::vector<char> escapes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = *nodes_[i].node;
    int last_use = static_cast<int>(i);
    for (const Node* user : node.users()) last_use = std::max<int>(last_use, slot_of_.at(user));
    const size_t root = sets.find(i);
    first[root] = std::min(first[root], static_cast<int>(i));
    last[root] = std::max(last[root], last_use);
    if (node.op() == Op::kOutput) {
      for (const Node* input : node.input_nodes()) escapes[sets.find(slot_of_.at(input))] = 1;
    }
  }
  // What goes into the arena: operator results written through `.out`
  // overloads, contraction results and their scratch.
  enum Role { kOutVariant, kContractionResult, kScratch };
  struct Placement {
    size_t step;
    Role role;
    int scratch = 0;  // kScratch: which
    PlannedTensorSpec spec;
  };
  std::vector<PlannedTensor> tensors;
  std::vector<Placement> placements;
  for (size_t i = 0; i < n; ++i) {
    const Step& step = spec.steps[i];
    if (step.kind != StepKind::kOperator || !values[i].isTensor()) continue;
    const size_t root = sets.find(i);
    const at::Tensor& t = values[i].toTensor();
    if (step.contraction != nullptr) {
      // Its result is new, dense and laid out as aten's; scratch lives
      // during the step only. (A contraction on another device than the
      // plan's, after a .cpu(), allocates its own.)
      if (t.device() != options_.device) continue;
      const Contraction& c = step.contraction->contraction;
      const size_t item = t.element_size();
      if (!escapes[root]) {
        // Its size when made (a later in-place op of the first run may have
        // resized the value).
        size_t numel = 1;
        for (int64_t size : c.out_sizes()) numel *= static_cast<size_t>(size);
        tensors.push_back({numel * item, first[root], last[root]});
        placements.push_back({i, kContractionResult, 0,
                              {t.scalar_type(), c.out_sizes(), c.out_strides(), 0, 0}});
      }
      for (int k = 0; k < 3; ++k) {
        const int64_t numel = c.scratch_numel(static_cast<Contraction::Scratch>(k));
        if (numel == 0) continue;
        tensors.push_back({static_cast<size_t>(numel) * item, static_cast<int>(i),
                           static_cast<int>(i)});
        placements.push_back({i, kScratch, k, {t.scalar_type(), {numel}, {1}, 0, 0}});
      }
      continue;
    }
    if (escapes[root]) continue;
    if (!t.defined() || t.device() != options_.device || t.layout() != c10::kStrided ||
        t.requires_grad() || t.numel() == 0 || !t.is_contiguous() || t.storage_offset() != 0 ||
        t.storage().nbytes() != t.nbytes()) {
      continue;
    }
    bool aliases_input = false;
    for (const Node* input : nodes_[i].node->input_nodes()) {
      aliases_input |= shares_storage(values[i], values[slot_of_.at(input)]);
    }
    if (aliases_input || !is_functional_schema(*step.schema)) continue;
    if (!find_out_variant(*step.schema)) continue;
    tensors.push_back({t.nbytes(), first[root], last[root]});
    placements.push_back(
        {i, kOutVariant, 0, {t.scalar_type(), t.sizes().vec(), t.strides().vec(), 0, 0}});
  }
  if (tensors.empty()) return;
  const ArenaLayout layout = plan_arena(tensors);
  for (size_t k = 0; k < placements.size(); ++k) {
    Placement& p = placements[k];
    Step& step = spec.steps[p.step];
    const int index = static_cast<int>(k);
    switch (p.role) {
      case kOutVariant: {
        const BoundOperator out = *find_out_variant(*step.schema);
        step.operation = out.op->getOperation();
        step.schema = out.schema;
        step.single_return = true;
        step.planned = index;
        ++spec.stats.out_variant_steps;
        break;
      }
      case kContractionResult:
        step.contraction->planned_result = index;
        break;
      case kScratch:
        step.contraction->planned_scratch[p.scratch] = index;
        break;
    }
    p.spec.offset = layout.offsets[k];
    p.spec.bytes = tensors[k].bytes;
    spec.planned.push_back(std::move(p.spec));
  }
  spec.arena_bytes = layout.arena_bytes;
  spec.stats.planned_bytes = layout.total_bytes;
  spec.stats.arena_bytes = layout.arena_bytes;
}

void ExecutionPlan::RunState::Impl::use(std::shared_ptr<const Specialisation> new_spec,
                                        const c10::Device& new_device) {
  spec = std::move(new_spec);
  device = new_device;
  planned.clear();
  arena = at::Tensor();
  if (spec->arena_bytes == 0) return;
  arena = at::empty({static_cast<int64_t>(spec->arena_bytes)},
                    at::TensorOptions().dtype(at::kByte).device(device));
  planned.reserve(spec->planned.size());
  for (const PlannedTensorSpec& p : spec->planned) planned.push_back(make_planned(p));
}

at::Tensor ExecutionPlan::RunState::Impl::make_planned(const PlannedTensorSpec& p) const {
  char* base = static_cast<char*>(arena.data_ptr()) + p.offset;
  // A storage of its own over the tensor's bytes of the arena, owning none:
  // an operator that grows the tensor reallocates this storage, never the
  // arena.
  c10::Storage storage(c10::Storage::use_byte_size_t(), p.bytes, at::DataPtr(base, device),
                       c10::GetAllocator(device.type()), /*resizable=*/true);
  at::Tensor t = at::empty({0}, at::TensorOptions().dtype(p.dtype).device(device));
  t.set_(storage, 0, p.sizes, p.strides);
  return t;
}

void ExecutionPlan::RunState::Impl::refresh_arena() {
  if (!spec) return;
  for (size_t k = 0; k < planned.size(); ++k) {
    const PlannedTensorSpec& p = spec->planned[k];
    if (planned[k].data_ptr() != static_cast<char*>(arena.data_ptr()) + p.offset) {
      planned[k] = make_planned(p);
    }
  }
}

}  // namespace fx
