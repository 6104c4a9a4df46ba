// Copyright 2026 The FX for C++ Authors.
//
// The plan's compile step, its run loop and its run states. How the first
// run of a signature becomes steps is in plan_specialisation.cc.
#include "runtime/plan/execution_plan.h"

#include <c10/core/InferenceMode.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/StreamGuard.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/devices.h"
#include "runtime/torchscript/function_lowering.h"
#include "runtime/input_constraints.h"
#include "runtime/meta_device.h"
#include "runtime/plan/plan_steps.h"

namespace fx {

ExecutionPlan::ExecutionPlan(const PlanOptions& options, GraphModule module)
    : options_(options), module_(std::make_unique<GraphModule>(std::move(module))) {}

ExecutionPlan::~ExecutionPlan() = default;

namespace {

// A module's state on `device`: a copy whose tensors are there, or the module
// itself when they all are.
std::shared_ptr<Module> on_device(const std::shared_ptr<Module>& module, const c10::Device& device) {
  bool elsewhere = false;
  for (const auto& [name, t] : module->named_tensors()) elsewhere |= t.device() != device;
  if (!elsewhere) return module;
  if (device.is_meta()) return module_on_meta(*module);
  std::shared_ptr<Module> copy = module->with_tensors([&](const at::Tensor& t) {
    at::Tensor moved = t.to(device);
    // A parameter stays a leaf, as Module.to keeps it.
    return t.is_leaf() && t.requires_grad() ? moved.detach().requires_grad_(true) : moved;
  });
  // Lists and dicts are the copy's own, as TorchScript's clone made them: a
  // leaf's code that appends to one changes the plan's state only.
  copy->replace_values([](const c10::IValue& v) {
    return v.isList() || v.isGenericDict() || v.isTuple() ? v.deepcopy() : v;
  });
  return copy;
}

c10::IValue value_on_device(const c10::IValue& value, const c10::Device& device) {
  if (!value.isTensor() || value.toTensor().device() == device) return value;
  if (device.is_meta()) return to_meta(value);
  return value.toTensor().to(device);
}

// Runs a compiled contraction into its slot. False: the operands' layout is
// not the one it was compiled for (the caller runs the operator instead).
absl::StatusOr<bool> run_contraction(const ContractionStep& step,
                                     const std::vector<at::Tensor>& planned,
                                     std::vector<c10::IValue>& slots, uint32_t slot) {
  std::array<const at::Tensor*, 2> operands{};
  for (int k = 0; k < 2; ++k) {
    const ArgSource& source = step.operands[k];
    const c10::IValue& v = source.kind == ArgSource::kConstant ? source.constant : slots[source.slot];
    if (!v.isTensor()) return false;
    operands[k] = &v.toTensor();
  }
  const Contraction& c = step.contraction;
  if (!c.matches(*operands[0], *operands[1])) {
    step.fallbacks.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  try {
    const at::TensorOptions options = operands[0]->options();
    // A fresh view of the planned bytes each run: an in-place op of the last
    // run (t_, unsqueeze_) may have changed the planned tensor's own sizes.
    at::Tensor result = step.planned_result >= 0
                            ? planned[step.planned_result].as_strided(c.out_sizes(),
                                                                     c.out_strides(), 0)
                            : at::empty_strided(c.out_sizes(), c.out_strides(), options);
    Contraction::ScratchTensors scratch;
    for (int k = 0; k < 3; ++k) {
      const int64_t numel = c.scratch_numel(static_cast<Contraction::Scratch>(k));
      if (numel == 0) continue;
      scratch[k] = step.planned_scratch[k] >= 0 ? planned[step.planned_scratch[k]]
                                                : at::empty({numel}, options);
    }
    c.run(*operands[0], *operands[1], result, scratch);
    slots[slot] = std::move(result);
  } catch (const std::exception& e) {
    return absl::InternalError(exception_message(e));
  }
  return true;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ExecutionPlan>> ExecutionPlan::compile(
    const GraphModule& gm, const PlanOptions& options) {
  if (absl::Status s = check_device_available(options.device); !s.ok()) return s;
  if (options.cuda_graphs && !options.device.is_cuda()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CUDA graphs run on a CUDA device, and this plan runs on ", options.device.str(),
        ": compile for cuda (PlanOptions::device), or leave cuda_graphs off"));
  }
  if (options.cuda_graphs && !options.inference_mode) {
    return absl::InvalidArgumentError(
        "CUDA graphs need inference mode (a captured run records no autograd graph): turn "
        "inference_mode on, or leave cuda_graphs off");
  }
  if (absl::Status s = gm.lint(); !s.ok()) return s;
  if (options.device.is_meta()) ensure_meta_kernels();
  // The plan's own module: a copy of the graph, the root's state on the device.
  std::shared_ptr<Module> root;
  try {
    root = on_device(gm.shared_root(), options.device);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot place the model's state on ",
                                                   options.device.str(), ": ",
                                                   exception_message(e)));
  }
  GraphModule module(root, gm.graph().copy(), gm.class_name());
  for (const auto& [name, value] : gm.own_attributes()) {
    if (absl::Status s = module.add_attribute(name, value_on_device(value, options.device));
        !s.ok()) {
      return s;
    }
  }
  module.set_script_functions(gm.script_functions());
  for (const auto& [name, sub] : gm.graph_submodules()) {
    if (absl::Status s = module.add_graph_submodule(name, sub); !s.ok()) return s;
  }
  const size_t lowered = options.lower_functions ? lower_leaf_functions(module) : 0;
  std::shared_ptr<ExecutionPlan> plan(new ExecutionPlan(options, std::move(module)));
  plan->lowered_functions_ = lowered;
  if (absl::Status s = plan->build(); !s.ok()) return s;
  return std::shared_ptr<const ExecutionPlan>(std::move(plan));
}

absl::Status ExecutionPlan::build() {
  const Graph& graph = module_->graph();
  nodes_.reserve(graph.size());
  for (const Node* n : graph.nodes()) {
    slot_of_[n] = static_cast<uint32_t>(nodes_.size());
    NodeInfo info;
    info.node = n;
    auto target = lookup_target(*module_, *n);
    if (!target.ok()) return target.status();
    info.target = *std::move(target);
    // (A graph submodule runs inside its caller's run, captured with it.)
    PlanOptions submodule_options = options_;
    submodule_options.cuda_graphs = false;
    if (absl::Status s = compile_graph_submodule(*n, info.target, submodule_options); !s.ok()) {
      return s;
    }
    if (n->op() == Op::kPlaceholder) {
      info.placeholder_index = static_cast<int>(input_names_.size());
      input_names_.push_back(n->name());
    }
    nodes_.push_back(std::move(info));
  }
  auto constraints = InputConstraints::from_graph(graph);
  if (!constraints.ok()) return constraints.status();
  constraints_ = std::make_unique<const InputConstraints>(*std::move(constraints));
  return absl::OkStatus();
}

ExecutionPlan::RunState::RunState() : impl_(std::make_unique<Impl>()) {}
ExecutionPlan::RunState::~RunState() = default;

std::unique_ptr<ExecutionPlan::RunState> ExecutionPlan::make_state() const {
  return std::make_unique<RunState>();
}

std::vector<PlanStats> ExecutionPlan::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PlanStats> out;
  for (const auto& entry : specialisations_) {
    PlanStats stats = entry.second->stats;
    for (const Step& step : entry.second->steps) {
      if (step.contraction != nullptr) {
        stats.contraction_fallbacks += step.contraction->fallbacks.load(std::memory_order_relaxed);
      }
    }
    out.push_back(stats);
  }
  return out;
}

absl::Status ExecutionPlan::check_inputs(const std::vector<c10::IValue>& inputs) const {
  if (inputs.size() > input_names_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "forward takes ", input_names_.size(), " input(s) (", absl::StrJoin(input_names_, ", "),
        ") but ", inputs.size(), " were given"));
  }
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> ExecutionPlan::run(std::vector<c10::IValue> inputs) const {
  std::unique_ptr<RunState> state;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_states_.empty()) {
      state = std::move(idle_states_.back());
      idle_states_.pop_back();
    }
  }
  if (!state) state = make_state();
  absl::StatusOr<c10::IValue> result = run(*state, std::move(inputs));
  std::lock_guard<std::mutex> lock(mutex_);
  idle_states_.push_back(std::move(state));
  return result;
}

absl::StatusOr<c10::IValue> ExecutionPlan::run(RunState& state,
                                               std::vector<c10::IValue> inputs) const {
  if (absl::Status s = check_inputs(inputs); !s.ok()) return s;
  if (absl::Status s = constraints_->check(inputs); !s.ok()) return s;
  c10::optional<c10::InferenceMode> inference;
  if (options_.inference_mode) inference.emplace();
  RunState::Impl& st = *state.impl_;
  const bool on_cuda = options_.device.is_cuda();
  if (on_cuda) {
    if (st.cuda == nullptr) st.cuda = std::make_unique<CudaRuns>(options_.device);
    st.cuda->begin_run();
  }
  absl::Cleanup end_run = [&st, on_cuda] {
    if (on_cuda) st.cuda->end_run();
  };
  input_signature(inputs, st.new_signature);
  if (st.spec == nullptr || st.signature != st.new_signature) {
    c10::IValue result;
    bool ran = false;
    auto spec = specialise(st.new_signature, inputs, &result, &ran);
    if (!spec.ok()) return spec.status();
    st.use(*std::move(spec), options_.device);
    st.signature = st.new_signature;
    if (ran) return result;  // the first run of this signature made the steps
  }
  if (on_cuda) {
    auto run_steps_on = [&](std::vector<c10::IValue>& in, const StepObserver* observer) {
      return run_steps(*st.spec, state, in, observer);
    };
    return st.cuda->run(st.signature, inputs, options_.cuda_graphs, st.arena, run_steps_on);
  }
  return run_steps(*st.spec, state, inputs, nullptr);
}

absl::StatusOr<c10::IValue> ExecutionPlan::run(RunState& state, std::vector<c10::IValue> inputs,
                                               c10::Stream stream) const {
  // (A plan for `cuda` without an index runs on the current CUDA device.)
  const bool same_device = options_.device.has_index()
                               ? stream.device() == options_.device
                               : stream.device_type() == options_.device.type();
  if (!same_device) {
    return absl::InvalidArgumentError(absl::StrCat("a stream of ", stream.device().str(),
                                                   " was given to a plan that runs on ",
                                                   options_.device.str()));
  }
  try {
    c10::StreamGuard on_stream(stream);
    return run(state, std::move(inputs));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot run on the stream given: ", exception_message(e)));
  }
}

CudaRunStatus ExecutionPlan::cuda_status(const RunState& state) const {
  const RunState::Impl& st = *state.impl_;
  if (st.cuda == nullptr) return CudaRunStatus();
  return st.cuda->status(st.signature);
}

absl::StatusOr<c10::IValue> ExecutionPlan::run_steps(const Specialisation& spec, RunState& state,
                                                     std::vector<c10::IValue>& inputs,
                                                     const StepObserver* observer) const {
  RunState::Impl& st = *state.impl_;
  std::vector<c10::IValue>& slots = st.slots;
  slots.resize(spec.num_slots);
  // Nothing of a run outlives it, whichever way it ends.
  absl::Cleanup clear = [&slots] {
    for (c10::IValue& v : slots) v = c10::IValue();
  };
  st.refresh_arena();
  c10::optional<AllocationCache::Scope> cached;
  if (options_.cache_allocations && st.device.is_cpu()) cached.emplace(st.allocations);
  torch::jit::Stack& stack = st.stack;
  c10::IValue result;
  for (const Step& step : spec.steps) {
    switch (step.kind) {
      case StepKind::kPlaceholder:
        slots[step.slot] = static_cast<size_t>(step.input) < inputs.size()
                               ? std::move(inputs[step.input])
                               : step.constant;
        break;
      case StepKind::kGetAttr:
        if (step.attribute == nullptr) {
          slots[step.slot] = step.constant;
        } else {
          absl::StatusOr<c10::IValue> value = read_attribute(*step.node, *step.attribute);
          if (!value.ok()) return value.status();
          slots[step.slot] = *std::move(value);
        }
        break;
      case StepKind::kOperator: {
        if (step.contraction != nullptr) {
          auto ran = run_contraction(*step.contraction, st.planned, slots, step.slot);
          if (!ran.ok()) return node_error(*step.node, ran.status().message());
          if (*ran) {
            if (observer != nullptr) (*observer)(step, slots[step.slot]);
            break;
          }
        }
        stack.clear();
        for (const ArgSource& a : step.args) {
          switch (a.kind) {
            case ArgSource::kConstant:
              stack.push_back(a.constant);
              break;
            case ArgSource::kSlot:
              stack.push_back(slots[a.slot]);
              break;
            case ArgSource::kMoveSlot:
              stack.push_back(std::move(slots[a.slot]));
              break;
            case ArgSource::kConvert: {
              auto v = convert_argument(a, step, slots);
              if (!v.ok()) return v.status();
              stack.push_back(*std::move(v));
              break;
            }
          }
        }
        if (step.planned >= 0) stack.push_back(st.planned[step.planned]);
        try {
          (*step.operation)(stack);
        } catch (const std::exception& e) {
          return node_error(*step.node, exception_message(e));
        }
        if (step.single_return) {
          slots[step.slot] = std::move(stack.back());
        } else {
          slots[step.slot] = take_returns(*step.schema, stack);
        }
        if (observer != nullptr) (*observer)(step, slots[step.slot]);
        break;
      }
      case StepKind::kCall:
      case StepKind::kOutput: {
        auto value = run_call_step(step, slots);
        if (!value.ok()) return value.status();
        if (step.kind == StepKind::kOutput) {
          result = *std::move(value);
          if (observer != nullptr) (*observer)(step, result);
        } else {
          slots[step.slot] = *std::move(value);
          if (observer != nullptr) (*observer)(step, slots[step.slot]);
        }
        break;
      }
    }
    for (uint32_t dead : step.release) slots[dead] = c10::IValue();
  }
  return result;
}

}  // namespace fx
