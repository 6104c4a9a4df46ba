// Copyright 2026 The FX for C++ Authors.
#include "distributed/pipeline_schedule.h"

#include <chrono>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "distributed/microbatches.h"
#include "distributed/tensor_exchange.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// The last stage's outputs leave the pipeline: one in oneDNN's opaque layout
// (a graph file calling aten::to_mkldnn last) cannot be copied outside the
// plan's inference mode (libtorch fails inside), put together or printed.
absl::Status refuse_opaque_outputs(const c10::IValue& result) {
  const std::vector<c10::IValue> outputs =
      result.isTuple() ? result.toTupleRef().elements().vec() : std::vector<c10::IValue>{result};
  for (size_t i = 0; i < outputs.size(); ++i) {
    bool opaque = false;
    map_tensors(outputs[i], [&](const at::Tensor& t) {
      opaque = opaque || (t.defined() && t.is_mkldnn());
      return t;
    });
    if (opaque) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output ", i, " is an MKLDNN tensor (oneDNN's opaque layout), and a pipeline returns "
          "dense tensors: return aten::to_dense of it (the mkldnn_layout pass does so for its own)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string StageTimes::summary() const {
  const double n = microbatches > 0 ? microbatches : 1;
  return absl::StrFormat(
      "per micro-batch: compute %.2f ms, waiting for the previous stage %.2f ms, receiving "
      "%.2f ms, finishing sends %.2f ms",
      1e3 * compute / n, 1e3 * waiting / n, 1e3 * moving / n, 1e3 * sending / n);
}

std::string StageTimes::serialize() const {
  return absl::StrFormat("%d %.9g %.9g %.9g %.9g", microbatches, compute, waiting, moving, sending);
}

StageTimes StageTimes::parse(const std::string& text) {
  StageTimes t;
  std::istringstream in(text);
  in >> t.microbatches >> t.compute >> t.waiting >> t.moving >> t.sending;
  return t;
}

absl::StatusOr<StageRun> run_stage(const StageProgram& program, PeerGroup& group,
                                   const std::vector<c10::IValue>& inputs,
                                   const ScheduleOptions& options) {
  PlanOptions plan_options;
  plan_options.device = options.device;
  auto plan = ExecutionPlan::compile(program.module, plan_options);
  if (!plan.ok()) {
    return absl::Status(plan.status().code(), absl::StrCat("stage ", program.stage, ": ",
                                                           plan.status().message()));
  }
  auto state = (*plan)->make_state();
  const int m = options.microbatches;
  std::vector<std::vector<c10::IValue>> parts;
  if (program.stage == 0) {
    auto split = split_microbatches(inputs, m);
    if (!split.ok()) return split.status();
    parts = *std::move(split);
  }
  const int previous = program.stage - 1;
  const int next = program.stage + 1;
  StageRun run;
  const int rounds = options.warmup + std::max(1, options.repeat);
  for (int round = 0; round < rounds; ++round) {
    const bool timed = round >= options.warmup;
    if (options.start_round) {
      if (absl::Status s = options.start_round(round); !s.ok()) return s;
    }
    const Clock::time_point round_start = Clock::now();
    ReceiveTimes received;
    double compute = 0;
    std::vector<OutgoingValues> sending;
    for (int k = 0; k < m; ++k) {
      const int64_t sequence = int64_t{round} * m + k;
      std::vector<c10::IValue> stage_inputs;
      if (program.stage == 0) {
        stage_inputs = deep_copy(parts[k]);  // the plan may change its inputs in place
      } else {
        auto got = recv_values(group, program.input_names, previous, sequence, options.device,
                               &received);
        if (!got.ok()) {
          return absl::Status(got.status().code(),
                              absl::StrCat("micro-batch ", k, ": ", got.status().message()));
        }
        stage_inputs = *std::move(got);
      }
      const Clock::time_point start = Clock::now();
      absl::StatusOr<c10::IValue> result = (*plan)->run(*state, std::move(stage_inputs));
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat("stage ", program.stage, " failed on micro-batch ", k,
                                         ": ", result.status().message()));
      }
      // The plan may reuse its buffers in the next micro-batch: an output
      // kept is copied, and send_values copies what it sends.
      if (program.is_last()) {
        if (round == 0) {
          if (absl::Status s = refuse_opaque_outputs(*result); !s.ok()) {
            return absl::Status(s.code(), absl::StrCat("micro-batch ", k, ": ", s.message()));
          }
          run.outputs.push_back(deep_copy(*result));
        }
        compute += seconds(start, Clock::now());
        continue;
      }
      compute += seconds(start, Clock::now());
      std::vector<c10::IValue> values = result->toTupleRef().elements().vec();
      auto sent = send_values(group, values, program.output_names, next, sequence);
      if (!sent.ok()) {
        return absl::Status(sent.status().code(),
                            absl::StrCat("micro-batch ", k, ": ", sent.status().message()));
      }
      sending.push_back(*std::move(sent));
    }
    const Clock::time_point sends_start = Clock::now();
    for (OutgoingValues& outgoing : sending) {
      if (absl::Status s = finish_sending(group, outgoing); !s.ok()) return s;
    }
    const Clock::time_point round_end = Clock::now();
    if (timed) {
      run.round_seconds.push_back(seconds(round_start, round_end));
      run.times.microbatches += m;
      run.times.compute += compute;
      run.times.waiting += received.waiting;
      run.times.moving += received.moving;
      run.times.sending += seconds(sends_start, round_end);
    }
  }
  return run;
}

}  // namespace fx
