// Copyright 2026 The FX for C++ Authors.
#include "tools/fxrun_pipeline.h"

#include <algorithm>

#include <ATen/Parallel.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "distributed/local_launcher.h"
#include "distributed/microbatches.h"
#include "distributed/pipeline_schedule.h"
#include "distributed/rendezvous.h"
#include "distributed/stage_program.h"
#include "plugins/pipeline_text.h"

namespace fx {
namespace {

// Rows of the batch: dim 0 of the first tensor input (0 when none).
int64_t batch_rows(const std::vector<c10::IValue>& inputs) {
  for (const c10::IValue& v : inputs) {
    if (v.isTensor() && v.toTensor().dim() > 0) return v.toTensor().size(0);
  }
  return 0;
}

}  // namespace

absl::StatusOr<PipelineSettings> pipeline_settings(
    const PipelineFlags& flags, const std::function<bool(absl::string_view)>& given, bool runs) {
  const bool pipeline = given("stages");
  for (const char* flag : {"microbatches", "timeout", "backend", "master_addr", "master_port",
                           "rank", "world_size", "local_rank"}) {
    if (given(flag) && !pipeline) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", absl::StrReplaceAll(flag, {{"_", "-"}}),
          " is for a pipeline of processes: add --stages=N (and --run)"));
    }
  }
  PipelineSettings settings;
  if (!pipeline) return settings;
  if (!runs) {
    return absl::InvalidArgumentError(
        "--stages runs the graph as a pipeline of processes: add --run (or --check)");
  }
  for (const char* flag : {"save", "output", "emit"}) {
    if (given(flag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", flag, " is written by one process, and --stages runs several: run without "
          "--stages to write it (the split graph is the same)"));
    }
  }
  if (flags.stages < 1 || flags.microbatches < 1) {
    return absl::InvalidArgumentError("--stages and --microbatches take counts of at least 1");
  }
  if (!(flags.timeout_seconds > 0) || flags.timeout_seconds > 7 * 24 * 3600) {
    return absl::InvalidArgumentError(
        "--timeout takes the seconds a process waits for another, more than 0 (a week at most)");
  }
  auto backend = parse_backend(flags.backend);
  if (!backend.ok()) return backend.status();
  if (absl::Status s = backend_available(*backend); !s.ok()) return s;
  settings.stages = flags.stages;
  settings.microbatches = flags.microbatches;
  settings.timeout = std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_seconds * 1000));
  settings.backend = *backend;
  if (given("master_addr")) settings.world.master_addr = flags.master_addr;
  if (given("master_port")) settings.world.master_port = flags.master_port;
  if (given("rank")) settings.world.rank = flags.rank;
  if (given("world_size")) settings.world.world_size = flags.world_size;
  if (given("local_rank")) settings.world.local_rank = flags.local_rank;
  return settings;
}

absl::Status launch_local_pipeline(const PipelineSettings& settings,
                                   const std::vector<std::string>& argv,
                                   const std::vector<std::pair<std::string, std::string>>& env) {
  quiet_c10d_logging();
  const int port = settings.world.master_port ? static_cast<int>(*settings.world.master_port) : 0;
  auto store = host_store(port, settings.timeout);
  if (!store.ok()) return store.status();
  LocalLaunch launch;
  launch.program = "/proc/self/exe";
  launch.args = argv;
  launch.world_size = settings.stages;
  launch.port = (*store)->getPort();
  launch.env = env;
  return run_local_ranks(launch);
}

std::string passes_with_split(const std::string& passes, int stages) {
  auto elements = parse_pipeline(passes);
  if (elements.ok()) {
    for (const PipelineElement& e : *elements) {
      if (e.name == "split") return passes;
    }
  }
  const std::string split = absl::StrCat("split{stages=", stages, "}");
  return passes.empty() ? split : absl::StrCat(passes, ",", split);
}

absl::StatusOr<std::unique_ptr<PipelineRank>> PipelineRank::join(const PipelineSettings& settings) {
  auto world = world_from(settings.world, process_environment());
  if (!world.ok()) return world.status();
  if (world->world_size != settings.stages) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--stages=", settings.stages, " but the world has ", world->world_size,
        " processes (WORLD_SIZE or --world-size): a pipeline runs one stage per process, so "
        "give as many stages as processes"));
  }
  if (absl::Status s = backend_available(settings.backend); !s.ok()) return s;
  // A peer breaking Gloo's protocol would abort this process from Gloo's
  // thread: one line instead.
  report_broken_transport(absl::StrCat("fxrun: error: rank ", world->rank, ": "), 1);
  quiet_c10d_logging();
  auto store = connect_store(*world, settings.timeout);
  if (!store.ok()) return store.status();
  return std::unique_ptr<PipelineRank>(new PipelineRank(settings, *world, *store));
}

absl::StatusOr<std::string> PipelineRank::run(const GraphModule& split_module,
                                              const std::vector<c10::IValue>& inputs,
                                              const RunOptions& options,
                                              const CheckReference* reference) {
  auto stages = count_stages(split_module);
  if (!stages.ok()) return stages.status();
  if (*stages != world_.world_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the split pass made ", *stages, " stages, and the pipeline has ", world_.world_size,
        " processes (--stages): give split{stages=", world_.world_size, "} or --stages=", *stages));
  }
  auto program = stage_program(split_module, world_.rank);
  if (!program.ok()) return program.status();
  // Every rank must have cut where the others did.
  const std::string cut = cut_fingerprint(split_module);
  if (absl::Status s = publish(*store_, world_, "cut", cut); !s.ok()) return s;
  if (absl::Status s = wait_for_ranks(*store_, world_, "ready", settings_.timeout); !s.ok()) {
    return s;
  }
  auto cuts = gather_from_ranks(*store_, world_, "cut", settings_.timeout);
  if (!cuts.ok()) return cuts.status();
  for (int r = 0; r < world_.world_size; ++r) {
    if ((*cuts)[r] != cut) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rank ", r, " cut the graph into stages elsewhere than rank ", world_.rank,
          ": every process runs the passes itself, and split's cost=time measures each "
          "process's own run; give split{points=...} (or cost=params) to cut alike"));
    }
  }
  // Every rank refuses alike, before any waits on another, an output that
  // cannot be put back together along the batch.
  if (absl::Status s = check_outputs_follow_the_batch(split_module, inputs, settings_.microbatches); !s.ok()) {
    return s;
  }
  auto group = PeerGroup::connect(store_, world_, settings_.backend, settings_.timeout);
  if (!group.ok()) return group.status();
  ScheduleOptions schedule;
  schedule.microbatches = settings_.microbatches;
  schedule.warmup = options.warmup;
  schedule.repeat = options.repeat;
  schedule.device = options.device;
  schedule.start_round = [&](int round) {
    return wait_for_ranks(*store_, world_, absl::StrCat("round", round), settings_.timeout);
  };
  auto run = run_stage(*program, **group, inputs, schedule);
  if (!run.ok()) return run.status();
  auto report = this_ranks_report(*run, inputs, options, reference);
  // Nobody leaves (rank 0 may host the store) before every rank finished,
  // failed ones included: their own error says what went wrong.
  absl::Status done = wait_for_ranks(*store_, world_, "done", settings_.timeout);
  if (!report.ok()) return report.status();
  if (!done.ok()) return done;
  return report;
}

absl::StatusOr<std::string> PipelineRank::this_ranks_report(const StageRun& run,
                                                            const std::vector<c10::IValue>& inputs,
                                                            const RunOptions& options,
                                                            const CheckReference* reference) {
  if (absl::Status s = publish(*store_, world_, "times", run.times.serialize()); !s.ok()) return s;
  std::string report;
  if (world_.is_last()) {
    const int64_t rows = batch_rows(inputs);
    auto outputs = concat_microbatches(run.outputs, microbatch_sizes(rows, settings_.microbatches));
    if (!outputs.ok()) return outputs.status();
    absl::StrAppend(&report, "pipeline: ", world_.world_size, " stages on ", world_.world_size,
                    " processes (", backend_name(settings_.backend), "), ",
                    settings_.microbatches, " micro-batch(es) of ",
                    absl::StrJoin(microbatch_sizes(rows, settings_.microbatches), ", "),
                    " rows: ", run.outputs.size(), " of ", settings_.microbatches,
                    " outputs received\n");
    absl::StrAppend(&report, describe_outputs(*outputs));
    if (reference != nullptr) {
      CheckReference pipelined = *reference;
      pipelined.culprit =
          "a pass, or the pipeline (its cut, micro-batches or exchange), changed what the model "
          "computes";
      auto checked =
          check_outputs(*outputs, inputs, pipelined, Tolerance{options.atol, options.rtol});
      if (!checked.ok()) return checked.status();
      absl::StrAppend(&report, *checked);
    }
    std::vector<double> rounds = run.round_seconds;
    std::sort(rounds.begin(), rounds.end());
    const double median = rounds[rounds.size() / 2];
    absl::StrAppend(&report, absl::StrFormat(
        "latency: median %.3f ms, min %.3f ms, max %.3f ms per batch over %d run(s) after %d "
        "warmup, %d thread(s) per process; throughput %.1f rows/s\n",
        1e3 * median, 1e3 * rounds.front(), 1e3 * rounds.back(), static_cast<int>(rounds.size()),
        options.warmup, at::get_num_threads(), median > 0 ? rows / median : 0.0));
    auto times = gather_from_ranks(*store_, world_, "times", settings_.timeout);
    if (!times.ok()) return times.status();
    for (int r = 0; r < world_.world_size; ++r) {
      absl::StrAppend(&report, "rank ", r, " (stage ", r, "): ",
                      StageTimes::parse((*times)[r]).summary(), "\n");
    }
  }
  return report;
}

}  // namespace fx
