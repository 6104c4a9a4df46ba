// Copyright 2026 The FX for C++ Authors.
//
// cuda_runs.h (internal to runtime/): what a run state of a plan on a CUDA
// device adds to a CPU run (read with execution_plan.h and plan_steps.h).
//
//   * Stream order. A run state's arena, its captured graphs' buffers and
//     the values it hands out are used by kernels queued on the stream that
//     was current when it ran. A run on another stream first makes that
//     stream wait for the state's last run (an event, no host wait), so a
//     state taken from the plan's pool by a thread with its own stream is
//     safe, and no run synchronises the device.
//   * Host synchronisations. The second run of an input signature on a state
//     (its first run of steps) is observed: operators that synchronise the
//     device with the host (libtorch's sync debug mode, in "warn" for the
//     length of that run: `.item()`, data-dependent shapes, copies to the
//     CPU) are named, for reports and for capture, as are the nodes that
//     compute on the host what a replay would need again: a tensor off the
//     plan's device that feeds a node computing on the device, or a random
//     draw on the host. (Host tensors used for shapes only, or not at all,
//     do not matter: a replay needs none of their data.)
//   * CUDA graphs (PlanOptions::cuda_graphs). After that observed run, a
//     signature with no such node, whose inputs are all tensors and with no
//     random operator given a generator of its own, is captured into a CUDA
//     graph (at::cuda::CUDAGraph, on a side stream, thread-local capture
//     mode) with static input buffers; later runs copy their inputs into
//     them, replay the graph on the current stream and return copies of its
//     outputs (the graph's own are overwritten by the next replay). Inputs
//     the graph writes are copied back to the caller's tensors after each
//     replay. A signature that cannot be captured runs as before, and
//     `status()` says which node prevents capture. Each run executes the
//     graph exactly once: the observed run is the run of its call, and
//     capturing executes nothing.
//
// Built without CUDA (FX_LIBTORCH_HAS_CUDA unset), a plan never reaches
// this: compile() refuses CUDA devices first (devices.h).
#ifndef FX_RUNTIME_PLAN_CUDA_RUNS_H_
#define FX_RUNTIME_PLAN_CUDA_RUNS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/node.h"
#include "runtime/plan/execution_plan.h"

namespace fx {

// Runs the state's specialisation on `inputs` (moving them out), calling
// `observer` after each step when it is not null.
using StepRunner =
    absl::FunctionRef<absl::StatusOr<c10::IValue>(std::vector<c10::IValue>& inputs,
                                                  const StepObserver* observer)>;

class CudaRuns {
 public:
  explicit CudaRuns(const c10::Device& device);
  ~CudaRuns();
  CudaRuns(const CudaRuns&) = delete;
  CudaRuns& operator=(const CudaRuns&) = delete;

  // Around every run of the state: the current stream waits for the state's
  // last run when that was on another stream; the end records this one.
  void begin_run();
  void end_run();

  // Runs the steps of `signature` on `inputs`, observed, captured or
  // replayed as the header says. `arena` is the state's arena for the
  // signature: a captured graph keeps it (its kernels write there), since
  // the state makes a new one when it switches signatures.
  absl::StatusOr<c10::IValue> run(const std::vector<int64_t>& signature,
                                  std::vector<c10::IValue>& inputs, bool use_graphs,
                                  const at::Tensor& arena, StepRunner run_steps);

  // What is known of `signature` on this state.
  CudaRunStatus status(const std::vector<int64_t>& signature) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fx

#endif  // FX_RUNTIME_PLAN_CUDA_RUNS_H_
