// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/layout_operators.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/well_known.h"
#include "runtime/mkldnn_kernels.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace mkldnn_layout_internal {

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
  info.float_cpu = dtype != nullptr && dtype->is_string() && dtype->to_string() == "torch.float32" &&
                   device != nullptr && device->is_string() && device->to_string() == "cpu";
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

const std::string& base_of(const std::string& target, std::string& storage) {
  const size_t dot = target.find('.');
  storage = dot == std::string::npos ? target : target.substr(0, dot);
  return storage;
}

// Why the convolution `n` cannot run in the layout; "" when it can (`out`
// filled in).
std::string convolution_problem(const GraphModule& gm, Node& n, const BoundCall& call,
                                Candidate& out) {
  std::string base;
  base_of(n.target(), base);
  if (base == "aten::conv2d" && n.target() != "aten::conv2d" && n.target() != "aten::conv2d.default") {
    return "its padding is a string ('same'/'valid')";
  }
  if (base != "aten::conv2d") {
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
  if (!call.is_none("bias")) {
    Node* bias = call.node_arg("bias");
    if (bias == nullptr || bias->op() != Op::kGetAttr) {
      return "its bias is computed by the graph, not an attribute";
    }
  }
  if (!is_float_cpu_of_rank(*input, 4)) {
    return input->meta().contains(kTensorMetaKey)
               ? "its input is not a 4-d float32 CPU tensor"
               : "its input's shape is unknown (run shape_prop before mkldnn_layout)";
  }
  auto stride = call.ints("stride", 2);
  auto padding = call.ints("padding", 2);
  auto dilation = call.ints("dilation", 2);
  auto groups = call.number("groups");
  if (!stride || !padding || !dilation || !groups || stride->size() != 2 || padding->size() != 2 ||
      dilation->size() != 2) {
    return "its stride, padding, dilation or groups are not literals";
  }
  const int64_t g = static_cast<int64_t>(*groups);
  out.kind = Kind::kConvolution;
  out.node = &n;
  out.operands = {input};
  out.target = "aten::mkldnn_convolution";
  const Argument bias = call.is_none("bias") ? Argument::None() : Argument(call.node_arg("bias"));
  const auto list = [](const std::vector<int64_t>& v) {
    std::vector<Argument> items;
    for (int64_t x : v) items.emplace_back(x);
    return Argument::List(std::move(items));
  };
  // args[1] is replaced by the reordered weight's get_attr when rewritten.
  out.args = {Argument(input), Argument(weight), bias, list(*padding), list(*stride),
              list(*dilation), Argument(g)};
  out.weight_name = weight->target();
  try {
    out.weight = at::mkldnn_reorder_conv2d_weight(wt.detach().contiguous().to_mkldnn(), *padding, *stride,
                                                  *dilation, g);
  } catch (const std::exception& e) {
    return absl::StrCat("oneDNN cannot reorder its weight: ", exception_message(e));
  }
  return "";
}

// Whether adaptive pooling of `input` to `sizes` has a kernel in the layout:
// MKLDNN's refuses, when it runs, output sizes that do not divide the
// input's (as shape_prop saw them).
bool pools_evenly(const Node& input, const std::vector<int64_t>& sizes) {
  const auto info = tensor_info(input);
  if (!info || info->shape.size() != 4 || sizes.size() != 2) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (sizes[i] <= 0 || info->shape[2 + i] % sizes[i] != 0) return false;
  }
  return true;
}

// The candidate `n` is when its operands are in the layout (`in_layout`), or
// nothing.
std::optional<Candidate> layout_operator(Node& n, const BoundCall& call,
                                         const absl::flat_hash_set<Node*>& in_layout) {
  std::string base;
  base_of(n.target(), base);
  Node* self = call.node_arg("self");
  if (self == nullptr) self = call.node_arg("input");
  if (self == nullptr || in_layout.count(self) == 0) return std::nullopt;
  Candidate c;
  c.node = &n;
  c.operands = {self};
  if (base == "aten::relu" || base == "aten::relu_") {
    c.in_place = c.returns_operand = base == "aten::relu_";
    return c;
  }
  const bool hardtanh = base == "aten::hardtanh" || base == "aten::hardtanh_";
  if (hardtanh || base == "aten::relu6" || base == "aten::relu6_") {
    // TorchScript's MKLDNN clip, right only where oneDNN pads no channels.
    const auto info = tensor_info(*self);
    if (!info || info->shape.size() < 2 || !mkldnn_hardtanh_takes_channels(info->shape[1])) {
      return std::nullopt;
    }
    auto lo = hardtanh ? call.number("min_val") : std::optional<double>(0.0);
    auto hi = hardtanh ? call.number("max_val") : std::optional<double>(6.0);
    if (!lo || !hi) return std::nullopt;
    c.in_place = c.returns_operand = base.back() == '_';
    c.target = c.in_place ? kMkldnnHardtanhInPlace : kMkldnnHardtanh;
    c.args = {Argument(self), Argument(*lo), Argument(*hi)};
    return c;
  }
  if (base == "aten::max_pool2d") {
    auto kernel = call.ints("kernel_size", 2);
    auto stride = call.ints("stride", 2);
    auto padding = call.ints("padding", 2);
    auto dilation = call.ints("dilation", 2);
    auto ceil_mode = call.boolean("ceil_mode");
    if (!kernel || !stride || !padding || !dilation || !ceil_mode) return std::nullopt;
    // MKLDNN's max pooling refuses dilation when it runs.
    if (std::any_of(dilation->begin(), dilation->end(), [](int64_t d) { return d != 1; })) {
      return std::nullopt;
    }
    if (stride->empty()) stride = kernel;
    std::vector<Argument> k, s, p, d;
    for (int64_t x : *kernel) k.emplace_back(x);
    for (int64_t x : *stride) s.emplace_back(x);
    for (int64_t x : *padding) p.emplace_back(x);
    for (int64_t x : *dilation) d.emplace_back(x);
    c.target = "aten::mkldnn_max_pool2d";
    c.args = {Argument(self),          Argument::List(std::move(k)), Argument::List(std::move(s)),
              Argument::List(std::move(p)), Argument::List(std::move(d)), Argument(*ceil_mode)};
    return c;
  }
  if (base == "aten::avg_pool2d") {
    if (!call.is_none("divisor_override")) return std::nullopt;
    // oneDNN divides a window that ceil mode adds by the whole kernel, aten
    // by the part of it over the input and its padding.
    auto ceil_mode = call.boolean("ceil_mode");
    auto count_include_pad = call.boolean("count_include_pad");
    if (!ceil_mode || !count_include_pad || (*ceil_mode && *count_include_pad)) return std::nullopt;
    return c;
  }
  if (base == "aten::adaptive_avg_pool2d") {
    auto sizes = call.ints("output_size", 2);
    if (!sizes || !pools_evenly(*self, *sizes)) return std::nullopt;
    return c;
  }
  if (base == "aten::dropout" || base == "aten::feature_dropout") {
    auto train = call.boolean("train");
    if (!train || *train) return std::nullopt;
    c.returns_operand = true;
    return c;
  }
  if ((n.target() == "aten::add.Tensor" || n.target() == "aten::add_.Tensor")) {
    Node* other = call.node_arg("other");
    auto alpha = call.number("alpha");
    if (other == nullptr || in_layout.count(other) == 0 || !alpha || *alpha != 1.0) {
      return std::nullopt;
    }
    const auto a = tensor_info(*self);
    const auto b = tensor_info(*other);
    if (!a || !b || a->shape != b->shape) return std::nullopt;
    c.kind = Kind::kAdd;
    c.operands = {self, other};
    c.in_place = c.returns_operand = n.target() == "aten::add_.Tensor";
    return c;
  }
  return std::nullopt;
}

// torch.nn.functional.adaptive_avg_pool2d with a literal output size, which
// function lowering leaves as a call (its body reads the input's sizes for
// None entries): it is aten's adaptive_avg_pool2d.
std::optional<Candidate> adaptive_avg_pool_function(Node& n,
                                                    const absl::flat_hash_set<Node*>& in_layout) {
  if (n.target() != "torch.nn.functional.adaptive_avg_pool2d" || n.args().empty() ||
      !n.args()[0].is_node() || in_layout.count(n.args()[0].to_node()) == 0) {
    return std::nullopt;
  }
  const Argument* size = n.args().size() > 1 ? &n.args()[1] : n.kwarg("output_size");
  if (size == nullptr || n.args().size() + n.kwargs().size() != 2) return std::nullopt;
  std::vector<Argument> sizes;
  std::vector<int64_t> ints;
  if (size->is_int()) {
    sizes = {*size, *size};
    ints = {size->to_int(), size->to_int()};
  } else if (size->is_sequence() && size->elements().size() == 2) {
    for (const Argument& e : size->elements()) {
      if (!e.is_int()) return std::nullopt;
      sizes.push_back(e);
      ints.push_back(e.to_int());
    }
  } else {
    return std::nullopt;
  }
  if (!pools_evenly(*n.args()[0].to_node(), ints)) return std::nullopt;
  Candidate c;
  c.node = &n;
  c.operands = {n.args()[0].to_node()};
  c.target = "aten::adaptive_avg_pool2d";
  c.args = {n.args()[0], Argument::List(std::move(sizes))};
  return c;
}

}  // namespace mkldnn_layout_internal
}  // namespace fx
