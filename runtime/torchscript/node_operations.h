// Copyright 2026 The FX for C++ Authors.
//
// node_operations.h: the operation TorchScript runs for a node of its IR,
// for the operators that take their parameters from attributes of the node
// calling them rather than from arguments, and so give an operation only for
// a node: TorchScript's MKLDNN clip (prim::MKLDNNHardTanh(_), bounds
// min_val and max_val), which kernels/mkldnn_kernels.cc calls. The node is
// made in a graph of its own, with a tensor input and output.
//
//   torch::jit::Operation clip =
//       fx::tensor_node_operation(c10::Symbol::fromQualString("prim::MKLDNNHardTanh_"),
//                                 {{"min_val", 0.0}, {"max_val", 6.0}});
//   torch::jit::Stack stack{x};
//   clip(stack);
//
// Contracts: `kind` must name an operator of TorchScript's registry that
// such a node matches (operator_binding.h's find_overloads lists them);
// otherwise TorchScript's error is thrown (a std::exception). Each call makes
// a graph of its own: callers keep the operation.
#ifndef FX_RUNTIME_TORCHSCRIPT_NODE_OPERATIONS_H_
#define FX_RUNTIME_TORCHSCRIPT_NODE_OPERATIONS_H_

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/stack.h>
#include <ATen/core/symbol.h>

namespace fx {

// The operation of a node of `kind` taking one tensor and returning one,
// with the float attributes `float_attributes` (name, value).
torch::jit::Operation tensor_node_operation(
    c10::Symbol kind, const std::vector<std::pair<std::string, double>>& float_attributes);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_NODE_OPERATIONS_H_
