// Copyright 2026 The FX for C++ Authors.
//
// execution_plan.h: a GraphModule compiled once for a device and run fast,
// from many threads at once.
//
//   std::shared_ptr<const fx::ExecutionPlan> plan = *fx::ExecutionPlan::compile(gm);
//   c10::IValue out = *plan->run({torch::rand({1, 3, 224, 224})});   // thread-safe
//
//   // A server thread keeps its own run state (no pool lock per request):
//   auto state = plan->make_state();
//   c10::IValue out2 = *plan->run(*state, {input});
//
// Calling a GraphModule (`gm(inputs)`) runs its plan; the Interpreter
// (interpreter.h) is the overridable, debuggable path, chosen explicitly.
// Both give the same results (node_calls.h holds what a node means).
//
// How it runs (Static Runtime's StaticModule/StaticRuntime split):
//   * `compile` copies the graph, lowers leaf-function calls whose literal
//     arguments decide their bodies to operator calls (function_lowering.h),
//     looks every target up once (exact operators, leaf functions, submodule
//     forwards) and reads every get_attr once; for a
//     device other than the CPU it places a copy of the parameters, buffers and
//     submodules on that device. The plan is immutable after that.
//   * The first run with a new input signature (types, dtypes, devices,
//     shapes and, where not contiguous, strides of the inputs) runs node by
//     node, resolving each Python-level target (`operator.add`, call_method
//     `view`) to the aten overload its argument types select, and compiles
//     the run into steps: numbered slots,
//     each operator's stack prebuilt in schema order (constants converted once,
//     values read from slots without conversion where their types already
//     fit), each value released, or moved into its last reader, right after
//     its last use (core/last_uses.h). Later runs with that signature do no
//     string work, map lookup or allocation of their own per node.
//   * Memory planning, when on: an operator with an `.out` overload
//     (out_variants.h) writes its result into a tensor of one arena per run
//     state, sized from the first run; tensors whose lifetimes (their
//     aliases' included) do not overlap share bytes (memory_planner.h).
//     Graph outputs, anything aliasing an input or an output, and values
//     passed to opaque calls (submodules, functions) are never in the arena.
//     An operator that grows its output past its planned bytes gets memory of
//     its own for that run, never a neighbour's.
//   * Contractions: a two-operand aten::einsum or aten::tensordot (composite
//     operators that permute, reshape, copy and multiply on every call) runs
//     as direct loops over its operands where it is small, else as one
//     aten::bmm.out over strided views of them, planned for the layouts the
//     first run saw and checked against aten's result then (contraction.h);
//     its result and any scratch copy live in the arena. A later run whose
//     operands have other strides calls the operator.
//   * Runs under c10::InferenceMode unless `inference_mode` is off (then
//     autograd records as usual and memory planning is off: outputs may be
//     saved for backward).
//
// Contracts:
//   * Inputs bind to placeholders in order; trailing placeholders with a
//     default may be left out. Tensors must be on the plan's device.
//   * Errors: wrong number or type of inputs name the placeholder and what it
//     expects; a failing operator names the node, its target and libtorch's
//     message. Nothing throws.
//   * `run(inputs)` may be called from any number of threads at once; each
//     call takes a run state from a pool. `run(state, inputs)` requires that
//     no other thread uses `state` at the same time.
//   * Tensors returned never live in the arena: they stay valid and unchanged
//     after later runs.
#ifndef FX_RUNTIME_PLAN_EXECUTION_PLAN_H_
#define FX_RUNTIME_PLAN_EXECUTION_PLAN_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {

struct FX_API PlanOptions {
  c10::Device device = c10::Device(c10::kCPU);
  // Run under c10::InferenceMode (no autograd bookkeeping).
  bool inference_mode = true;
  // Write intermediate values into a planned arena through `.out` overloads
  // (only under inference mode).
  bool plan_memory = true;
  // Replace leaf-function calls whose literal arguments decide every branch
  // of the function's body by the operator calls it makes
  // (function_lowering.h), so they run, and are planned, as operators.
  bool lower_functions = true;
  // Compile two-operand aten::einsum and aten::tensordot calls, for the
  // operand layouts of each input signature, into one batched matrix
  // product over strided views of the operands (under inference mode).
  bool compile_contractions = true;
  // Keep the CPU memory that operators without an out= overload allocate
  // themselves (oneDNN's fused convolutions), of 64 KiB or more, for the
  // next run of the same run state, instead of handing it back to the
  // system to be faulted in again (allocation_cache.h). Holds at most one
  // run's worth of such blocks per run state.
  bool cache_allocations = true;
  // On a CUDA device: capture each run state's runs of an input signature
  // into a CUDA graph after its first two runs and replay it from then on
  // (one launch for the whole graph); a signature that cannot be captured
  // runs uncaptured, and cuda_status() says why. Needs inference mode.
  bool cuda_graphs = false;
};

// What a run state knows of its last input signature on a CUDA device.
struct FX_API CudaRunStatus {
  // A run of the signature's steps was observed (its second run on the
  // state): the fields below are known.
  bool observed = false;
  // Nodes that made the device wait for the host ("%name (target)"): a
  // value read on the host, a shape that depends on data, a copy to the CPU.
  std::vector<std::string> host_syncs;
  // Runs replay a CUDA graph (PlanOptions::cuda_graphs); how many did.
  bool captured = false;
  uint64_t replays = 0;
  // With cuda_graphs, why the signature runs uncaptured, naming the node.
  std::string not_captured;
};

// What compiling one input signature produced.
struct FX_API PlanStats {
  size_t steps = 0;
  // Operator steps on the fast path (stack prebuilt); of them, those writing
  // through an `.out` overload into the arena.
  size_t operator_steps = 0;
  size_t out_variant_steps = 0;
  // Operator steps of einsum or tensordot run as one strided batched matrix
  // product (PlanOptions::compile_contractions).
  size_t contraction_steps = 0;
  // Runs of those steps so far whose operands had other strides than the
  // first run's, so that the operator ran instead.
  size_t contraction_fallbacks = 0;
  // Arguments converted at each run rather than prebuilt: lists that mix
  // nodes and literals, numbers a node computes that a tensor parameter
  // takes, values whose type needs Python's coercions.
  size_t converted_arguments = 0;
  // The summed sizes of the tensors in the arena (the results of out-variant
  // and contraction steps, contractions' scratch), and the arena's size.
  size_t planned_bytes = 0;
  size_t arena_bytes = 0;
  // The summed sizes of every tensor the steps produced in the first run
  // (what a run allocates without planning).
  size_t intermediate_bytes = 0;
};

class InputConstraints;
class Node;
struct Step;  // plan_steps.h
// Called after each operator or call step of an observed run (cuda_runs.h).
using StepObserver = absl::FunctionRef<void(const Step&, const c10::IValue&)>;

class FX_API ExecutionPlan {
 public:
  // What one thread's runs reuse: value slots, the operator stack, and the
  // arena with the tensors planned in it. Opaque; made by make_state().
  class RunState {
   public:
    RunState();
    ~RunState();
    RunState(const RunState&) = delete;
    RunState& operator=(const RunState&) = delete;

   private:
    friend class ExecutionPlan;
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };
  struct Specialisation;

  // Compiles `gm` for `options.device`. Fails naming the node whose target is
  // missing, or saying why the device cannot be used (devices.h).
  static absl::StatusOr<std::shared_ptr<const ExecutionPlan>> compile(
      const GraphModule& gm, const PlanOptions& options = PlanOptions());
  ~ExecutionPlan();
  ExecutionPlan(const ExecutionPlan&) = delete;
  ExecutionPlan& operator=(const ExecutionPlan&) = delete;

  // Runs the graph on `inputs`. Thread-safe.
  absl::StatusOr<c10::IValue> run(std::vector<c10::IValue> inputs) const;
  // Runs with a caller-owned state (one thread at a time per state).
  absl::StatusOr<c10::IValue> run(RunState& state, std::vector<c10::IValue> inputs) const;
  // The same on `stream` (a CUDA stream of the plan's device) rather than
  // the current one. Runs queue their kernels on the current stream and
  // never wait for the device, unless a node must read a value on the host
  // (cuda_status()); several threads, each with a state and a stream of
  // its own, may share one plan.
  absl::StatusOr<c10::IValue> run(RunState& state, std::vector<c10::IValue> inputs,
                                  c10::Stream stream) const;
  std::unique_ptr<RunState> make_state() const;
  // On a CUDA device: what `state` knows of the signature it ran last
  // (host synchronisations, CUDA graph capture); empty elsewhere.
  CudaRunStatus cuda_status(const RunState& state) const;

  const PlanOptions& options() const { return options_; }
  // The placeholders' names, in input order.
  const std::vector<std::string>& input_names() const { return input_names_; }
  // One entry per input signature compiled so far, oldest first.
  std::vector<PlanStats> stats() const;
  // How many leaf-function calls compile() lowered to operator calls.
  size_t lowered_functions() const { return lowered_functions_; }

 private:
  ExecutionPlan(const PlanOptions& options, GraphModule module);
  absl::Status build();
  // The specialisation for `inputs`' signature: found, or made by running
  // the graph node by node (its result goes to `*result`).
  absl::StatusOr<std::shared_ptr<const Specialisation>> specialise(
      const std::vector<int64_t>& signature, const std::vector<c10::IValue>& inputs,
      c10::IValue* result, bool* ran) const;
  // The first run of a signature, node by node: every node's value in
  // `values`, the choices made for each node in `choices`.
  struct NodeChoice;
  absl::Status run_node_by_node(const std::vector<c10::IValue>& inputs,
                                std::vector<c10::IValue>& values,
                                std::vector<NodeChoice>& choices) const;
  absl::StatusOr<std::shared_ptr<Specialisation>> make_steps(
      const std::vector<c10::IValue>& values, const std::vector<NodeChoice>& choices) const;
  void plan_memory(const std::vector<c10::IValue>& values, Specialisation& spec) const;
  absl::StatusOr<c10::IValue> run_steps(const Specialisation& spec, RunState& state,
                                        std::vector<c10::IValue>& inputs,
                                        const StepObserver* observer) const;
  absl::Status check_inputs(const std::vector<c10::IValue>& inputs) const;

  struct NodeInfo;
  PlanOptions options_;
  // The plan's own copy of the graph and the state it refers to (moved to
  // the device); node pointers below point into it.
  std::unique_ptr<GraphModule> module_;
  std::vector<NodeInfo> nodes_;  // in graph order; a node's index is its slot
  absl::flat_hash_map<const Node*, uint32_t> slot_of_;
  std::vector<std::string> input_names_;
  // The input shapes a graph read from a torch.export program accepts.
  std::unique_ptr<const InputConstraints> constraints_;
  size_t lowered_functions_ = 0;

  mutable std::mutex mutex_;  // guards the two members below
  mutable std::vector<std::pair<std::vector<int64_t>, std::shared_ptr<const Specialisation>>>
      specialisations_;
  mutable std::vector<std::unique_ptr<RunState>> idle_states_;
};

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_EXECUTION_PLAN_H_
