// Copyright 2026 The FX for C++ Authors.
//
// mkldnn_fusion.h: convolutions and linear layers fused with the pointwise
// operators after them, as oneDNN post-ops, with convolution weights packed
// once: what PyTorch's Inductor does with freezing on the CPU
// (torch/_inductor/fx_passes/mkldnn_fusion.py), as a pass on our graphs,
// calling libtorch's own fused operators.
//
// A convolution followed by a ReLU and one followed by a residual add and a
// ReLU become one call each:
//
//   %conv1 = call_function[target=mkldnn::_convolution_pointwise](args = (%x,
//                %conv1_weight_packed, %conv1_bias, [3, 3], [2, 2], [1, 1], 1, relu, [], None))
//   %conv2 = call_function[target=mkldnn::_convolution_pointwise.binary](args = (%relu_1,
//                %maxpool, %conv2_weight_packed, %conv2_bias, [1, 1], [1, 1], [1, 1], 1, add,
//                None, relu, [], None))
//
// oneDNN then applies the ReLU, or adds the residual, while the convolution's
// results are still in registers, instead of a pass over memory each. The
// packed weight (`<weight>_packed`, an MKLDNN tensor made by
// mkldnn::_reorder_convolution_weight for the input size shape_prop saw) is
// an attribute of the GraphModule; other input sizes still run, oneDNN
// choosing its kernel again. oneDNN's choice depends on the number of
// threads too: run the pass with the intra-op thread count the graph will
// run with (at::set_num_threads first; fxrun's --threads is set before its
// passes). Otherwise oneDNN may reorder a packed weight at every call:
// ResNet-50 packed at two threads and run at one took 2.5x as long. Activations between fused convolutions are
// strided tensors in channels-last order, the order these kernels want.
//
// Fused (float32 CPU tensors, shapes from shape_prop or the exported program):
//   * 2-d convolutions (aten::conv2d, aten::convolution and aten::_convolution
//     not transposed, without output padding or string padding) whose weight
//     is a 4-d attribute the graph does not write, whose bias is an attribute
//     or None, on 4-d inputs;
//   * with the one user of their result, when it is: relu, relu6, hardtanh,
//     hardswish, silu, sigmoid, tanh, hardsigmoid, leaky_relu, gelu (each in
//     place or not); or an add (add, add_ writing the convolution's result;
//     alpha 1) of a value of the same shape, then optionally a relu of the
//     sum, when the sum is the add's result's one user;
//   * aten::linear calls whose weight is a 2-d attribute the graph does not
//     write, on inputs of rank 2 or more, with such a unary user:
//     mkldnn::_linear_pointwise (oneDNN's inner product; Debian's aten::linear
//     goes to OpenBLAS, several times slower at batch 1).
//
// Channels-last values reach everything else as they did: elementwise
// operators and pooling take them as they are (their results follow the
// layout); any other reader (a view, the graph's output, a module) reads
// `aten::contiguous` of it, made once. A group of fused operators linked
// through their values (a region) is left as it was, with a warning saying
// why, when one of its values that such a reader reads may be written by the
// graph: the reader would see a copy, blind to the write.
//
// Limits: a residual add is fused when shape_prop saw both operands of the
// same shape; inputs that make one broadcast at run time fail in oneDNN
// (run the pass again for them). A region read by a module or an in-place
// method is left alone (they may write what they read). The weight is read
// by its attribute's name: a tensor tied to another attribute that the graph
// writes is not seen. Inference only: the fused operators have no gradients. NaN: oneDNN's fused
// relu gives 0 for NaN where aten gives NaN (as mkldnn_layout's). The graph
// then holds MKLDNN weights: it cannot be saved (save before the pass, run it
// after loading). libtorch 1.13 has none of these operators (they arrived in
// PyTorch 2.0): there the pass changes nothing and says so; mkldnn_layout is
// the faster pipeline there.
#ifndef FX_PASSES_MKLDNN_FUSION_MKLDNN_FUSION_H_
#define FX_PASSES_MKLDNN_FUSION_MKLDNN_FUSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What fuse_mkldnn_pointwise did.
struct FX_API MkldnnFusionReport {
  // False where this libtorch lacks the fused operators (nothing changed).
  bool available = true;
  // One line per fused call, in graph order: "conv1 + relu_", "fc".
  std::vector<std::string> fused;
  // aten::contiguous calls added for readers of channels-last values.
  int contiguous = 0;
  // One line per convolution or linear call left as it was: its name and why.
  std::vector<std::string> left_alone;
};

struct FX_API MkldnnFusionOptions {
  // Fuses aten::linear calls too.
  bool linear = true;
};

// Whether this libtorch has mkldnn::_convolution_pointwise and its family.
FX_API bool has_mkldnn_pointwise_operators();

// Fuses the convolutions and linear calls of `module` (see the file comment).
// Fails, saying to run shape_prop, when no node has tensor_meta.
FX_API absl::StatusOr<MkldnnFusionReport> fuse_mkldnn_pointwise(
    GraphModule& module, const MkldnnFusionOptions& options = {});

class FX_API MkldnnFusion : public Pass {
 public:
  Option<bool> linear{*this, "linear", "fuse aten::linear calls too (oneDNN's inner product)", true};
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "mkldnn_fusion".
FX_API void register_mkldnn_fusion(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_MKLDNN_FUSION_MKLDNN_FUSION_H_
