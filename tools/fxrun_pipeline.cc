// Copyright 2026 The FX for C++ Authors.
#include "tools/fxrun_pipeline.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "distributed/local_launcher.h"
#include "distributed/machine_resources.h"
#include "distributed/microbatches.h"
#include "distributed/pipeline_schedule.h"
#include "distributed/rendezvous.h"
#include "distributed/stage_program.h"
#include "distributed/tensor_exchange.h"
#include "distributed/world.h"
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

// What one rank of fxrun takes before its model: libtorch and fxrun, as a
// rank of a model of a few kilobytes measured (201 MiB peak, Debian's
// libtorch 1.13), and per byte of the model's file what it reads and traces
// (ResNet-18: a 45 MiB file, a rank of 335 MiB peak: 3 bytes per byte).
constexpr uint64_t kRankBaseBytes = uint64_t{200} << 20;
constexpr uint64_t kRankBytesPerModelByte = 3;

// Checks of the flags only the launcher has to make: those every rank would
// refuse, or that would make the ranks disagree, once started.
absl::Status check_launcher_flags(const PipelineSettings& settings, const std::string& model_path) {
  const WorldFlags& world = settings.world;
  // What each rank checks of the flags it is given (world.h): ranges, an
  // empty address. (The variables are those of the launcher's rank 0.)
  auto as_rank = world_from(world, [&](const char* name) -> std::optional<std::string> {
    for (const auto& [variable, value] : local_rank_variables(0, settings.stages, 1)) {
      if (variable == name) return value;
    }
    return std::nullopt;
  });
  if (!as_rank.ok()) return as_rank.status();
  if (world.world_size && *world.world_size != settings.stages) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--world-size=", *world.world_size, " but --stages=", settings.stages,
        ": fxrun starts one process per stage itself (no RANK or --rank given), so leave "
        "--world-size out (it is for ranks torchrun starts)"));
  }
  if (world.local_rank && settings.backend == CommBackend::kNccl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--local-rank=", *world.local_rank, " with --backend=nccl would put every rank on cuda:",
        *world.local_rank, "; fxrun starts every rank itself (no RANK or --rank given), each with "
        "its own: leave --local-rank out"));
  }
  if (model_path == "-") {
    return absl::InvalidArgumentError(
        "--model=- with --stages: every process of the pipeline reads the model, and standard "
        "input can be read once: give the model's path");
  }
  return absl::OkStatus();
}

// FNV-1a over `bytes`, continuing from `hash`: the same in every process
// (absl::Hash is seeded per process).
uint64_t fnv1a(const void* bytes, size_t size, uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

// The inputs as a rank sees them: their types and shapes, and a hash of
// their values.
void describe_inputs(const c10::IValue& v, std::string& shapes, uint64_t& hash) {
  if (v.isTensor()) {
    const at::Tensor t = v.toTensor().to(at::kCPU).contiguous();
    absl::StrAppend(&shapes, absl::AsciiStrToLower(c10::toString(t.scalar_type())), "[",
                    absl::StrJoin(t.sizes(), ", "), "]");
    hash = fnv1a(t.data_ptr(), t.numel() * t.element_size(), hash);
  } else if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    shapes += "(";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) shapes += ", ";
      describe_inputs(items[i], shapes, hash);
    }
    shapes += ")";
  } else {
    std::ostringstream text;
    text << v;
    const std::string value = text.str();
    shapes += v.tagKind();
    hash = fnv1a(value.data(), value.size(), hash);
  }
}

// What every rank must be given alike besides the cut (which the ranks
// compare first), in a fixed order: a rank given another would wait for
// messages the others never send, or check against other inputs. Names are
// the flags; values have no tab or newline.
std::vector<std::pair<std::string, std::string>> shared_settings(
    const PipelineSettings& settings, const RunOptions& options,
    const std::vector<c10::IValue>& inputs) {
  std::string shapes;
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) shapes += ", ";
    describe_inputs(inputs[i], shapes, hash);
  }
  return {{"--microbatches", std::to_string(settings.microbatches)},
          {"--warmup", std::to_string(options.warmup)},
          {"--repeat", std::to_string(options.repeat)},
          {"--backend", backend_name(settings.backend)},
          {"--device", c10::DeviceTypeName(options.device.type(), /*lower_case=*/true)},
          {"inputs", absl::StrReplaceAll(shapes, {{"\t", " "}, {"\n", " "}})},
          {"input values", absl::StrFormat("%016x", hash)}};
}

std::string serialize(const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string text;
  for (const auto& [name, value] : settings) absl::StrAppend(&text, name, "\t", value, "\n");
  return text;
}

// Every rank's settings against rank 0's: the first that differs, the same
// message on every rank.
absl::Status compare_settings(const std::vector<std::string>& published) {
  const std::string& first = published.front();
  for (size_t r = 1; r < published.size(); ++r) {
    if (published[r] == first) continue;
    const std::vector<std::string> ours = absl::StrSplit(first, '\n');
    const std::vector<std::string> theirs = absl::StrSplit(published[r], '\n');
    for (size_t i = 0; i < ours.size() && i < theirs.size(); ++i) {
      if (ours[i] == theirs[i]) continue;
      const std::vector<std::string> a = absl::StrSplit(ours[i], absl::MaxSplits('\t', 1));
      const std::vector<std::string> b = absl::StrSplit(theirs[i], absl::MaxSplits('\t', 1));
      if (a.size() != 2 || b.size() != 2 || a[0] != b[0]) break;
      if (a[0] == "inputs") {
        return absl::FailedPreconditionError(absl::StrCat(
            "rank ", r, "'s inputs are ", b[1], " and rank 0's ", a[1],
            ": every rank reads the inputs (stage 0 cuts them, the last checks against them), so "
            "give every rank the same --input-shape or --input"));
      }
      if (a[0] == "input values") {
        return absl::FailedPreconditionError(absl::StrCat(
            "rank ", r, "'s inputs hold other values than rank 0's (of the same shapes): every "
            "rank reads the inputs (stage 0 cuts them, the last checks against them), so give "
            "every rank the same --input file"));
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "rank ", r, " was given ", b[0], "=", b[1], " and rank 0 ", a[0], "=", a[1],
          ": the ranks of a pipeline run one schedule, so give every rank the same ", a[0]));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "rank ", r, "'s settings cannot be compared with rank 0's: is one of them another "
        "version of fxrun?"));
  }
  return absl::OkStatus();
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
  if (flags.stages > kMaxWorldSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--stages=", flags.stages, ": a pipeline has at most ", kMaxWorldSize,
        " processes, one per stage (and a stage needs a node of the graph)"));
  }
  if (flags.microbatches > kMaxMessagesInFlight) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--microbatches=", flags.microbatches, ": at most ", kMaxMessagesInFlight,
        " (a round's micro-batches are all under way between two stages at once, and each "
        "needs a row of the batch)"));
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
                                   const std::vector<std::pair<std::string, std::string>>& env,
                                   const std::string& model_path) {
  if (absl::Status s = check_launcher_flags(settings, model_path); !s.ok()) return s;
  // Each rank reads the model before any could say the pipeline is too
  // large: what they take is bounded here, before they start.
  struct stat model {};
  const uint64_t model_bytes = ::stat(model_path.c_str(), &model) == 0 ? model.st_size : 0;
  const uint64_t per_rank = kRankBaseBytes + kRankBytesPerModelByte * model_bytes;
  if (absl::Status s = check_ranks_fit(
          settings.stages, per_rank,
          absl::StrCat(bytes_for_message(kRankBaseBytes), " for libtorch and fxrun, and ",
                       kRankBytesPerModelByte, " times the model's ", bytes_for_message(model_bytes),
                       " file, which each reads and traces; more for large inputs"),
          absl::StrCat("--stages=", settings.stages), this_machine());
      !s.ok()) {
    return s;
  }
  quiet_c10d_logging();
  const int port = settings.world.master_port ? static_cast<int>(*settings.world.master_port) : 0;
  auto store = host_store(port, settings.timeout);
  if (!store.ok()) return store.status();
  // The ranks take --master-addr over the launcher's 127.0.0.1: the store
  // must answer there, or every rank would wait --timeout for it.
  if (settings.world.master_addr) {
    World rank;
    rank.master_addr = *settings.world.master_addr;
    rank.master_port = (*store)->getPort();
    rank.rank = 1;
    rank.world_size = settings.stages;
    rank.store_hosted_elsewhere = true;
    const auto within = std::min(settings.timeout, std::chrono::milliseconds(30000));
    if (!connect_store(rank, within).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--master-addr=", quote_for_message(*settings.world.master_addr),
          ": the store fxrun hosts for its ranks on this machine does not answer there within ",
          seconds_for_message(within), "; leave --master-addr out (it is for ranks torchrun "
          "starts, with RANK or --rank)"));
    }
  }
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
  // Every rank must have cut where the others did, and been given the same
  // schedule and inputs.
  const std::string cut = cut_fingerprint(split_module);
  if (absl::Status s = publish(*store_, world_, "cut", cut); !s.ok()) return s;
  if (absl::Status s = publish(*store_, world_, "settings",
                               serialize(shared_settings(settings_, options, inputs)));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = wait_for_ranks(*store_, world_, "ready", settings_.timeout); !s.ok()) {
    return s;
  }
  auto cuts = gather_from_ranks(*store_, world_, "cut", settings_.timeout);
  if (!cuts.ok()) return cuts.status();
  auto settings = gather_from_ranks(*store_, world_, "settings", settings_.timeout);
  if (!settings.ok()) return settings.status();
  absl::Status agreed = absl::OkStatus();
  for (int r = 1; r < world_.world_size && agreed.ok(); ++r) {
    if ((*cuts)[r] != (*cuts)[0]) {
      agreed = absl::FailedPreconditionError(absl::StrCat(
          "rank ", r, " cut the graph into stages elsewhere than rank 0: every process runs the "
          "passes itself, and split's cost=time measures each process's own run; give "
          "split{points=...} (or cost=params) to cut alike"));
    }
  }
  if (agreed.ok()) agreed = compare_settings(*settings);
  if (!agreed.ok()) {
    // Every rank found the same; none leaves (rank 0 may host the store)
    // before all have.
    (void)wait_for_ranks(*store_, world_, "compared", settings_.timeout);
    return agreed;
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
