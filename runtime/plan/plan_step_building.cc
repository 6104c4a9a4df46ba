// Copyright 2026 The FX for C++ Authors.
//
// How an ExecutionPlan builds a specialisation's steps from the choices its
// first run made (plan_specialisation.cc): operator stacks with constants
// converted once, contractions compiled to direct loops.
#include <algorithm>

#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <ATen/ops/empty.h>

#include "absl/strings/str_cat.h"
#include "core/last_uses.h"
#include "runtime/plan/memory_planner.h"
#include "runtime/operator_aliasing.h"
#include "runtime/plan/out_variants.h"
#include "runtime/plan/plan_steps.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/value_conversion.h"

namespace fx {

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
                const std::vector<c10::IValue>& values,
                const std::vector<c10::optional<c10::IValue>>& attrs)
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
        if (is_attr && attrs_[slot].has_value()) {
          s.kind = ArgSource::kConstant;
          s.constant = *attrs_[slot];
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
  const std::vector<c10::optional<c10::IValue>>& attrs_;
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
  step.operation = call.op.operation();
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
  // The value of each get_attr that can be taken as a constant (not those a
  // module's code may rebind: they are read at each run).
  std::vector<c10::optional<c10::IValue>> attrs(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].target.attr_owner == nullptr) attrs[i] = nodes_[i].target.attr;
  }
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
        if (info.target.attr_owner != nullptr) step.attribute = &info.target;
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
        step.script = choice.script;
        step.rebinds_module_state =
            (step.script != nullptr && rebinds_module_state(*step.script)) ||
            (info.target.graph_module != nullptr &&
             calls_code_that_changes_state(*info.target.graph_module));
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

}  // namespace fx
