// Copyright 2026 The FX for C++ Authors.
//
// transpose_linear.h: linear layers whose weight is stored transposed, once,
// so that the matrix product reads it in the order the BLAS wants (what
// TorchScript's freezing does: FrozenLinearTranspose).
//
// aten::linear(x, W, b) computes x @ W.t() + b: its BLAS call reads W
// through a transposed view on every call. With OpenBLAS (Debian's) and one
// thread that costs: ResNet-50's classifier (2048 -> 1000) took 1.77 ms at
// batch 1 as linear and 0.47 ms as a product with the transposed weight made
// contiguous beforehand (MobileNetV2's, 1280 -> 1000: 0.41 and 0.28 ms).
// After this pass
//
//   %fc_weight_transposed = get_attr[target=fc_weight_transposed]
//   %linear_matmul = call_function[target=aten::matmul](args = (%flatten, %fc_weight_transposed))
//   %linear_bias = call_function[target=aten::add.Tensor](args = (%linear_matmul, %fc_bias))
//
// where `fc_weight_transposed` is a new attribute of the GraphModule,
// W.t().contiguous() (named as torch.fx names attributes). matmul and add
// take every input rank linear takes (1-d, 2-d, batched), with the same
// broadcasting and result; the sums are the same up to float rounding (the
// BLAS may order them differently).
//
// What is matched: aten::linear, torch.nn.functional.linear and
// torch._C._nn.linear calls (TorchScript-traced, symbolically traced and
// torch.export graphs) whose weight is a 2-d strided tensor read by get_attr.
// Linear modules called as call_module are left to `inline` (run it first).
//
// Left alone, each with a line in the report (and a warning):
//   * a weight the graph may write or hand out: read by anything but a
//     linear's weight argument or an operator that neither writes its
//     arguments nor returns a view of them (an in-place call, a method call,
//     the graph's output, a submodule that holds it);
//   * a weight that is computed rather than read, or not a 2-d strided
//     tensor, or whose transpose is already contiguous.
// The transposed copy is made when the pass runs: a weight changed afterwards
// (load_state_dict, training) is not seen by the graph, as after fold_bn:
// run the pipeline again. The original weight stays until
// `dce{submodules=true}` drops what nothing reads.
#ifndef FX_PASSES_TRANSPOSE_LINEAR_TRANSPOSE_LINEAR_H_
#define FX_PASSES_TRANSPOSE_LINEAR_TRANSPOSE_LINEAR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What transpose_linear_weights did.
struct FX_API TransposeLinearReport {
  // The linear calls now reading a transposed weight, by node name, in graph order.
  std::vector<std::string> transposed;
  // One line per linear call left as it was: its name and why.
  std::vector<std::string> left_alone;
};

// Rewrites the linear calls of `module` (see the file comment).
FX_API absl::StatusOr<TransposeLinearReport> transpose_linear_weights(GraphModule& module);

class FX_API TransposeLinear : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "transpose_linear".
FX_API void register_transpose_linear(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_TRANSPOSE_LINEAR_TRANSPOSE_LINEAR_H_
