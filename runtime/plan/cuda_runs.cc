// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/cuda_runs.h"

#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/plan/plan_steps.h"
#include "runtime/value_conversion.h"

#if defined(FX_LIBTORCH_HAS_CUDA)
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include "core/message_text.h"
#include "runtime/operator_binding.h"
#endif

namespace fx {

#if defined(FX_LIBTORCH_HAS_CUDA)

namespace {

std::string first_line(const std::exception& e) { return first_line_of(exception_message(e)); }

std::string describe(const Node& node) {
  return absl::StrCat("%", node.name(), " (", node.target(), ")");
}

// Whether `value` holds a tensor on `device` (on_device), or elsewhere.
bool holds_tensor(const c10::IValue& value, const c10::Device& device, bool on_device) {
  std::vector<at::Tensor> tensors;
  collect_tensors(value, tensors);
  for (const at::Tensor& t : tensors) {
    if (t.defined() && (t.device() == device) == on_device) return true;
  }
  return false;
}

// Operators whose values differ from call to call without any input
// changing (random draws): on the host, a replay would not draw again.
bool draws_random(const Node& node) {
  for (absl::string_view word : {"rand", "normal", "bernoulli", "dropout", "multinomial",
                                 "uniform", "exponential", "cauchy", "geometric", "poisson"}) {
    if (absl::StrContains(node.target(), word)) return true;
  }
  return false;
}

// Counts the warnings libtorch's sync debug mode gives ("called a
// synchronizing CUDA operation"); passes every other warning on.
class SyncWarnings : public c10::WarningHandler {
 public:
  void process(const c10::Warning& warning) override {
    if (absl::StrContains(warning.msg(), "synchronizing CUDA operation")) {
      ++count;
    } else if (previous_ != nullptr) {
      previous_->process(warning);
    }
  }
  int count = 0;

 private:
  c10::WarningHandler* previous_ = c10::WarningUtils::get_warning_handler();
};

// libtorch's sync debug mode is process-wide: observed runs on several
// threads at once share one period in "warn", which the last one ends,
// restoring the mode found before the first.
class SyncWarnPeriod {
 public:
  SyncWarnPeriod() {
    std::lock_guard<std::mutex> lock(shared().mutex);
    if (shared().observers++ == 0) {
      shared().before = c10::cuda::warning_state().get_sync_debug_mode();
      if (shared().before == c10::cuda::SyncDebugMode::L_DISABLED) {
        c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
      }
    }
  }
  ~SyncWarnPeriod() {
    std::lock_guard<std::mutex> lock(shared().mutex);
    if (--shared().observers == 0) c10::cuda::warning_state().set_sync_debug_mode(shared().before);
  }
  SyncWarnPeriod(const SyncWarnPeriod&) = delete;
  SyncWarnPeriod& operator=(const SyncWarnPeriod&) = delete;

 private:
  struct Shared {
    std::mutex mutex;
    int observers = 0;
    c10::cuda::SyncDebugMode before = c10::cuda::SyncDebugMode::L_DISABLED;
  };
  static Shared& shared() {
    static Shared* s = new Shared();  // (never destroyed: used at exit too)
    return *s;
  }
};

// One input signature's runs on one state.
struct Entry {
  bool observed = false;
  std::vector<std::string> host_syncs;
  std::string off_device;  // why host work would be missing from a replay
  std::string generator;   // the first node given a generator of its own
  // The captured graph, its static inputs (and the indices of those it
  // writes), and its outputs, which each replay overwrites.
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  std::vector<at::Tensor> static_inputs;
  std::vector<size_t> written_inputs;
  c10::IValue outputs;
  at::Tensor arena;  // the memory-planned values' bytes, written by the graph
  uint64_t replays = 0;
  std::string not_captured;
};

}  // namespace

struct CudaRuns::Impl {
  // (`cuda` without an index: the current device, as placing the state did.)
  explicit Impl(const c10::Device& d)
      : device(d.has_index() ? d : c10::Device(d.type(), c10::cuda::current_device())) {}
  ~Impl() {
    // Replays may still be queued: their buffers are freed only after them.
    try {
      if (last_stream) last_run.synchronize();
    } catch (const std::exception&) {
    }
  }
  c10::cuda::CUDAStream current_stream() const {
    return c10::cuda::getCurrentCUDAStream(device.index());
  }
  absl::StatusOr<c10::IValue> observed_run(Entry& entry, std::vector<c10::IValue>& inputs,
                                           StepRunner run_steps);
  void capture(Entry& entry, const std::vector<c10::IValue>& inputs, StepRunner run_steps);
  absl::StatusOr<c10::IValue> replay(Entry& entry, std::vector<c10::IValue>& inputs);

  c10::Device device;
  absl::flat_hash_map<std::vector<int64_t>, Entry> entries;
  at::cuda::CUDAEvent last_run;
  std::optional<c10::cuda::CUDAStream> last_stream;
};

CudaRuns::CudaRuns(const c10::Device& device) : impl_(std::make_unique<Impl>(device)) {}
CudaRuns::~CudaRuns() = default;

void CudaRuns::begin_run() {
  if (!impl_->last_stream) return;
  const c10::cuda::CUDAStream current = impl_->current_stream();
  if (current != *impl_->last_stream) impl_->last_run.block(current);
}

void CudaRuns::end_run() {
  const c10::cuda::CUDAStream current = impl_->current_stream();
  impl_->last_run.record(current);
  impl_->last_stream = current;
}

absl::StatusOr<c10::IValue> CudaRuns::Impl::observed_run(Entry& entry,
                                                         std::vector<c10::IValue>& inputs,
                                                         StepRunner run_steps) {
  // (A run that failed part-way was observed in part: start again.)
  entry.host_syncs.clear();
  entry.off_device.clear();
  entry.generator.clear();
  SyncWarnings syncs;
  c10::WarningUtils::WarningHandlerGuard handler(&syncs);
  const SyncWarnPeriod warn;
  int seen = 0;
  // Nodes computed on the host (a tensor off the device). Replays do not run
  // them: harmless while their data reaches no kernel on the device (shapes
  // only, or nothing: e3nn's `torch.empty((), device="cpu")` for
  // broadcasting), and they draw nothing at random.
  absl::flat_hash_set<const Node*> on_host;
  auto observe = [&](const Step& step, const c10::IValue& value) {
    const Node& node = *step.node;
    if (entry.off_device.empty() && step.rebinds_module_state) {
      entry.off_device =
          absl::StrCat(describe(node), " runs code that changes its module's attributes");
    }
    if (syncs.count > seen) {
      seen = syncs.count;
      entry.host_syncs.push_back(describe(node));
    }
    if (holds_tensor(value, device, /*on_device=*/false)) {
      on_host.insert(&node);
      if (entry.off_device.empty() && draws_random(node)) {
        entry.off_device = absl::StrCat(describe(node), " draws random numbers on the host");
      }
    } else if (entry.off_device.empty() && holds_tensor(value, device, /*on_device=*/true)) {
      for (const Node* input : node.input_nodes()) {
        if (on_host.contains(input)) {
          entry.off_device = absl::StrCat(describe(*input), ", computed on the host, feeds ",
                                          describe(node), " on ", device.str());
          break;
        }
      }
    }
    const Argument* generator = node.kwarg("generator");
    if (entry.generator.empty() && generator != nullptr && !generator->is_none()) {
      entry.generator = describe(node);
    }
  };
  const StepObserver observer = observe;
  absl::StatusOr<c10::IValue> result = run_steps(inputs, &observer);
  entry.observed = result.ok();
  return result;
}

void CudaRuns::Impl::capture(Entry& entry, const std::vector<c10::IValue>& inputs,
                             StepRunner run_steps) {
  if (!entry.host_syncs.empty()) {
    entry.not_captured = absl::StrCat("node ", entry.host_syncs.front(),
                                      " waits for the device (a value read on the host)");
    return;
  }
  if (!entry.off_device.empty()) {
    entry.not_captured =
        absl::StrCat("node ", entry.off_device, ": host work, which a replay would not do");
    return;
  }
  if (!entry.generator.empty()) {
    entry.not_captured = absl::StrCat("node ", entry.generator,
                                      " draws from a generator of its own, which no capture "
                                      "advances between replays");
    return;
  }
  // Static inputs: ordinary tensors (they carry version counters, which
  // say which of them the graph writes), laid out as this call's.
  std::vector<at::Tensor> statics;
  std::vector<int64_t> versions;
  {
    c10::InferenceMode normal_tensors(false);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].isTensor()) {
        entry.not_captured = absl::StrCat("input ", i, " is a ", inputs[i].tagKind(),
                                          ", whose value a captured graph would keep");
        return;
      }
      const at::Tensor& t = inputs[i].toTensor();
      if (!t.is_non_overlapping_and_dense()) {
        entry.not_captured = absl::StrCat("input ", i,
                                          " overlaps itself (an expanded view), which no static "
                                          "buffer can stand for");
        return;
      }
      statics.push_back(at::empty_strided(t.sizes(), t.strides(), t.options()));
      versions.push_back(statics.back()._version());
    }
  }
  std::vector<c10::IValue> captured_inputs(statics.begin(), statics.end());
  const c10::cuda::CUDAStream caller = current_stream();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
  at::cuda::CUDAEvent ready;
  ready.record(caller);
  ready.block(side);
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  absl::StatusOr<c10::IValue> outputs = absl::UnknownError("not run");
  std::string failure;
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    try {
      graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
      try {
        outputs = run_steps(captured_inputs, nullptr);
      } catch (const std::exception& e) {
        outputs = absl::InternalError(first_line(e));
      }
      graph->capture_end();
    } catch (const std::exception& e) {
      failure = first_line(e);
    }
    // A failed capture must not leave the stream capturing.
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(side.stream(), &capturing) == cudaSuccess &&
        capturing != cudaStreamCaptureStatusNone) {
      cudaGraph_t abandoned = nullptr;
      cudaStreamEndCapture(side.stream(), &abandoned);
      if (abandoned != nullptr) cudaGraphDestroy(abandoned);
    }
    (void)cudaGetLastError();
  }
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(caller);
  if (!outputs.ok() || !failure.empty()) {
    entry.not_captured = absl::StrCat(
        "capturing failed: ", failure.empty() ? outputs.status().message() : failure);
    return;
  }
  for (size_t i = 0; i < statics.size(); ++i) {
    if (statics[i]._version() != versions[i]) entry.written_inputs.push_back(i);
  }
  entry.graph = std::move(graph);
  entry.static_inputs = std::move(statics);
  entry.outputs = *std::move(outputs);
}

absl::StatusOr<c10::IValue> CudaRuns::Impl::replay(Entry& entry, std::vector<c10::IValue>& inputs) {
  try {
    for (size_t i = 0; i < entry.static_inputs.size(); ++i) {
      entry.static_inputs[i].copy_(inputs[i].toTensor());
    }
    entry.graph->replay();
    for (size_t i : entry.written_inputs) inputs[i].toTensor().copy_(entry.static_inputs[i]);
    ++entry.replays;
    return deep_copy(entry.outputs);
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat("replaying the CUDA graph failed: ", first_line(e)));
  }
}

absl::StatusOr<c10::IValue> CudaRuns::run(const std::vector<int64_t>& signature,
                                          std::vector<c10::IValue>& inputs, bool use_graphs,
                                          const at::Tensor& arena, StepRunner run_steps) {
  Entry& entry = impl_->entries[signature];
  if (entry.graph != nullptr) return impl_->replay(entry, inputs);
  if (entry.observed) return run_steps(inputs, nullptr);
  // The inputs as this call gives them (the run moves them into its slots).
  const std::vector<c10::IValue> given = inputs;
  absl::StatusOr<c10::IValue> result = impl_->observed_run(entry, inputs, run_steps);
  if (result.ok() && use_graphs) {
    impl_->capture(entry, given, run_steps);
    if (entry.graph != nullptr) entry.arena = arena;
  }
  return result;
}

CudaRunStatus CudaRuns::status(const std::vector<int64_t>& signature) const {
  CudaRunStatus status;
  auto it = impl_->entries.find(signature);
  if (it == impl_->entries.end()) return status;
  const Entry& entry = it->second;
  status.observed = entry.observed;
  status.host_syncs = entry.host_syncs;
  status.captured = entry.graph != nullptr;
  status.replays = entry.replays;
  status.not_captured = entry.not_captured;
  return status;
}

#else  // no CUDA: compile() refuses CUDA devices, so none of this runs.

struct CudaRuns::Impl {};

CudaRuns::CudaRuns(const c10::Device&) : impl_(std::make_unique<Impl>()) {}
CudaRuns::~CudaRuns() = default;
void CudaRuns::begin_run() {}
void CudaRuns::end_run() {}

absl::StatusOr<c10::IValue> CudaRuns::run(const std::vector<int64_t>&,
                                          std::vector<c10::IValue>& inputs, bool, const at::Tensor&,
                                          StepRunner run_steps) {
  return run_steps(inputs, nullptr);
}

CudaRunStatus CudaRuns::status(const std::vector<int64_t>&) const { return CudaRunStatus(); }

#endif

}  // namespace fx
