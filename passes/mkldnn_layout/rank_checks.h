// Copyright 2026 The FX for C++ Authors.
//
// rank_checks.h: input-rank checks that a layout convolution settles.
//
// A BatchNorm2d inlined from TorchScript checks its input's rank,
//
//   %dim = call_function[target=aten::dim](args = (%conv2d,))
//   %ne = call_function[target=operator.ne](args = (%dim, 4))
//   %not_ = call_function[target=operator.not_](args = (%ne,))
//   %_assert = call_function[target=torch._assert](args = (%not_, 'expected 4D input ...'))
//
// and fold_bn keeps the check when it folds the batch norm away (it is what
// the model does). Once the convolution is aten::mkldnn_convolution the check
// cannot fail: that operator refuses any input whose rank is not its
// weight's (1.13 and 2.x alike: "Expected 4-dimensional input for
// 4-dimensional weight"), so its result has the weight's rank. The frozen
// TorchScript module has no such checks; four nodes each cost the plan a
// step per run (MobileNetV2: 52 checks, 208 steps).
#ifndef FX_PASSES_MKLDNN_LAYOUT_RANK_CHECKS_H_
#define FX_PASSES_MKLDNN_LAYOUT_RANK_CHECKS_H_

#include "absl/status/statusor.h"
#include "runtime/graph_module.h"

namespace fx {

// Erases every check of that shape (`dim`, then `!=` or `==` against an int,
// optionally `not_`, then `torch._assert`; nothing else reading its steps)
// on the result of an aten::mkldnn_convolution whose weight's rank makes the
// assertion hold. A check that would fail, or one whose values are read
// elsewhere, stays. Returns how many checks went.
absl::StatusOr<int> remove_settled_rank_checks(GraphModule& gm);

}  // namespace fx

#endif  // FX_PASSES_MKLDNN_LAYOUT_RANK_CHECKS_H_
