// Copyright 2026 The FX for C++ Authors.
//
// fold_bn.h: batch norms in eval mode folded into the convolution or linear
// layer before them (torch.fx's `fuse` and fuse_conv_bn_weights, TorchScript's
// FoldConvBatchNorm).
//
// In eval mode a batch norm is an affine map per channel,
//   y = (x - running_mean) / sqrt(running_var + eps) * weight + bias,
// so after a convolution or a linear layer it can be folded into new weights:
//   W' = W * scale (per output channel),  b' = (b - running_mean) * scale + bias,
//   scale = weight / sqrt(running_var + eps)
// (computed in float32, or float64 when a tensor is, and stored in the
// dtypes of W and b; a bias is made where there was none). The folded
// weights are new attributes of the GraphModule (`<weight path>_folded`,
// `<...>_bias_folded`, made unique as torch.fx makes attribute names); the
// old ones stay until `dce{submodules=true}` drops what nothing reads.
//
// What is matched, at every level a graph can be at:
//   * call_module: a Conv1d/2d/3d or Linear module, then a BatchNorm1d/2d/3d
//     module (the convolution becomes a call_function of aten::convNd);
//   * calls, read in one spelling (passes/support/normalized_call.h: any
//     overload, torch.* functions, torch.nn.functional leaf functions traced
//     from a .pt): aten::conv1d/2d/3d, aten::convolution and
//     aten::_convolution (not transposed) or aten::linear, then
//     aten::batch_norm (pytorch issue 122070: functional batch norms were not
//     matched);
//   * torch.export programs: the same, and
//     aten::_native_batch_norm_legit_no_training (native_batch_norm,
//     _native_batch_norm_legit with training false) and its getitem 0.
//
// What is left alone, with a warning on the PassContext saying why:
//   * a batch norm in training mode (it normalises with the batch's
//     statistics), or without running statistics;
//   * a convolution whose result is used by anything but the batch norm
//     (pytorch issues 104593 and 197539: the other user would see the folded
//     values); users that only read the result's rank, sizes, dtype or device
//     (the input check a BatchNorm2d inlines) are no obstacle;
//   * weights or a bias used elsewhere (a module called twice, tied weights):
//     folding would change what the other user computes, or keep two copies;
//   * a layer whose output rank is not known where the batch norm would
//     read another dimension as channels for an unbatched input (BatchNorm1d
//     after a linear layer, a functional batch norm): run `shape_prop` first;
//   * weights or statistics the graph computes rather than reads; transposed
//     convolutions; padding modes other than zeros.
#ifndef FX_PASSES_FOLD_BN_FOLD_BN_H_
#define FX_PASSES_FOLD_BN_FOLD_BN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What fold_batch_norms did.
struct FX_API FoldBatchNormReport {
  // The batch norm nodes folded away, by name, in graph order.
  std::vector<std::string> folded;
  // One line per batch norm left alone for another reason than training
  // mode: its name and why.
  std::vector<std::string> left_alone;
  // The batch norms left alone because they run in training mode.
  std::vector<std::string> in_training_mode;
};

// Folds every foldable batch norm of `module` (see the file comment).
FX_API absl::StatusOr<FoldBatchNormReport> fold_batch_norms(GraphModule& module);

class FX_API FoldBatchNorm : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "fold_bn".
FX_API void register_fold_bn(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_FOLD_BN_FOLD_BN_H_
