// Copyright 2026 The FX for C++ Authors.
//
// pipeline_schedule.h: one rank's part of a pipeline run, in GPipe's order
// for inference: every stage takes micro-batches 0, 1, ..., M-1 in turn,
// receiving each from the previous rank and sending its result on without
// waiting for the send to finish, so stage i works on micro-batch k while
// stage i+1 works on k-1. (With no backward pass, 1F1B's order is the same.)
//
//   fx::StageRun run = *fx::run_stage(program, *group, inputs, options);
//   // last rank: run.outputs, one per micro-batch of the first round
//
// A run is `warmup + repeat` rounds of one batch each; `start_round` (a
// barrier of every rank: rendezvous.h's wait_for_ranks) starts each, so a
// round's time is one batch's latency through the pipeline, fill and drain
// included.
//
// Contracts:
//   * Stage 0 cuts `inputs` (split_microbatches); the others ignore them.
//   * Every message is numbered (round * M + micro-batch) and checked on
//     arrival (tensor_exchange.h); the last rank returns exactly M outputs.
//   * Every wait ends within the group's timeout; errors name the peer rank,
//     the micro-batch and what failed. A stage's own failure (its plan) is
//     an error naming the stage and micro-batch.
//   * Tensors sent or kept are copies: the plan's memory planner may reuse
//     its buffers in the next micro-batch.
#ifndef FX_DISTRIBUTED_PIPELINE_SCHEDULE_H_
#define FX_DISTRIBUTED_PIPELINE_SCHEDULE_H_

#include <functional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "distributed/process_group.h"
#include "distributed/stage_program.h"

namespace fx {

struct ScheduleOptions {
  int microbatches = 1;
  int warmup = 0;
  int repeat = 1;
  c10::Device device = c10::Device(c10::kCPU);
  // Called before each round (with its number); its error ends the run.
  std::function<absl::Status(int round)> start_round;
};

// Where one rank's time went over the timed rounds, in seconds.
struct StageTimes {
  int microbatches = 0;  // timed micro-batches
  double compute = 0;    // running the stage's plan
  double waiting = 0;    // waiting for the previous stage's message to start
  double moving = 0;     // receiving its tensors once it started
  double sending = 0;    // at the end of a round, waiting for sends to finish

  // One line: per micro-batch, in milliseconds.
  std::string summary() const;
  std::string serialize() const;
  static StageTimes parse(const std::string& text);
};

struct StageRun {
  // The last stage's: the first round's outputs, one per micro-batch.
  std::vector<c10::IValue> outputs;
  // Each timed round's time on this rank, from the barrier to its last send
  // finished (the last rank: its last output).
  std::vector<double> round_seconds;
  StageTimes times;
};

absl::StatusOr<StageRun> run_stage(const StageProgram& program, PeerGroup& group,
                                   const std::vector<c10::IValue>& inputs,
                                   const ScheduleOptions& options);

}  // namespace fx

#endif  // FX_DISTRIBUTED_PIPELINE_SCHEDULE_H_
