// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/layout_operators.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ops/mkldnn_reorder_conv2d_weight.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/well_known.h"
#include "runtime/kernels/mkldnn_kernels.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace mkldnn_layout_internal {

const std::string& base_of(const std::string& target, std::string& storage) {
  const size_t dot = target.find('.');
  storage = dot == std::string::npos ? target : target.substr(0, dot);
  return storage;
}

// Why the convolution `n` cannot run in the layout; "" when it can (`out`
// filled in).
std::string convolution_problem(const GraphModule& gm, Node& n, const BoundCall& call,
                                Candidate& out) {
  ConvolutionCall conv;
  std::string problem = read_convolution(gm, n, call, "mkldnn_layout", conv);
  if (!problem.empty()) return problem;
  out.kind = Kind::kConvolution;
  out.node = &n;
  out.operands = {conv.input};
  out.target = "aten::mkldnn_convolution";
  const auto list = [](const std::vector<int64_t>& v) {
    std::vector<Argument> items;
    for (int64_t x : v) items.emplace_back(x);
    return Argument::List(std::move(items));
  };
  // args[1] is replaced by the reordered weight's get_attr when rewritten.
  out.args = {Argument(conv.input), Argument(conv.weight),
              conv.bias == nullptr ? Argument::None() : Argument(conv.bias), list(conv.padding),
              list(conv.stride), list(conv.dilation), Argument(conv.groups)};
  out.weight_name = conv.weight->target();
  try {
    out.weight = at::mkldnn_reorder_conv2d_weight(conv.weight_tensor.detach().contiguous().to_mkldnn(),
                                                  conv.padding, conv.stride, conv.dilation,
                                                  conv.groups);
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
  // The functional overloads only: an out= overload's result is its `out`
  // argument, which a rewrite on `self` alone would drop (add's own
  // overloads are matched whole below).
  const absl::string_view overload = absl::string_view(n.target()).substr(
      std::min(n.target().size(), base.size() + 1));
  if (!overload.empty() && overload != "default" && base != "aten::add" && base != "aten::add_") {
    return std::nullopt;
  }
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
  // TorchScript's MKLDNN clip and hardswish, right only where oneDNN pads no
  // channels (libtorch 1.13).
  const auto takes_channels = [&] {
    const auto info = tensor_info(*self);
    return info && info->shape.size() >= 2 && mkldnn_elementwise_takes_channels(info->shape[1]);
  };
  if (base == "aten::hardswish" || base == "aten::hardswish_") {
    if (!takes_channels()) return std::nullopt;
    c.in_place = c.returns_operand = base == "aten::hardswish_";
    c.target = c.in_place ? kMkldnnHardswishInPlace : kMkldnnHardswish;
    c.args = {Argument(self)};
    return c;
  }
  const bool hardtanh = base == "aten::hardtanh" || base == "aten::hardtanh_";
  if (hardtanh || base == "aten::relu6" || base == "aten::relu6_") {
    if (!takes_channels()) return std::nullopt;
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
