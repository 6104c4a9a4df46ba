// Copyright 2026 The FX for C++ Authors.
//
// stage_program.h: what one rank of a pipeline runs, cut out of a module the
// split pass made (passes/split/split.h: a top graph calling submod_0 ..
// submod_{N-1}).
//
//   fx::StageProgram p = *fx::stage_program(split_module, /*stage=*/1);
//   // p.module: placeholders p.input_names, calls submod_1, returns p.output_names
//
// Stage k's program takes the values live at the cut before it (stage 0: the
// top graph's inputs), runs the top graph's nodes of stage k (the call of
// submod_k and the getitems unpacking its result) and returns, as a tuple,
// the values live at the cut after it: every value defined so far that a
// later stage or the output reads, so a value stage 0 makes for stage 2
// rides through stage 1. The last stage returns the top graph's output.
//
// Contracts:
//   * Its module holds only submod_k (the rank builds only its own stage's
//     plan); parameters are shared with the split module, not copied.
//   * Errors (InvalidArgument): a module the split pass did not make (no
//     submod_ calls, or a top-graph node that belongs to no stage), a stage
//     outside 0..N-1.
#ifndef FX_DISTRIBUTED_STAGE_PROGRAM_H_
#define FX_DISTRIBUTED_STAGE_PROGRAM_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph_module.h"

namespace fx {

struct StageProgram {
  int stage = 0;
  int stages = 1;
  // The values it takes, in order: forward's inputs for stage 0, else those
  // the previous stage sends (named as in the top graph).
  std::vector<std::string> input_names;
  // The values it sends to the next stage, in order; empty for the last.
  std::vector<std::string> output_names;
  GraphModule module;

  bool is_last() const { return stage == stages - 1; }
};

// The number of stages of a split module (its submod_ calls); an error when
// `split_module` is not one.
absl::StatusOr<int> count_stages(const GraphModule& split_module);

absl::StatusOr<StageProgram> stage_program(const GraphModule& split_module, int stage);

// Where `split_module` was cut: each stage's nodes by name. Ranks compare
// theirs before running: a cut measured in each process (split's cost=time)
// may differ between them.
std::string cut_fingerprint(const GraphModule& split_module);

}  // namespace fx

#endif  // FX_DISTRIBUTED_STAGE_PROGRAM_H_
