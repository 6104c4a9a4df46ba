// Copyright 2026 The FX for C++ Authors.
//
// mkldnn_layout.h: convolutional networks kept in oneDNN's (MKLDNN's)
// blocked layout between layers, with convolution weights reordered once:
// what `torch.jit.optimize_for_inference` does to a frozen TorchScript module
// (ConvertFrozenOpsToMKLDNN) and torch.fx's `optimization.optimize_for_inference`
// to a GraphModule, as a pass on our graphs.
//
// On a strided tensor, aten's convolution reorders the activation into
// oneDNN's layout and the weights into the one the kernel wants, on every
// call, and on one thread sends 1x1 convolutions at small batches to im2col
// and the BLAS. After this pass
//
//   %to_mkldnn = call_function[target=aten::to_mkldnn](args = (%x,))
//   %conv1 = call_function[target=aten::mkldnn_convolution](args = (%to_mkldnn,
//                %conv1_weight_folded_mkldnn, %conv1_bias_folded, [3, 3], [2, 2], [1, 1], 1))
//   %relu_ = call_function[target=aten::relu_](args = (%conv1,))
//   ...
//   %to_dense = call_function[target=aten::to_dense](args = (%layer4_1_relu_1,))
//
// activations stay in the blocked layout from the first convolution to the
// last operator that has a kernel for it, and the weights are attributes
// reordered for their convolution (`<weight>_mkldnn`).
//
// What runs in the layout (every operator on float32 CPU tensors whose
// tensor_meta says so; shapes from `shape_prop` or the exported program):
//   * 2-d convolutions (aten::conv2d, aten::convolution and aten::_convolution
//     not transposed, without output padding) whose weight is an attribute
//     that the graph does not write and whose bias is an attribute or None, on 4-d inputs: become
//     aten::mkldnn_convolution on the reordered weight;
//   * on values already in the layout: relu, relu_, max_pool2d without
//     dilation (as aten::mkldnn_max_pool2d), avg_pool2d without divisor_override (and
//     not in ceil mode counting padding, which oneDNN averages otherwise),
//     adaptive_avg_pool2d (torch.nn.functional's too, with a literal size)
//     to sizes that divide the input's (MKLDNN's refuses others when it
//     runs: a graph run at other input sizes than shape_prop's may fail so),
//     dropout in eval mode, and add/add_ of two values in the layout of the
//     same shape with alpha 1 (a run where their shapes differ, as inputs
//     of other batch sizes can make them, fails in oneDNN's sum: 'could not
//     create a primitive descriptor'). An add whose operand is a fresh value
//     in the layout that nothing else reads (a residual block's last
//     convolution) becomes add_ into that operand, as in the frozen module:
//     oneDNN then makes no new tensor for the sum.
//   * hardtanh and relu6 (MobileNet's activation) as fx_mkldnn::hardtanh(_)
//     (runtime/kernels/mkldnn_kernels.h: TorchScript's own MKLDNN kernel); in
//     libtorch 1.13 only where the value's channels are a multiple of 16:
//     there that kernel leaves its result unwritten where oneDNN pads the
//     channels of its blocked layout, which makes 1.13's
//     optimize_for_inference silently wrong for a ReLU6 after an 8- or
//     24-channel convolution. Other channel counts are strided operators
//     there.
//   * hardswish and hardswish_ (MobileNetV3's activation) as
//     fx_mkldnn::hardswish(_), TorchScript's MKLDNN hardswish, with the same
//     limit on libtorch 1.13. A fresh value in the layout whose one user
//     is a strided in-place operator (hardswish_ on 24 channels there) is
//     converted for it and written as its strided copy: nothing else reads it.
// Leaf functions (torch.nn.functional.relu, ...) are lowered to their aten
// calls first (runtime/torchscript/function_lowering.h), as the execution plan would.
//
// Input-rank checks a BatchNorm2d inlined (`dim`, `ne`, `not_`, `_assert`) on
// a convolution now in the layout go: aten::mkldnn_convolution refuses inputs
// of any other rank than its weight's, so they cannot fail (rank_checks.h).
//
// Conversions: `aten::to_mkldnn` where a convolution's input is strided,
// `aten::to_dense` where a value in the layout is used by anything else (the
// graph's output included; users that read only its rank or sizes take it as
// it is). Values are converted once, except around in-place operators
// (and for strided values that may be written, or view a tensor that may
// be), where each user gets its own conversion just before it, so that it
// reads what it read before. Each connected group of converted operators
// (a region) is kept only when its convolutions outnumber the conversions it
// needs: a lone convolution between strided operators stays as it was
// (`mkldnn_layout{every_region=true}` converts them all).
//
// Left strided, with a warning when the graph has convolutions left alone:
// anything above whose shapes, dtype or device are not known or not float32
// on the CPU, and a region where a value in the layout is used by an operator
// that may write to it (a call with no schema, or one that writes that
// argument): its copy would be written, not the value; or that may view
// it (x.view(...), x[0]) before an in-place operator in the layout (relu_,
// add_) writes it: the view would be of a copy, blind to the write.
//
// NaN: oneDNN's relu gives 0 for NaN and its max pooling skips NaN, where
// aten gives NaN (as after TorchScript's optimize_for_inference).
//
// The graph then holds MKLDNN tensors: they cannot be saved in a graph file,
// TorchScript or a .pt2 (save before the pass, run it after loading), and
// they are CPU-only. Without MKLDNN in libtorch the pass changes nothing and
// says so.
#ifndef FX_PASSES_MKLDNN_LAYOUT_MKLDNN_LAYOUT_H_
#define FX_PASSES_MKLDNN_LAYOUT_MKLDNN_LAYOUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What plan_mkldnn_layout did.
struct FX_API MkldnnLayoutReport {
  // The convolutions now run in oneDNN's layout, by node name, in graph order.
  std::vector<std::string> convolutions;
  // Regions kept, and the conversions added.
  int regions = 0;
  int to_mkldnn = 0;
  int to_dense = 0;
  // Out-of-place adds that write one of their operands instead.
  int adds_in_place = 0;
  // Input-rank checks on convolutions' results removed (rank_checks.h).
  int rank_checks_removed = 0;
  // One line per convolution left strided: its name and why.
  std::vector<std::string> left_strided;
};

struct FX_API MkldnnLayoutOptions {
  // Converts every region, also those whose conversions outnumber their
  // convolutions (for tests, and for models measured to gain from it).
  bool every_region = false;
};

// Plans oneDNN's layout for `module` (see the file comment). Fails, saying to
// run shape_prop, when no node has tensor_meta.
FX_API absl::StatusOr<MkldnnLayoutReport> plan_mkldnn_layout(
    GraphModule& module, const MkldnnLayoutOptions& options = {});

class FX_API MkldnnLayout : public Pass {
 public:
  Option<bool> every_region{*this, "every_region",
                            "convert every region, also where conversions outnumber convolutions",
                            false};
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "mkldnn_layout".
FX_API void register_mkldnn_layout(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_MKLDNN_LAYOUT_MKLDNN_LAYOUT_H_
