// Copyright 2026 The FX for C++ Authors.
//
// microbatches.h: a batch cut into micro-batches along dim 0, and the
// micro-batches' outputs put back together.
//
//   auto parts = *fx::split_microbatches(inputs, 4);      // 4 lists of inputs
//   c10::IValue whole = *fx::concat_microbatches(outputs, 4);
//
// Contracts:
//   * `split_microbatches` cuts every tensor input along dim 0 into exactly
//     `count` parts as torch.tensor_split does: sizes differ by at most one,
//     the larger first (a batch of 10 in 4: 3, 3, 2, 2). Inputs that are not
//     tensors go whole to every part. Errors: count below 1, a tensor input
//     with no dim 0, tensor inputs whose dim 0 differ, fewer rows than
//     `count` (an empty micro-batch), no tensor input at all with count > 1.
//   * `concat_microbatches` checks it has one output per micro-batch of
//     `rows` (none dropped) and concatenates each tensor of their common
//     structure (tuples, lists, dicts) along dim 0; with one micro-batch it
//     returns the output as it is. A 0-dim tensor, a tensor whose dim 0 is
//     not its micro-batch's rows (a Gram matrix, a per-feature statistic) or
//     a non-tensor leaf that differs between micro-batches cannot be put back
//     together: an error naming the output.
//   * `check_outputs_follow_the_batch` runs `module` on the meta device
//     (shapes, no data) at the whole batch of `inputs` and at its first
//     micro-batch, and refuses, naming it, a tensor output whose dim 0 is not
//     the rows in both (so one whose dim 0 equals a micro-batch's rows by
//     chance is refused too); where the meta device cannot run the graph,
//     this part checks nothing (concat_microbatches still checks each
//     micro-batch). Then it proves from the graph that every sample's
//     outputs depend on that sample alone (check_samples_kept_apart,
//     batch_independence.h), refusing, naming the output and the node, an
//     output that mixes samples (a Gram matrix x @ x.t(), whose dim 0 does
//     follow the batch; a sum over the batch; batch norm in training mode).
#ifndef FX_DISTRIBUTED_MICROBATCHES_H_
#define FX_DISTRIBUTED_MICROBATCHES_H_

#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "runtime/graph_module.h"

namespace fx {

absl::StatusOr<std::vector<std::vector<c10::IValue>>> split_microbatches(
    const std::vector<c10::IValue>& inputs, int count);

absl::StatusOr<c10::IValue> concat_microbatches(const std::vector<c10::IValue>& outputs,
                                                const std::vector<int64_t>& rows);

absl::Status check_outputs_follow_the_batch(const GraphModule& module, const std::vector<c10::IValue>& inputs,
                                            int count);

// The sizes of dim 0 of the parts split_microbatches makes of `rows` rows.
std::vector<int64_t> microbatch_sizes(int64_t rows, int count);

}  // namespace fx

#endif  // FX_DISTRIBUTED_MICROBATCHES_H_
