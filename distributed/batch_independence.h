// Copyright 2026 The FX for C++ Authors.
//
// batch_independence.h: a proof, from the graph, that every sample's outputs
// depend on that sample alone, which micro-batching needs (issue 53: a Gram
// matrix `x @ x.t()` at a batch of 4 came back [4, 2] from two micro-batches,
// exit 0, where PyTorch gives [4, 4]).
//
//   // x @ x.t(): refused, naming the output and the node.
//   absl::Status s = fx::check_samples_kept_apart(gm, {at::rand({4, 3})}, 2);
//   // "output 0 mixes samples of the batch: node 'matmul' (aten::matmul)
//   //  multiplies the batch dimension of 'x' (its dim 0) with the batch
//   //  dimension of 't' (its dim 1): every sample meets the others: run with
//   //  --microbatches=1"
//
// The analysis follows the batch through the graph, operator by operator.
// Every value is one of: free of the batch (parameters, constants, what is
// computed from them alone, sizes of non-batch dims); batched along one
// dimension of its own, whose i-th slice depends on sample i alone (dim 0 of
// every tensor input); a size that depends on the batch's row count (x.size(0),
// which a view may take and nothing else); or mixed, with the node that mixed
// it. Which dimension carries the batch is learnt from two runs of the graph on
// the meta device (shapes, no data; on the CPU where the meta device cannot run
// it), at the whole batch and at its first micro-batch: the one dimension whose
// size is the rows in both. An operator keeps samples apart only where it is
// known to (the allow-list below); anything else mixes.
//
// Kept apart (with its conditions):
//   * pointwise and broadcasting operators (add, relu, where, masked_fill, to,
//     dropout, ...): the batched operands' batch dims are the result's, right
//     aligned; in-place ones only on a batched tensor;
//   * permute, transpose, t, squeeze, unsqueeze, movedim, expand, repeat, pad:
//     the result still has the batch as a dimension of its own (its size the
//     rows at both batch sizes);
//   * view, reshape, flatten, unflatten: also the product of the sizes before
//     the batch dimension is the same in and out (not merged, not moved);
//   * reductions, softmax, cumsum, sort, topk, flip, split, select, slice,
//     narrow, index_select, gather: along other dims than the batch's;
//   * cat and stack of operands batched along the same dim, not along it;
//   * matmul, mm, bmm, mv, dot, outer, linear, addmm, baddbmm, einsum: read as
//     einsum, the batched operands carry the batch in the same index and the
//     result keeps it (one operand batched, or both along bmm's batch);
//   * convolutions (batch in dim 0, weight free), pooling and upsampling (not
//     over the batch dim), batch_norm in eval mode, instance_norm, group_norm
//     (batch in dim 0), layer_norm (not over the batch dim), embedding;
//   * call_module of torch.nn's leaf modules alike (Conv*, Linear, BatchNorm*
//     in eval mode, LayerNorm, GroupNorm, pooling, activations, Dropout,
//     Embedding, Flatten, Softmax, ...), and graph submodules (split_module's
//     stages), followed inside.
// Mixed: a contraction, reduction, sort or cumsum over the batch dim, a reshape
// that merges it, indexing across it, batch_norm in training mode, cat along
// it, the batch size used as a value (x / x.size(0)), unknown operators and
// modules, in-place writes of batched values into state.
//
// Contracts:
//   * `check_samples_kept_apart` reads `module` (and its graph submodules) and
//     changes nothing; it runs copies of them twice on the meta device (or
//     the CPU) on `inputs` and their first micro-batch (split_microbatches).
//     With `count` <= 1, OK at once. Errors (InvalidArgument) name the output
//     as concat_microbatches does ("output 1.0", "the output"), the node (and
//     its target or module class) that mixes the samples it reaches, and why,
//     and end "run with --microbatches=1". An output carrying the batch in
//     another dim than 0, or a non-tensor output that depends on the batch,
//     is refused too. Errors of split_microbatches are returned as they are.
//     When the graph runs neither on the meta device nor on the CPU, OK: the
//     run itself reports its error.
//   * Sound, not complete: what it accepts keeps samples apart (for the
//     operators above, as PyTorch defines them); some models that do are
//     refused (recurrent and attention modules, custom modules, operators not
//     listed).
#ifndef FX_DISTRIBUTED_BATCH_INDEPENDENCE_H_
#define FX_DISTRIBUTED_BATCH_INDEPENDENCE_H_

#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "runtime/graph_module.h"

namespace fx {

absl::Status check_samples_kept_apart(const GraphModule& module, const std::vector<c10::IValue>& inputs,
                                      int count);

}  // namespace fx

#endif  // FX_DISTRIBUTED_BATCH_INDEPENDENCE_H_
