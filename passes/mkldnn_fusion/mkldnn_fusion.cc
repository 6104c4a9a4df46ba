// Copyright 2026 The FX for C++ Authors.
#include "passes/mkldnn_fusion/mkldnn_fusion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/version.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "passes/support/call_arguments.h"
#include "passes/support/convolution_call.h"
#include "passes/support/operator_targets.h"
#include "passes/support/value_writes.h"
#include "runtime/torchscript/function_lowering.h"
#include "runtime/graph_module.h"
#include "runtime/operator_aliasing.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

constexpr char kConvolutionPointwise[] = "mkldnn::_convolution_pointwise";
constexpr char kConvolutionPointwiseBinary[] = "mkldnn::_convolution_pointwise.binary";
constexpr char kLinearPointwise[] = "mkldnn::_linear_pointwise";

std::optional<c10::OperatorHandle> find_operator(const char* name, const char* overload) {
  auto op = c10::Dispatcher::singleton().findSchema({name, overload});
  if (!op || !op->hasKernelForDispatchKey(c10::DispatchKey::CPU)) return std::nullopt;
  return *op;
}

// A pointwise operator oneDNN applies to a result before storing it.
struct PostOp {
  std::string attr = "none";
  std::vector<double> scalars;
  std::optional<std::string> algorithm;
  std::string name;  // the node's, for the report
};

// The post-op the call `user` is when its input is `value` and it has an
// equivalent in oneDNN's post-ops; nothing otherwise.
std::optional<PostOp> unary_post_op(const Node& user, const Node& value) {
  if (user.op() != Op::kCallFunction) return std::nullopt;
  std::string base = operator_base_name(user.op(), user.target());
  if (!base.empty() && base.back() == '_') base.pop_back();
  static const auto* const kPlain = new absl::flat_hash_map<std::string, std::string>{
      {"aten::relu", "relu"},       {"aten::hardswish", "hardswish"}, {"aten::silu", "swish"},
      {"aten::sigmoid", "sigmoid"}, {"aten::tanh", "tanh"},           {"aten::hardsigmoid", "hardsigmoid"},
      {"aten::relu6", "hardtanh"},  {"aten::hardtanh", "hardtanh"},   {"aten::leaky_relu", "leaky_relu"},
      {"aten::gelu", "gelu"}};
  auto it = kPlain->find(base);
  if (it == kPlain->end()) return std::nullopt;
  auto call = bind_call(user);
  if (!call || call->node_arg("self") != &value) return std::nullopt;
  // Not an out= overload (tanh.out): its result lives in the tensor it writes.
  for (const c10::Argument& a : call->schema->arguments()) {
    if (a.name() != "self" && a.alias_info() != nullptr && a.alias_info()->isWrite()) return std::nullopt;
  }
  PostOp post;
  post.attr = it->second;
  post.name = user.name();
  if (base == "aten::relu6") {
    post.scalars = {0.0, 6.0};
  } else if (base == "aten::hardtanh") {
    auto lo = call->number("min_val");
    auto hi = call->number("max_val");
    if (!lo || !hi) return std::nullopt;
    post.scalars = {*lo, *hi};
  } else if (base == "aten::leaky_relu") {
    auto slope = call->number("negative_slope");
    if (!slope) return std::nullopt;
    post.scalars = {*slope};
  } else if (base == "aten::gelu") {
    std::string approximate = "none";
    if (const Argument* a = call->arg("approximate")) {
      if (!a->is_string()) return std::nullopt;
      approximate = a->to_string();
    }
    if (approximate != "none" && approximate != "tanh") return std::nullopt;
    post.algorithm = approximate;
  }
  return post;
}

// The one user of `n` that reads more than its sizes (a folded batch norm's
// rank check reads those); nullptr when none or several.
Node* only_user(const Node& n) {
  Node* only = nullptr;
  for (Node* user : n.users()) {
    if (reads_sizes_only(*user)) continue;
    if (only != nullptr) return nullptr;
    only = user;
  }
  return only;
}

// `add` as a residual add of `value`'s result: the other operand, when `add`
// is aten::add(value, other) or add(other, value) with alpha 1 and no
// broadcasting, or add_(value, other) (writing `value`, which nothing else
// reads), or add_(other, value) where `other` is a convolution's result that
// nothing else reads (its write is then seen by nobody); nullptr otherwise.
Node* residual_of(const Node& add, const Node& value) {
  if (add.op() != Op::kCallFunction) return nullptr;
  const std::string& t = add.target();
  const bool out_of_place = t == "aten::add" || t == "aten::add.Tensor";
  const bool in_place = t == "aten::add_" || t == "aten::add_.Tensor";
  if (!out_of_place && !in_place) return nullptr;
  auto call = bind_call(add);
  if (!call) return nullptr;
  const auto alpha = call->number("alpha");
  if (!call->is_none("alpha") && (!alpha || *alpha != 1.0)) return nullptr;
  Node* self = call->node_arg("self");
  Node* other = call->node_arg("other");
  if (self == nullptr || other == nullptr || self == other) return nullptr;
  Node* residual = nullptr;
  if (self == &value) {
    residual = other;
  } else if (other == &value) {
    const bool written_unseen = is_convolution_call(*self) && only_user(*self) == &add;
    if (out_of_place || written_unseen) residual = self;
  }
  if (residual == nullptr) return nullptr;
  const auto a = tensor_info(value);
  const auto b = tensor_info(*residual);
  if (!a || !b || !a->float_cpu || !b->float_cpu || a->shape != b->shape) return nullptr;
  return residual;
}

// A convolution or linear call and what it absorbs.
struct Fusion {
  Node* node = nullptr;  // the convolution or linear call
  bool linear = false;
  ConvolutionCall conv;
  Node* linear_input = nullptr;
  Node* linear_weight = nullptr;
  Argument linear_bias;
  Node* residual = nullptr;        // binary add's other operand
  std::vector<Node*> absorbed;     // in graph order
  PostOp unary;                    // after the add, when there is one
  std::string why_left;            // why it is left as it was, once decided
  // Where its call goes: before its own node (its operands are all defined
  // there), or before its last node (a residual computed after it).
  bool at_node = true;
  Node* last() const { return absorbed.empty() ? node : absorbed.back(); }
  std::string describe() const {
    std::vector<std::string> parts = {node->name()};
    for (const Node* a : absorbed) parts.push_back(a->name());
    return absl::StrJoin(parts, " + ");
  }
};

// Absorbs into `f` the operators after its call that oneDNN can apply and
// no other fusion has (`taken`). `position`: the nodes' order.
void absorb_pointwise(Fusion& f, bool binary, const absl::flat_hash_set<const Node*>& taken,
                      const absl::flat_hash_map<const Node*, size_t>& position,
                      const std::vector<Node*>& order, const StorageWrites& storage_writes) {
  Node* value = f.node;
  Node* user = only_user(*value);
  if (user == nullptr || taken.count(user) > 0) return;
  if (binary) {
    if (Node* residual = residual_of(*user, *value)) {
      f.residual = residual;
      f.absorbed.push_back(user);
      value = user;
      user = only_user(*value);
    }
  }
  if (user != nullptr && taken.count(user) == 0) {
    auto post = unary_post_op(*user, *value);
    // The binary form takes a relu after the add (oneDNN's order).
    if (post && (f.residual == nullptr || post->attr == "relu")) {
      f.unary = *std::move(post);
      f.absorbed.push_back(user);
    }
  }
  if (f.residual == nullptr) return;
  const auto undo = [&f] {
    f.residual = nullptr;
    f.absorbed.clear();
    f.unary = PostOp();
    f.at_node = true;
  };
  // Whether a node strictly between positions `from` and `to` may write
  // `value` (or what it views).
  const auto written_between = [&](Node& value, size_t from, size_t to) {
    const bool writes = std::any_of(order.begin() + from + 1, order.begin() + to, [](const Node* u) {
      // A module call may write its module's state, whatever it is given.
      if (u->op() == Op::kCallModule || u->is_impure()) return true;
      for (const Node* v : u->input_nodes()) {
        if (may_write(*u, *v)) return true;
      }
      return false;
    });
    if (!writes) return false;
    absl::flat_hash_set<Node*> outside(order.begin(), order.begin() + from + 1);
    outside.insert(order.begin() + to, order.end());
    return storage_writes.writer(value, outside) != nullptr;
  };
  const size_t conv_at = position.at(f.node), add_at = position.at(f.absorbed.front());
  if (position.at(f.residual) < conv_at) {
    // The call goes where the convolution was, and reads the residual
    // there: nothing between it and the add may write it.
    if (written_between(*f.residual, conv_at, add_at)) undo();
    return;
  }
  // The residual is computed after the convolution: the call goes where the
  // add was, and reads the convolution's input and bias there: nothing
  // between may write them, and no reader of the fused-away convolution's
  // sizes (a folded batch norm's rank check) may come before.
  f.at_node = false;
  if (written_between(*f.conv.input, conv_at, add_at) ||
      (f.conv.bias != nullptr && written_between(*f.conv.bias, conv_at, add_at))) {
    return undo();
  }
  for (const Node* reader : f.node->users()) {
    if (reads_sizes_only(*reader) && position.at(reader) < add_at) return undo();
  }
}

Argument int_list(const std::vector<int64_t>& v) {
  std::vector<Argument> items;
  for (int64_t x : v) items.emplace_back(x);
  return Argument::List(std::move(items));
}

Argument scalar_list(const std::vector<double>& v) {
  std::vector<Argument> items;
  for (double x : v) items.emplace_back(x);
  return Argument::List(std::move(items));
}

Argument optional_string(const std::optional<std::string>& s) {
  return s ? Argument(*s) : Argument::None();
}

// The convolution's weight packed by oneDNN for `input_size`.
absl::StatusOr<at::Tensor> pack_convolution_weight(const ConvolutionCall& conv,
                                                   const std::vector<int64_t>& input_size) {
  auto op = find_operator("mkldnn::_reorder_convolution_weight", "");
  if (!op) return absl::UnavailableError("this libtorch has no mkldnn::_reorder_convolution_weight");
  torch::jit::Stack stack{c10::IValue(conv.weight_tensor.detach().contiguous()),
                          c10::IValue(conv.padding), c10::IValue(conv.stride),
                          c10::IValue(conv.dilation), c10::IValue(conv.groups),
                          c10::IValue(input_size)};
  try {
    op->callBoxed(stack);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("oneDNN cannot pack its weight: ", exception_message(e)));
  }
  return stack.at(0).toTensor();
}

// Elementwise operators and pooling: their results follow a channels-last
// input's layout, and they read it as well as a contiguous one.
bool follows_layout(const Node& n) {
  if (n.op() != Op::kCallFunction) return false;
  std::string base = operator_base_name(n.op(), n.target());
  if (!base.empty() && base.back() == '_') base.pop_back();
  static const auto* const kFollowers = new absl::flat_hash_set<std::string>{
      "aten::relu",      "aten::relu6",       "aten::hardtanh",   "aten::hardswish",
      "aten::silu",      "aten::sigmoid",     "aten::tanh",       "aten::hardsigmoid",
      "aten::leaky_relu", "aten::gelu",       "aten::add",        "aten::sub",
      "aten::mul",       "aten::div",         "aten::clamp",      "aten::clamp_min",
      "aten::clamp_max", "aten::dropout",     "aten::max_pool2d", "aten::avg_pool2d",
      "aten::adaptive_avg_pool2d"};
  return kFollowers->count(base) > 0;
}

}  // namespace

bool has_mkldnn_pointwise_operators() {
  return find_operator(kConvolutionPointwise, "").has_value() &&
         find_operator(kConvolutionPointwise, "binary").has_value() &&
         find_operator(kLinearPointwise, "").has_value() &&
         find_operator("mkldnn::_reorder_convolution_weight", "").has_value();
}

absl::StatusOr<MkldnnFusionReport> fuse_mkldnn_pointwise(GraphModule& gm,
                                                         const MkldnnFusionOptions& options) {
  MkldnnFusionReport report;
  if (!has_mkldnn_pointwise_operators()) {
    report.available = false;
    return report;
  }
  Graph& graph = gm.graph();
  if (!has_any_tensor_meta(graph)) {
    return absl::FailedPreconditionError(
        "mkldnn_fusion: the graph has no tensor_meta (shapes, dtypes, devices); put shape_prop "
        "(or shape_prop{device=meta}) before it in the pipeline, with --input-shape or --input");
  }
  lower_leaf_functions(gm);

  // What to fuse, in graph order; nothing is rewritten yet.
  std::vector<Node*> order;
  absl::flat_hash_map<const Node*, size_t> position;
  for (Node* n : graph.nodes()) {
    position.emplace(n, order.size());
    order.push_back(n);
  }
  // Who may write what the fusions read (module state included); asked
  // before anything is rewritten.
  const StorageWrites writes(gm);
  std::vector<Fusion> fusions;
  absl::flat_hash_set<const Node*> absorbed;
  for (Node* n : graph.nodes()) {
    if (n->op() != Op::kCallFunction || absorbed.count(n) > 0) continue;
    const bool convolution = is_convolution_call(*n);
    const bool linear = options.linear && (n->target() == "aten::linear" ||
                                           n->target() == "aten::linear.default");
    if (!convolution && !linear) continue;
    auto call = bind_call(*n);
    if (!call) continue;
    Fusion f;
    f.node = n;
    f.linear = linear;
    std::string problem;
    Node* weight = nullptr;
    if (convolution) {
      problem = read_convolution(gm, *n, *call, "mkldnn_fusion", f.conv);
      weight = f.conv.weight;
    } else {
      f.linear_input = call->node_arg("input");
      weight = call->node_arg("weight");
      auto w = weight != nullptr && weight->op() == Op::kGetAttr ? gm.get_attr(weight->target())
                                                                  : absl::StatusOr<c10::IValue>();
      const auto in = f.linear_input != nullptr ? tensor_info(*f.linear_input) : std::nullopt;
      if (!w.ok() || !w->isTensor() || w->toTensor().dim() != 2 ||
          w->toTensor().scalar_type() != at::kFloat || !w->toTensor().device().is_cpu() ||
          w->toTensor().layout() != c10::kStrided) {
        problem = "its weight is not a 2-d float32 CPU tensor attribute";
      } else if (!in || !in->float_cpu || in->shape.size() < 2) {
        problem = in ? "its input is not a float32 CPU tensor of rank 2 or more"
                     : "its input's shape is unknown (run shape_prop before mkldnn_fusion)";
      }
      f.linear_weight = weight;
      f.linear_bias = call->is_none("bias") ? Argument::None()
                                            : call->node_arg("bias") != nullptr
                                                  ? Argument(call->node_arg("bias"))
                                                  : Argument::None();
      if (problem.empty() && !call->is_none("bias")) {
        // oneDNN takes a bias of the output's features, where aten broadcasts.
        Node* bias = call->node_arg("bias");
        const auto b = bias != nullptr ? tensor_info(*bias) : std::nullopt;
        if (!b || !b->float_cpu || b->shape != std::vector<int64_t>{w->toTensor().size(0)}) {
          problem = "its bias is not a float32 CPU vector of its output features";
        }
      }
    }
    if (problem.empty() && writes.writer(*weight, {}) != nullptr) {
      problem = "its weight may be written by the graph, which a copy made once would miss";
    }
    if (!problem.empty()) {
      report.left_alone.push_back(absl::StrCat(n->name(), ": ", problem));
      continue;
    }
    absorb_pointwise(f, /*binary=*/convolution, absorbed, position, order, writes);
    for (Node* a : f.absorbed) absorbed.insert(a);
    fusions.push_back(std::move(f));
  }
  if (fusions.empty()) return report;

  // Channels-last values: a fused convolution's result and what follows its
  // layout; regions join the fusions and followers linked through them.
  // Decided to a fixed point: a convolution left alone makes its readers'
  // layout and conversions what they were.
  const std::vector<Node*>& nodes = order;
  const absl::flat_hash_map<const Node*, size_t>& index = position;
  std::vector<std::pair<Node*, std::vector<Node*>>> conversions;
  for (bool changed = true; changed;) {
    changed = false;
    conversions.clear();
    AliasClasses regions(nodes.size());
    absl::flat_hash_set<const Node*> channels_last;
    absl::flat_hash_set<Node*> covered;  // the nodes of convolutions fused
    for (const Fusion& f : fusions) {
      if (f.linear || !f.why_left.empty()) continue;
      covered.insert(f.node);
      for (Node* a : f.absorbed) {
        covered.insert(a);
        regions.unite(index.at(f.node), index.at(a));
      }
      channels_last.insert(f.last());
    }
    for (Node* n : nodes) {
      if (covered.count(n) > 0 || !follows_layout(*n)) continue;
      for (const Node* input : n->input_nodes()) {
        if (channels_last.count(input) == 0) continue;
        channels_last.insert(n);
        regions.unite(index.at(n), index.at(input));
      }
    }
    // Readers of channels-last values that need them contiguous, and
    // regions where that cannot be done.
    std::map<size_t, std::string> unsafe;  // region root -> why
    for (Node* value : nodes) {
      if (channels_last.count(value) == 0) continue;
      std::vector<Node*> readers;
      for (Node* user : value->users()) {
        if (reads_sizes_only(*user) || channels_last.count(user) > 0 || covered.count(user) > 0) {
          continue;
        }
        readers.push_back(user);
      }
      if (readers.empty()) continue;
      if (const Node* writer = writes.writer(*value, covered)) {
        unsafe.emplace(regions.find(index.at(value)),
                       absl::StrCat(value->name(), " may be written by ", writer->name(), ", and ",
                                    readers[0]->name(), " would read a contiguous copy of it"));
        continue;
      }
      conversions.emplace_back(value, std::move(readers));
    }
    for (Fusion& f : fusions) {
      if (f.linear || !f.why_left.empty()) continue;
      auto why = unsafe.find(regions.find(index.at(f.node)));
      if (why == unsafe.end()) continue;
      f.why_left = why->second;
      changed = true;
    }
  }

  // Rewrite.
  absl::flat_hash_map<Node*, Node*> replaced;  // a fusion's last node -> its call
  const auto current = [&replaced](Node* n) {
    auto it = replaced.find(n);
    return it == replaced.end() ? n : it->second;
  };
  for (Fusion& f : fusions) {
    if (!f.why_left.empty()) {
      report.left_alone.push_back(absl::StrCat(f.node->name(), ": ", f.why_left));
      continue;
    }
    if (f.linear) {
      f.linear_input = current(f.linear_input);
      if (f.linear_bias.is_node()) f.linear_bias = Argument(current(f.linear_bias.to_node()));
    } else {
      f.conv.input = current(f.conv.input);
      if (f.residual != nullptr) f.residual = current(f.residual);
    }
    Node* last = f.last();
    if (last->erased()) {
      return absl::InternalError(absl::StrCat("mkldnn_fusion: ", f.describe(), " lost its last node"));
    }
    InsertionGuard guard =
        graph.inserting_before(f.at_node ? f.node : f.absorbed.empty() ? last : f.absorbed.front());
    Node* call = nullptr;
    if (f.linear) {
      call = graph.call_function(kLinearPointwise,
                                 {Argument(f.linear_input), Argument(f.linear_weight), f.linear_bias,
                                  Argument(f.unary.attr), scalar_list(f.unary.scalars),
                                  optional_string(f.unary.algorithm)});
    } else {
      const auto input_size = tensor_info(*f.conv.input);
      auto packed = pack_convolution_weight(f.conv, input_size->shape);
      if (!packed.ok()) {
        report.left_alone.push_back(absl::StrCat(f.node->name(), ": ", packed.status().message()));
        continue;
      }
      const std::string name = unique_attribute_name(gm, f.conv.weight->target() + "_packed");
      if (absl::Status s = gm.add_attribute(name, *packed); !s.ok()) return s;
      Node* w = graph.get_attr(name);
      if (const MetaValue* path = f.node->meta().find(kModulePathKey)) w->meta().set(kModulePathKey, *path);
      const Argument bias = f.conv.bias == nullptr ? Argument::None() : Argument(f.conv.bias);
      if (f.residual != nullptr) {
        call = graph.call_function(
            kConvolutionPointwiseBinary,
            {Argument(f.conv.input), Argument(f.residual), Argument(w), bias, int_list(f.conv.padding),
             int_list(f.conv.stride), int_list(f.conv.dilation), Argument(f.conv.groups),
             Argument("add"), Argument::None(),
             f.unary.name.empty() ? Argument::None() : Argument(f.unary.attr),
             scalar_list(f.unary.scalars), optional_string(f.unary.algorithm)});
      } else {
        call = graph.call_function(
            kConvolutionPointwise,
            {Argument(f.conv.input), Argument(w), bias, int_list(f.conv.padding),
             int_list(f.conv.stride), int_list(f.conv.dilation), Argument(f.conv.groups),
             Argument(f.unary.attr), scalar_list(f.unary.scalars), optional_string(f.unary.algorithm)});
      }
    }
    call->meta() = last->meta();
    if (!f.linear) {
      if (MetaValue* meta = call->meta().find(kTensorMetaKey); meta != nullptr && meta->is_map()) {
        Meta m = meta->to_map();
        const auto info = tensor_info(*last);
        if (info && info->shape.size() == 4) {
          const std::vector<int64_t>& s = info->shape;
          std::vector<MetaValue> strides = {MetaValue(s[1] * s[2] * s[3]), MetaValue(int64_t{1}),
                                            MetaValue(s[3] * s[1]), MetaValue(s[1])};
          m.set("stride", MetaValue(std::move(strides)));
          m.set("memory_format", MetaValue("torch.channels_last"));
        }
        *meta = MetaValue(std::move(m));
      }
    }
    last->replace_all_uses_with(call);
    // Readers of the sizes of the values fused away read the call's: the
    // same (no broadcasting add is fused).
    std::vector<Node*> fused_away = {f.node};
    fused_away.insert(fused_away.end(), f.absorbed.begin(), f.absorbed.end() - (f.absorbed.empty() ? 0 : 1));
    for (Node* v : fused_away) {
      const std::vector<Node*> users(v->users().begin(), v->users().end());
      for (Node* user : users) {
        if (reads_sizes_only(*user)) user->replace_input_with(v, call);
      }
    }
    for (auto it = f.absorbed.rbegin(); it != f.absorbed.rend(); ++it) {
      if (absl::Status s = graph.erase_node(*it); !s.ok()) return s;
    }
    if (absl::Status s = graph.erase_node(f.node); !s.ok()) return s;
    replaced.emplace(last, call);
    report.fused.push_back(f.describe());
  }
  // Contiguous copies for the readers that need them, made once, just after
  // the value.
  for (auto& [value, readers] : conversions) {
    Node* v = current(value);
    if (v->erased()) {
      return absl::InternalError(absl::StrCat("mkldnn_fusion: ", value->name(), " was fused away"));
    }
    InsertionGuard guard = graph.inserting_after(v);
    Node* contiguous = graph.call_function("aten::contiguous", {Argument(v)});
    if (const MetaValue* meta = value->meta().find(kTensorMetaKey); meta != nullptr) {
      contiguous->meta().set(kTensorMetaKey, *meta);
    }
    for (Node* reader : readers) reader->replace_input_with(v, contiguous);
    ++report.contiguous;
  }
  if (absl::Status s = graph.lint(); !s.ok()) {
    return absl::InternalError(absl::StrCat("mkldnn_fusion left the graph malformed: ", s.message()));
  }
  return report;
}

absl::Status MkldnnFusion::run(GraphModule& module, PassContext& context) {
  MkldnnFusionOptions options;
  options.linear = linear;
  auto report = fuse_mkldnn_pointwise(module, options);
  if (!report.ok()) return report.status();
  if (!report->available) {
    context.warn(absl::StrCat("mkldnn_fusion: libtorch ", TORCH_VERSION,
                              " has no mkldnn::_convolution_pointwise (oneDNN post-op fusion "
                              "arrived in PyTorch 2.0); the graph is unchanged (mkldnn_layout "
                              "is the faster pass there)"));
    return absl::OkStatus();
  }
  if (!report->left_alone.empty()) {
    context.warn(absl::StrCat("mkldnn_fusion: ", report->left_alone.size(),
                              " call(s) left unfused: ", absl::StrJoin(report->left_alone, "; ")));
  }
  return absl::OkStatus();
}

void register_mkldnn_fusion(PluginRegistrar& registrar) {
  registrar.add_pass<MkldnnFusion>(
      "mkldnn_fusion",
      "fuses convolutions and linear layers with the pointwise operators after them as oneDNN "
      "post-ops, weights packed once (Inductor's freezing on the CPU); needs shape_prop first");
}

}  // namespace fx
