// Copyright 2026 The FX for C++ Authors.
//
// convolution_call.h: what shape_prop recorded about a value, and the
// operands of a 2-d convolution call read against its schema, for passes
// that hand convolutions to oneDNN (mkldnn_layout, mkldnn_fusion).
//
//   std::optional<fx::TensorInfo> info = fx::tensor_info(node);   // from tensor_meta
//   fx::ConvolutionCall conv;
//   std::string problem = fx::read_convolution(gm, node, *fx::bind_call(node), "mkldnn_fusion", conv);
//
// Contracts: read the graph and the module only.
#ifndef FX_PASSES_SUPPORT_CONVOLUTION_CALL_H_
#define FX_PASSES_SUPPORT_CONVOLUTION_CALL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/export.h"
#include "core/graph.h"
#include "passes/support/call_arguments.h"
#include "runtime/graph_module.h"

namespace fx {

// What shape_prop knows about a value.
struct FX_API TensorInfo {
  std::vector<int64_t> shape;
  std::string dtype;       // as Python prints it: "torch.float32"
  std::string device;      // "cpu"
  bool float_cpu = false;  // float32 on the CPU
};
FX_API std::optional<TensorInfo> tensor_info(const Node& n);
FX_API bool is_float_cpu_of_rank(const Node& n, size_t rank);
FX_API bool has_any_tensor_meta(const Graph& g);

// Whether `n` calls a 2-d convolution operator aten spells three ways
// (aten::conv2d, aten::convolution, aten::_convolution, any overload).
FX_API bool is_convolution_call(const Node& n);

// A convolution's operands, all literals but the input.
struct FX_API ConvolutionCall {
  Node* input = nullptr;
  Node* weight = nullptr;  // a get_attr
  at::Tensor weight_tensor;
  Node* bias = nullptr;  // a get_attr, or nullptr for no bias
  std::vector<int64_t> padding, stride, dilation;
  int64_t groups = 1;
};

// Why the convolution `n` (is_convolution_call) cannot be handed to oneDNN
// as a 2-d float32 CPU convolution of an attribute weight; "" when it can
// (`out` filled in). `pass` names who asks, in the advice to run shape_prop.
FX_API std::string read_convolution(const GraphModule& gm, Node& n, const BoundCall& call,
                                    const char* pass, ConvolutionCall& out);

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_CONVOLUTION_CALL_H_
