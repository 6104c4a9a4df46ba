// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_layout/mkldnn_layout.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "runtime/function_lowering.h"
#include "runtime/graph_module.h"
#include "runtime/mkldnn_kernels.h"
#include "runtime/operator_aliasing.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// ---- Reading a call against its schema --------------------------------------

// A node's arguments by schema parameter: the node's Argument, or the default.
struct BoundCall {
  const c10::FunctionSchema* schema = nullptr;
  std::vector<const Argument*> given;     // nullptr where the default applies
  std::vector<c10::IValue> defaults;

  size_t index_of(const char* name) const {
    const auto& params = schema->arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name() == name) return i;
    }
    return params.size();
  }
  const Argument* arg(const char* name) const {
    const size_t i = index_of(name);
    return i < given.size() ? given[i] : nullptr;
  }
  const c10::IValue* default_of(const char* name) const {
    const size_t i = index_of(name);
    return i < defaults.size() && given[i] == nullptr ? &defaults[i] : nullptr;
  }
  bool is_none(const char* name) const {
    const Argument* a = arg(name);
    if (a != nullptr) return a->is_none();
    const c10::IValue* d = default_of(name);
    return d == nullptr || d->isNone();
  }
  std::optional<std::vector<int64_t>> ints(const char* name, size_t length) const {
    std::vector<int64_t> out;
    if (const Argument* a = arg(name)) {
      if (a->is_int()) {
        out.assign(length, a->to_int());
      } else if (a->is_sequence()) {
        for (const Argument& e : a->elements()) {
          if (!e.is_int()) return std::nullopt;
          out.push_back(e.to_int());
        }
      } else {
        return std::nullopt;
      }
    } else if (const c10::IValue* d = default_of(name)) {
      if (d->isInt()) {
        out.assign(length, d->toInt());
      } else if (d->isIntList()) {
        out = d->toIntVector();
      } else {
        return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
    if (out.size() == 1 && length > 1) out.assign(length, out[0]);
    return out;
  }
  std::optional<double> number(const char* name) const {
    if (const Argument* a = arg(name)) {
      if (a->is_int()) return static_cast<double>(a->to_int());
      if (a->is_double()) return a->to_double();
      return std::nullopt;
    }
    const c10::IValue* d = default_of(name);
    if (d != nullptr && (d->isInt() || d->isDouble())) return d->toScalar().toDouble();
    return std::nullopt;
  }
  std::optional<bool> boolean(const char* name) const {
    if (const Argument* a = arg(name)) {
      return a->is_bool() ? std::optional<bool>(a->to_bool()) : std::nullopt;
    }
    const c10::IValue* d = default_of(name);
    return d != nullptr && d->isBool() ? std::optional<bool>(d->toBool()) : std::nullopt;
  }
  Node* node_arg(const char* name) const {
    const Argument* a = arg(name);
    return a != nullptr && a->is_node() ? a->to_node() : nullptr;
  }
};

std::optional<BoundCall> bind_call(const Node& n) {
  if (n.op() != Op::kCallFunction) return std::nullopt;
  auto op = find_operator(n.target());
  if (!op.ok()) return std::nullopt;
  std::vector<std::string> kwarg_names;
  for (const auto& kw : n.kwargs()) kwarg_names.push_back(kw.first);
  auto positions = bind_positions(*op->schema, n.args().size(), kwarg_names);
  if (!positions.ok()) return std::nullopt;
  BoundCall call;
  call.schema = op->schema;
  const auto& params = op->schema->arguments();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamBinding& p = (*positions)[i];
    switch (p.kind) {
      case ParamBinding::kPositional:
        call.given.push_back(&n.args()[p.index]);
        break;
      case ParamBinding::kKeyword:
        call.given.push_back(&n.kwargs()[p.index].second);
        break;
      case ParamBinding::kDefault:
        call.given.push_back(nullptr);
        break;
      case ParamBinding::kPacked:
        return std::nullopt;
    }
    call.defaults.push_back(params[i].default_value().value_or(c10::IValue()));
  }
  return call;
}

// ---- What shape_prop knows about a value -------------------------------------

struct TensorInfo {
  std::vector<int64_t> shape;
  bool float_cpu = false;
};

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

// ---- Candidates ---------------------------------------------------------------

enum class Kind { kConvolution, kUnary, kAdd };

// An operator that can run in the layout, and what it becomes.
struct Candidate {
  Kind kind = Kind::kUnary;
  Node* node = nullptr;
  // The value operands that must be in the layout (a convolution's input, a
  // unary's input, an add's two).
  std::vector<Node*> operands;
  // Whether the node writes its first operand (relu_, hardtanh_, add_).
  bool in_place = false;
  // Whether its result is its first operand (in place, or eval dropout).
  bool returns_operand = false;
  // The call it becomes; empty target: unchanged.
  std::string target;
  Arguments args;
  // Convolutions: the weight's attribute and the reordered weight.
  std::string weight_name;
  at::Tensor weight;
};

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

// Users that read only a value's rank or sizes, which an MKLDNN tensor has.
bool reads_sizes_only(const Node& user) {
  if (user.op() == Op::kCallMethod) return user.target() == "dim" || user.target() == "size";
  if (user.op() != Op::kCallFunction) return false;
  const std::string& t = user.target();
  return t == "aten::dim" || t == "aten::size" || t == "aten::size.int";
}

// torch.nn.functional functions with an `inplace` parameter.
bool has_inplace_parameter(const std::string& target) {
  static const char* const kNames[] = {"relu",  "relu6",      "hardtanh", "elu",   "selu",
                                       "celu",  "leaky_relu", "rrelu",    "threshold",
                                       "hardswish", "silu",   "mish",     "dropout",
                                       "alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
                                       "feature_alpha_dropout"};
  const size_t dot = target.rfind('.');
  const std::string name = dot == std::string::npos ? target : target.substr(dot + 1);
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// Whether `user` may write its argument `value`: an impure call, one whose
// schema writes the parameter taking `value`, a leaf function called in
// place, an in-place method, any module.
bool may_write(const Node& user, const Node& value) {
  if (user.op() == Op::kOutput || reads_sizes_only(user)) return false;
  if (user.is_impure()) return true;
  if (user.op() == Op::kCallModule) return true;
  if (user.op() == Op::kCallMethod) {
    const std::string& t = user.target();
    return !t.empty() && t.back() == '_' && t.rfind("__", 0) != 0;
  }
  if (user.op() != Op::kCallFunction) return false;
  if (auto call = bind_call(user)) {
    const auto& params = call->schema->arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      const Argument* a = call->given[i];
      if (a == nullptr || !a->is_node() || a->to_node() != &value) continue;
      if (params[i].alias_info() != nullptr && params[i].alias_info()->isWrite()) return true;
    }
    return false;
  }
  if (!has_inplace_parameter(user.target())) return false;
  for (const auto& [name, arg] : user.kwargs()) {
    if (name == "inplace" && !(arg.is_bool() && !arg.to_bool())) return true;
  }
  for (const Argument& a : user.args()) {
    if (a.is_bool() && a.to_bool()) return true;
  }
  return false;
}

// Whether the result of `user` may share `value`'s storage: a view or an
// in-place result by its schema, an operator that may return its input
// although its schema does not say so (type_as, eval alpha_dropout), or
// anything without a schema.
bool may_alias(const Node& user) {
  if (user.op() == Op::kOutput || reads_sizes_only(user)) return false;
  if (user.op() != Op::kCallFunction) return true;
  std::string base;
  if (may_share_an_input(base_of(user.target(), base))) return true;
  auto call = bind_call(user);
  if (!call) return true;
  if (call->schema->is_mutable()) return true;
  for (const c10::Argument& ret : call->schema->returns()) {
    if (ret.alias_info() != nullptr) return true;
  }
  return false;
}

// A node outside `skip` that may write `value`, directly or through a view
// or alias of it; nullptr when none.
const Node* writer_of(const Node& value, const absl::flat_hash_set<Node*>& skip) {
  std::vector<const Node*> work = {&value};
  absl::flat_hash_set<const Node*> seen = {&value};
  while (!work.empty()) {
    const Node* v = work.back();
    work.pop_back();
    for (Node* user : v->users()) {
      if (skip.count(user) > 0) continue;
      if (may_write(*user, *v)) return user;
      if (may_alias(*user) && seen.insert(user).second) work.push_back(user);
    }
  }
  return nullptr;
}

// Whether a node outside `skip` may write `value` or a tensor it may view
// (the base of a slice, and that base's other views).
bool may_be_written(Node& value, const absl::flat_hash_set<Node*>& skip) {
  std::vector<Node*> work = {&value};
  absl::flat_hash_set<Node*> seen = {&value};
  while (!work.empty()) {
    Node* v = work.back();
    work.pop_back();
    if (writer_of(*v, skip) != nullptr) return true;
    if (!may_alias(*v)) continue;
    for (Node* input : v->input_nodes()) {
      if (seen.insert(input).second) work.push_back(input);
    }
  }
  return false;
}

// Whether the graph may write the attribute `target`, through any get_attr
// of it.
bool attribute_may_be_written(const Graph& graph, const std::string& target) {
  for (Node* n : graph.nodes()) {
    if (n->op() == Op::kGetAttr && n->target() == target && may_be_written(*n, {})) return true;
  }
  return false;
}

// ---- Regions ------------------------------------------------------------------

struct Region {
  std::vector<Candidate*> members;
  int convolutions = 0;
  int conversions = 0;
  std::string unsafe;  // why it cannot be converted, when it cannot
};

}  // namespace

absl::StatusOr<MkldnnLayoutReport> plan_mkldnn_layout(GraphModule& gm,
                                                      const MkldnnLayoutOptions& options) {
  MkldnnLayoutReport report;
  Graph& graph = gm.graph();
  if (!has_any_tensor_meta(graph)) {
    return absl::FailedPreconditionError(
        "mkldnn_layout: the graph has no tensor_meta (shapes, dtypes, devices); put shape_prop "
        "(or shape_prop{device=meta}) before it in the pipeline, with --input-shape or --input");
  }
  lower_leaf_functions(gm);

  // Candidates, in graph order; a value is in the layout when its node is one.
  std::vector<Candidate> candidates;
  candidates.reserve(graph.size());
  absl::flat_hash_set<Node*> in_layout;
  absl::flat_hash_map<Node*, size_t> candidate_of;
  for (Node* n : graph.nodes()) {
    if (n->op() != Op::kCallFunction) continue;
    std::string base;
    base_of(n->target(), base);
    const bool convolution =
        base == "aten::conv2d" || base == "aten::convolution" || base == "aten::_convolution";
    if (!convolution && in_layout.empty()) continue;
    if (auto c = adaptive_avg_pool_function(*n, in_layout)) {
      candidate_of[n] = candidates.size();
      candidates.push_back(std::move(*c));
      in_layout.insert(n);
      continue;
    }
    auto call = bind_call(*n);
    if (!call) continue;
    if (convolution) {
      Candidate c;
      std::string problem = convolution_problem(gm, *n, *call, c);
      if (problem.empty() && attribute_may_be_written(graph, c.weight_name)) {
        problem = "its weight may be written by the graph, which a copy reordered once would miss";
      }
      if (!problem.empty()) {
        report.left_strided.push_back(absl::StrCat(n->name(), ": ", problem));
        continue;
      }
      candidate_of[n] = candidates.size();
      candidates.push_back(std::move(c));
      in_layout.insert(n);
      continue;
    }
    if (auto c = layout_operator(*n, *call, in_layout)) {
      candidate_of[n] = candidates.size();
      candidates.push_back(std::move(*c));
      in_layout.insert(n);
    }
  }
  if (candidates.empty()) return report;

  // Regions: candidates joined through their operands.
  std::vector<size_t> parent(candidates.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto find = [&parent](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (Node* operand : candidates[i].operands) {
      auto it = candidate_of.find(operand);
      if (it != candidate_of.end()) parent[find(i)] = find(it->second);
    }
  }
  std::map<size_t, Region> regions;
  for (size_t i = 0; i < candidates.size(); ++i) {
    regions[find(i)].members.push_back(&candidates[i]);
  }
  // The value each in-layout value's storage belongs to (relu_ returns its
  // operand), and whether anything writes it in place.
  absl::flat_hash_map<Node*, Node*> alias_root;
  absl::flat_hash_set<Node*> written;
  // The last in-place candidate writing each root, and where it is.
  absl::flat_hash_map<const Node*, size_t> position;
  for (Node* n : graph.nodes()) position.emplace(n, position.size());
  absl::flat_hash_map<Node*, Node*> last_writer;
  for (Candidate& c : candidates) {
    Node* root = c.node;
    if (c.returns_operand) {
      auto it = alias_root.find(c.operands[0]);
      root = it != alias_root.end() ? it->second : c.operands[0];
    }
    alias_root[c.node] = root;
    if (c.in_place) {
      written.insert(root);
      last_writer[root] = c.node;
    }
  }
  // A strided user that may view a value written in the layout after it
  // would view its to_dense copy, blind to the write.
  const auto viewed_before_write = [&](Node& value) -> std::string {
    auto w = last_writer.find(alias_root[&value]);
    if (w == last_writer.end()) return "";
    for (Node* user : value.users()) {
      if (candidate_of.count(user) > 0 || !may_alias(*user) ||
          position[user] > position[w->second]) {
        continue;
      }
      return absl::StrCat("'", user->name(), "' may view '", value.name(), "' before '",
                          w->second->name(),
                          "' writes it in oneDNN's layout: it would view a strided copy");
    }
    return "";
  };
  for (auto& [id, region] : regions) {
    absl::flat_hash_set<Node*> entries;
    for (Candidate* c : region.members) {
      if (c->kind == Kind::kConvolution) {
        ++region.convolutions;
        if (candidate_of.count(c->operands[0]) == 0) entries.insert(c->operands[0]);
      }
      int exits = 0;
      for (Node* user : c->node->users()) {
        if (candidate_of.count(user) == 0 && !reads_sizes_only(*user)) ++exits;
      }
      if (exits > 0 && region.unsafe.empty()) {
        if (const Node* writer = writer_of(*c->node, in_layout)) {
          region.unsafe = absl::StrCat("'", writer->name(), "' may write '", c->node->name(),
                                       "', which would be a strided copy of it");
        } else {
          region.unsafe = viewed_before_write(*c->node);
        }
      }
      region.conversions += written.count(alias_root[c->node]) > 0 ? exits : std::min(exits, 1);
    }
    region.conversions += static_cast<int>(entries.size());
  }

  // Rewriting the regions kept.
  absl::flat_hash_map<Node*, Node*> shared_to_mkldnn, shared_to_dense;
  absl::flat_hash_set<Node*> kept;
  for (auto& [id, region] : regions) {
    const bool keep = region.unsafe.empty() &&
                      (options.every_region || region.convolutions > region.conversions);
    for (Candidate* c : region.members) {
      if (keep) {
        kept.insert(c->node);
      } else if (c->kind == Kind::kConvolution) {
        report.left_strided.push_back(absl::StrCat(
            c->node->name(), ": ",
            !region.unsafe.empty()
                ? region.unsafe
                : absl::StrCat("its region has ", region.convolutions,
                               " convolution(s) for ", region.conversions,
                               " layout conversion(s), which would cost more than they save")));
      }
    }
    if (keep) ++report.regions;
  }
  for (Candidate& c : candidates) {
    if (kept.count(c.node) == 0) continue;
    Node& n = *c.node;
    // Strided operands of a convolution come in through to_mkldnn.
    if (c.kind == Kind::kConvolution && kept.count(c.operands[0]) == 0) {
      Node* input = c.operands[0];
      Node*& shared = shared_to_mkldnn[input];
      const bool mutable_input = may_be_written(*input, kept);
      Node* converted = mutable_input ? nullptr : shared;
      if (converted == nullptr) {
        InsertionGuard guard = graph.inserting_before(&n);
        converted = graph.call_function("aten::to_mkldnn", {Argument(input)});
        ++report.to_mkldnn;
        if (!mutable_input) shared = converted;
      }
      c.args[0] = Argument(converted);
    }
    if (c.kind == Kind::kConvolution) {
      const std::string name = unique_attribute_name(gm, c.weight_name + "_mkldnn");
      if (absl::Status s = gm.add_attribute(name, c.weight); !s.ok()) return s;
      InsertionGuard guard = graph.inserting_before(&n);
      Node* w = graph.get_attr(name);
      if (const MetaValue* path = n.meta().find(kModulePathKey)) w->meta().set(kModulePathKey, *path);
      c.args[1] = Argument(w);
      report.convolutions.push_back(n.name());
    }
    if (!c.target.empty()) {
      n.set_target(c.target);
      n.set_args_kwargs(c.args, {});
    }
    // An MKLDNN tensor has no strides.
    if (MetaValue* meta = n.meta().find(kTensorMetaKey); meta != nullptr && meta->is_map()) {
      Meta m = meta->to_map();
      m.set("stride", MetaValue());
      m.set("memory_format", MetaValue());
      *meta = MetaValue(std::move(m));
    }
  }
  // Strided users of values in the layout read them through to_dense, made
  // before the first of them in graph order (a node's users are in the
  // order they were added, which passes such as cse change).
  position.clear();
  for (Node* n : graph.nodes()) position.emplace(n, position.size());
  for (Candidate& c : candidates) {
    if (kept.count(c.node) == 0) continue;
    Node* value = c.node;
    const bool per_user = written.count(alias_root[value]) > 0;
    std::vector<Node*> users(value->users().begin(), value->users().end());
    std::sort(users.begin(), users.end(),
              [&position](const Node* a, const Node* b) { return position[a] < position[b]; });
    for (Node* user : users) {
      if (kept.count(user) > 0 || reads_sizes_only(*user)) continue;
      Node* dense = per_user ? nullptr : shared_to_dense[value];
      if (dense == nullptr) {
        InsertionGuard guard = graph.inserting_before(user);
        dense = graph.call_function("aten::to_dense", {Argument(value)});
        if (const MetaValue* meta = value->meta().find(kTensorMetaKey)) {
          Meta m = meta->is_map() ? meta->to_map() : Meta();
          m.set("stride", MetaValue());
          m.set("memory_format", MetaValue("torch.contiguous_format"));
          dense->meta().set(kTensorMetaKey, MetaValue(std::move(m)));
        }
        ++report.to_dense;
        if (!per_user) shared_to_dense[value] = dense;
      }
      user->replace_input_with(value, dense);
    }
  }
  if (absl::Status s = graph.lint(); !s.ok()) {
    return absl::InternalError(absl::StrCat("mkldnn_layout left the graph malformed: ", s.message()));
  }
  return report;
}

absl::Status MkldnnLayout::run(GraphModule& module, PassContext& context) {
  if (!at::hasMKLDNN()) {
    context.warn("mkldnn_layout: this libtorch has no MKLDNN (oneDNN); the graph is unchanged");
    return absl::OkStatus();
  }
  MkldnnLayoutOptions options;
  options.every_region = every_region;
  auto report = plan_mkldnn_layout(module, options);
  if (!report.ok()) return report.status();
  if (!report->left_strided.empty()) {
    context.warn(absl::StrCat("mkldnn_layout: ", report->left_strided.size(),
                              " convolution(s) left strided: ",
                              absl::StrJoin(report->left_strided, "; ")));
  }
  return absl::OkStatus();
}

void register_mkldnn_layout(PluginRegistrar& registrar) {
  registrar.add_pass<MkldnnLayout>(
      "mkldnn_layout",
      "keeps convolutional networks in oneDNN's blocked layout with reordered weights "
      "(TorchScript's optimize_for_inference); needs shape_prop first");
}

}  // namespace fx
