// Copyright 2026 The FX for C++ Authors.
//
// How an ExecutionPlan specialises to an input signature: the node-by-node
// first run that resolves every target; the steps are built from its choices
// (plan_step_building.cc) and the memory plan from its values
// (plan_memory.cc).
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
#include "runtime/value_conversion.h"
#include "runtime/torchscript/script_calls.h"

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
    const bool contiguous = t.is_contiguous();
    out.push_back(contiguous);
    out.push_back(t.dim());
    for (int64_t s : t.sizes()) out.push_back(s);
    // aten lays results out after their inputs' strides (a transposed input
    // gives a transposed result), and the arena's tensors keep the layout of
    // their signature's first run: inputs of other strides are another
    // signature. (Contiguous strides follow from the sizes.)
    if (!contiguous) {
      for (int64_t s : t.strides()) out.push_back(s);
    }
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
}  // namespace

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
  if (step.script != nullptr) return call_script(*step.node, *step.script, std::move(args), kwargs);
  if (step.graph_module_plan != nullptr) {
    return call_graph_module(*step.node, *step.graph_module_plan, std::move(args), kwargs);
  }
  return node_error(*step.node, "the step has nothing to call");
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
      absl::StatusOr<c10::IValue> value = read_attribute(node, t);
      if (!value.ok()) return value.status();
      values[i] = *std::move(value);
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
    } else if (t.script != nullptr) {
      auto call = choose_script_call(node, *t.script, args, kwargs);
      if (!call.ok()) return call.status();
      choice.script = *std::move(call);
      value = call_script(node, *choice.script, std::move(args), kwargs);
    } else if (node.op() == Op::kCallModule) {
      return node_error(node, "the submodule has no code to call");
    } else if (t.builtin != Builtin::kNone) {
      try {
        value = run_builtin(node, t.builtin, args, kwargs);
      } catch (const std::exception& e) {
        return node_error(node, exception_message(e));
      }
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

}  // namespace fx
