// Copyright 2026 The FX for C++ Authors.
//
// cut_points.h (internal to passes/split): where split cuts a graph, from
// explicit points or by balancing a cost per node (split.h says how).
#ifndef FX_PASSES_SPLIT_CUT_POINTS_H_
#define FX_PASSES_SPLIT_CUT_POINTS_H_

#include "absl/status/statusor.h"
#include "passes/split/split.h"

namespace fx {

// True for nodes that belong to a stage (not placeholders, get_attr, output).
bool is_staged_node(const Node& n);

struct StageChoice {
  StageAssignment stage_of;  // per node in graph order
  SplitReport report;
};

// The stage of every node, from `options.points` or `options.stages`.
absl::StatusOr<StageChoice> choose_stages(GraphModule& gm, const SplitOptions& options);

}  // namespace fx

#endif  // FX_PASSES_SPLIT_CUT_POINTS_H_
