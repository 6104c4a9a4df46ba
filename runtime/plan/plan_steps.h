// Copyright 2026 The FX for C++ Authors.
//
// plan_steps.h (internal to runtime/): what an ExecutionPlan compiles a run
// into, and what a run state holds. Read with execution_plan.h.
//
// A specialisation (one per input signature) is a vector of Steps over
// numbered slots, one slot per graph node (its position). An operator step
// holds its stack in schema order as ArgSources: constants converted once,
// slots read as they are, or (rarely: lists that mix nodes and literals,
// values whose type needs Python's coercions) converted at run time.
#ifndef FX_RUNTIME_PLAN_PLAN_STEPS_H_
#define FX_RUNTIME_PLAN_PLAN_STEPS_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <ATen/Tensor.h>

#include "absl/status/statusor.h"
#include "core/node.h"
#include "runtime/plan/allocation_cache.h"
#include "runtime/plan/cuda_runs.h"
#include "runtime/kernels/contraction.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/node_calls.h"

namespace fx {

struct ScriptCall;  // runtime/torchscript/script_calls.h

struct ArgSource {
  enum Kind : uint8_t { kConstant, kSlot, kMoveSlot, kConvert };
  Kind kind = kConstant;
  uint32_t slot = 0;        // kSlot, kMoveSlot (the slot's last reader)
  c10::IValue constant;     // kConstant
  // kConvert: the value of `from` (several: packed into a list, as Python
  // packs `x.view(2, -1)`), the numbers wrapped, coerced to `type`.
  std::vector<const Argument*> from;
  bool packed = false;
  bool wrap_number = false;
  c10::TypePtr type;  // nullptr: as it is
  c10::optional<int32_t> list_size;
  std::vector<std::pair<const Node*, uint32_t>> node_slots;  // the nodes `from` reads
};

// An operator step of aten::einsum or aten::tensordot compiled into one
// strided batched matrix product (contraction.h): its operands, and where
// its result and scratch live. A run whose operands have another layout
// calls the operator as usual.
struct ContractionStep {
  Contraction contraction;
  std::array<ArgSource, 2> operands;  // kSlot or kConstant
  // Indices into RunState's planned tensors; -1: allocated by each run.
  int planned_result = -1;
  std::array<int, 3> planned_scratch{-1, -1, -1};
  // Runs whose operands had another layout (PlanStats::contraction_fallbacks).
  mutable std::atomic<uint64_t> fallbacks{0};
};

enum class StepKind : uint8_t { kPlaceholder, kGetAttr, kOperator, kCall, kOutput };

struct Step {
  StepKind kind = StepKind::kCall;
  const Node* node = nullptr;
  uint32_t slot = 0;
  // kPlaceholder: the input's position, and its default when it has one;
  // kGetAttr: the value, or, for an attribute a module's code may rebind,
  // the target to read it from at each run (read_attribute).
  int input = -1;
  c10::IValue constant;
  const NodeTarget* attribute = nullptr;
  // kOperator: the stack in schema order. kCall: the positional arguments;
  // kOutput: the one value returned.
  std::vector<ArgSource> args;
  // kCall: keyword arguments.
  std::vector<std::pair<std::string, ArgSource>> kwargs;
  // kOperator
  // Calling an Operation is not const in its API, though it changes nothing:
  // several threads call it at once, as TorchScript does.
  mutable c10::optional<torch::jit::Operation> operation;
  const c10::FunctionSchema* schema = nullptr;
  bool single_return = false;
  int planned = -1;  // writes into RunState's planned tensor of this index
  // Set for a compiled contraction.
  std::shared_ptr<ContractionStep> contraction;
  // kCall: one of these.
  Builtin builtin = Builtin::kNone;
  std::shared_ptr<const ScriptCall> script;  // TorchScript code (script_calls.h)
  // The code rebinds its module's attributes (script_calls.h's
  // rebinds_module_state): host work a CUDA graph's replay would not do.
  bool rebinds_module_state = false;
  std::shared_ptr<const ExecutionPlan> graph_module_plan;
  // Slots whose last reader this step is.
  std::vector<uint32_t> release;
};

// A tensor in the arena, as the first run made it.
struct PlannedTensorSpec {
  c10::ScalarType dtype = c10::ScalarType::Float;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  size_t offset = 0;
  size_t bytes = 0;
};

struct ExecutionPlan::Specialisation {
  std::vector<Step> steps;
  uint32_t num_slots = 0;
  std::vector<PlannedTensorSpec> planned;
  size_t arena_bytes = 0;
  PlanStats stats;
};

// Per node, what compile() found.
struct ExecutionPlan::NodeInfo {
  const Node* node = nullptr;
  NodeTarget target;
  int placeholder_index = -1;
};

// Per node, what the first run of a signature chose.
struct ExecutionPlan::NodeChoice {
  bool is_operator = false;
  ResolvedCall call;
  // An einsum or tensordot compiled for the operands it was called with
  // (before any later op of the run could change them in place).
  std::shared_ptr<const Contraction> contraction;
  std::shared_ptr<const ScriptCall> script;  // TorchScript code (script_calls.h)
  std::shared_ptr<const ExecutionPlan> graph_module_plan;
};

struct ExecutionPlan::RunState::Impl {
  std::vector<c10::IValue> slots;
  torch::jit::Stack stack;
  std::shared_ptr<const Specialisation> spec;
  std::vector<int64_t> signature;    // of `spec`
  std::vector<int64_t> new_signature;  // this run's, compared with it
  // The arena and the tensors planned in it (by index), on `device`.
  at::Tensor arena;
  std::vector<at::Tensor> planned;
  c10::Device device = c10::Device(c10::kCPU);
  // Memory the operators allocate themselves, kept between runs.
  AllocationCache allocations;
  // On a CUDA device: stream order, observed runs and CUDA graphs.
  std::unique_ptr<CudaRuns> cuda;

  // Switches to `spec`: a new arena and planned tensors.
  void use(std::shared_ptr<const Specialisation> spec, const c10::Device& device);
  // Points planned tensors that an operator moved out of the arena (it grew
  // them past their planned bytes) back into it.
  void refresh_arena();
  at::Tensor make_planned(const PlannedTensorSpec& spec) const;
};

// The key a specialisation is found by: kinds, dtypes, devices, shapes and
// (of non-contiguous tensors) strides of the inputs (of tensors nested in
// lists and tuples too), written into `out`
// (a run state's buffer: no allocation per run once it has grown).
void input_signature(const std::vector<c10::IValue>& inputs, std::vector<int64_t>& out);

// The run-time value of a kConvert source.
absl::StatusOr<c10::IValue> convert_argument(const ArgSource& source, const Step& step,
                                             const std::vector<c10::IValue>& slots);

// The tensors in `v`, nested in lists and tuples too, appended to `out`.
void collect_tensors(const c10::IValue& v, std::vector<at::Tensor>& out);
// Whether `a` and `b` hold tensors sharing storage.
bool shares_storage(const c10::IValue& a, const c10::IValue& b);

// Runs a kCall or kOutput step: its value.
absl::StatusOr<c10::IValue> run_call_step(const Step& step, const std::vector<c10::IValue>& slots);

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_PLAN_STEPS_H_
