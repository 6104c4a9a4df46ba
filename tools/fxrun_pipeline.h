// Copyright 2026 The FX for C++ Authors.
//
// fxrun_pipeline.h: fxrun --run --stages=N, the graph split into N stages run
// by N processes (distributed/): on one machine fxrun starts them itself; on
// several, torchrun (or Slurm, Kubernetes) starts each with its variables.
//
//   // the launcher: no RANK in the environment
//   absl::Status s = fx::launch_local_pipeline(settings, argv, runfiles_env, model_path);
//   // a rank
//   auto rank = *fx::PipelineRank::join(settings);
//   std::string report = *rank->run(split_module, inputs, run_options, &reference);
//
// Contracts:
//   * The launcher hosts the rendezvous store on --master-port (default: a
//     free port the system picks, so pipelines started at once never collide)
//     and re-executes this program (/proc/self/exe) once per rank with
//     torchrun's variables; it fails, naming the rank and its cause, when a
//     rank fails, after stopping the others.
//   * A rank joins the store before anything else (a bad address or port
//     fails at once), builds only its own stage's plan, waits for every rank
//     to be ready, runs its part of the schedule, and waits for every rank
//     to finish before leaving; each wait ends within --timeout naming the
//     ranks missing.
//   * Before running, the ranks compare their cuts, then what they were
//     given that must agree (--microbatches, --warmup, --repeat, --backend,
//     --device's kind, the inputs' shapes and values): every rank fails
//     with the same line naming the first rank that differs from rank 0,
//     and the flag.
//   * --stages is at most kMaxWorldSize, --microbatches at most
//     kMaxMessagesInFlight (tensor_exchange.h), before anything starts.
//   * The last rank gathers the micro-batches' outputs (all of them, or an
//     error), checks them against the reference when given, and returns the
//     report: outputs, check, latency and throughput, and where each rank's
//     time went; the other ranks return "".
#ifndef FX_TOOLS_FXRUN_PIPELINE_H_
#define FX_TOOLS_FXRUN_PIPELINE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "absl/status/statusor.h"
#include "distributed/pipeline_schedule.h"
#include "distributed/process_group.h"
#include "distributed/world.h"
#include "runtime/graph_module.h"
#include "tools/run_model.h"

namespace fx {

struct PipelineSettings {
  int stages = 0;
  int microbatches = 1;
  std::chrono::milliseconds timeout = std::chrono::seconds(300);
  CommBackend backend = CommBackend::kGloo;
  WorldFlags world;
};

// fxrun's pipeline flags as given (unset ones at their defaults).
struct PipelineFlags {
  int stages = 0;
  int microbatches = 1;
  double timeout_seconds = 300;
  std::string backend = "gloo";
  std::string master_addr;
  int master_port = 0, rank = 0, world_size = 0, local_rank = 0;
};

// The settings `flags` make, checked against the rest of the command line
// (`given(name)`: the flag was set; `runs`: --run, --check or --repeat is).
// Errors name the flag and the fix.
absl::StatusOr<PipelineSettings> pipeline_settings(
    const PipelineFlags& flags, const std::function<bool(absl::string_view)>& given, bool runs);

// Before any rank starts, refuses (one error naming the flag and the fix)
// what its ranks would each refuse or disagree on (the world flags' ranges,
// --world-size other than --stages, --local-rank with NCCL, --master-addr
// where its store does not answer, --model=-), and more ranks than this
// machine holds (machine_resources.h: each about 200 MiB and 3 times
// `model_path`'s size, against the memory available and the cores).
absl::Status launch_local_pipeline(const PipelineSettings& settings,
                                   const std::vector<std::string>& argv,
                                   const std::vector<std::pair<std::string, std::string>>& env,
                                   const std::string& model_path);

// `passes` with split{stages=N} added at the end when it has no split pass.
std::string passes_with_split(const std::string& passes, int stages);

class PipelineRank {
 public:
  static absl::StatusOr<std::unique_ptr<PipelineRank>> join(const PipelineSettings& settings);

  const World& world() const { return world_; }

  absl::StatusOr<std::string> run(const GraphModule& split_module,
                                  const std::vector<c10::IValue>& inputs,
                                  const RunOptions& options, const CheckReference* reference);

 private:
  absl::StatusOr<std::string> this_ranks_report(const StageRun& run,
                                                const std::vector<c10::IValue>& inputs,
                                                const RunOptions& options,
                                                const CheckReference* reference);
  PipelineRank(PipelineSettings settings, World world, c10::intrusive_ptr<c10d::Store> store)
      : settings_(std::move(settings)), world_(std::move(world)), store_(std::move(store)) {}

  PipelineSettings settings_;
  World world_;
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace fx

#endif  // FX_TOOLS_FXRUN_PIPELINE_H_
