// Copyright 2026 The FX for C++ Authors.
#include "passes/support/convolution_call.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/well_known.h"

namespace fx {

std::optional<TensorInfo> tensor_info(const Node& n) {
  const MetaValue* meta = n.meta().find(kTensorMetaKey);
  if (meta == nullptr || !meta->is_map()) return std::nullopt;
  const MetaValue* shape = meta->to_map().find("shape");
  const MetaValue* dtype = meta->to_map().find("dtype");
  const MetaValue* device = meta->to_map().find("device");
  if (shape == nullptr || !shape->is_list()) return std::nullopt;
  TensorInfo info;
  for (const MetaValue& d : shape->to_list()) {
    if (!d.is_int()) return std::nullopt;
    info.shape.push_back(d.to_int());
  }
  if (dtype != nullptr && dtype->is_string()) info.dtype = dtype->to_string();
  if (device != nullptr && device->is_string()) info.device = device->to_string();
  info.float_cpu = info.dtype == "torch.float32" && info.device == "cpu";
  return info;
}

bool is_float_cpu_of_rank(const Node& n, size_t rank) {
  const auto info = tensor_info(n);
  return info && info->float_cpu && info->shape.size() == rank;
}

bool has_any_tensor_meta(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (n->meta().contains(kTensorMetaKey)) return true;
  }
  return false;
}

namespace {

bool is_operator(const std::string& target, absl::string_view name) {
  return target == name || (absl::StartsWith(target, name) && target.size() > name.size() &&
                            target[name.size()] == '.');
}

}  // namespace

bool is_convolution_call(const Node& n) {
  if (n.op() != Op::kCallFunction) return false;
  const std::string& t = n.target();
  return is_operator(t, "aten::conv2d") || is_operator(t, "aten::convolution") ||
         is_operator(t, "aten::_convolution");
}

std::string read_convolution(const GraphModule& gm, Node& n, const BoundCall& call,
                             const char* pass, ConvolutionCall& out) {
  if (is_operator(n.target(), "aten::conv2d")) {
    if (n.target() != "aten::conv2d" && n.target() != "aten::conv2d.default") {
      return "its padding is a string ('same'/'valid')";
    }
  } else {
    auto transposed = call.boolean("transposed");
    if (!transposed || *transposed) return "it is transposed";
    auto output_padding = call.ints("output_padding", 2);
    if (!output_padding ||
        std::any_of(output_padding->begin(), output_padding->end(), [](int64_t p) { return p != 0; })) {
      return "it has output padding";
    }
  }
  Node* input = call.node_arg("input");
  Node* weight = call.node_arg("weight");
  if (input == nullptr) return "its input is not a value of the graph";
  if (weight == nullptr || weight->op() != Op::kGetAttr) {
    return "its weight is computed by the graph, not an attribute";
  }
  auto w = gm.get_attr(weight->target());
  if (!w.ok() || !w->isTensor()) return "its weight is not a tensor attribute";
  const at::Tensor& wt = w->toTensor();
  if (wt.dim() != 4 || wt.scalar_type() != at::kFloat || !wt.device().is_cpu() ||
      wt.layout() != c10::kStrided) {
    return "its weight is not a 4-d float32 CPU tensor";
  }
  Node* bias = nullptr;
  if (!call.is_none("bias")) {
    bias = call.node_arg("bias");
    if (bias == nullptr || bias->op() != Op::kGetAttr) {
      return "its bias is computed by the graph, not an attribute";
    }
  }
  if (!is_float_cpu_of_rank(*input, 4)) {
    return input->meta().contains(kTensorMetaKey)
               ? "its input is not a 4-d float32 CPU tensor"
               : absl::StrCat("its input's shape is unknown (run shape_prop before ", pass, ")");
  }
  auto stride = call.ints("stride", 2);
  auto padding = call.ints("padding", 2);
  auto dilation = call.ints("dilation", 2);
  auto groups = call.number("groups");
  if (!stride || !padding || !dilation || !groups || stride->size() != 2 || padding->size() != 2 ||
      dilation->size() != 2) {
    return "its stride, padding, dilation or groups are not literals";
  }
  out.input = input;
  out.weight = weight;
  out.weight_tensor = wt;
  out.bias = bias;
  out.padding = *std::move(padding);
  out.stride = *std::move(stride);
  out.dilation = *std::move(dilation);
  out.groups = static_cast<int64_t>(*groups);
  return "";
}

}  // namespace fx
