// Copyright 2026 The FX for C++ Authors.
#include "passes/fold_bn/fold_bn.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/zeros_like.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "passes/support/call_arguments.h"
#include "passes/support/normalized_call.h"
#include "passes/support/operator_targets.h"
#include "passes/support/tensor_readers.h"
#include "passes/support/value_writes.h"
#include "runtime/graph_module.h"
#include "runtime/module.h"

namespace fx {
namespace {

// The class name ("Conv2d") of one of torch.nn's modules, else "".
std::string torch_nn_class(const Module& m) {
  if (!absl::StrContains(m.type_name(), "torch.nn.modules.")) return "";
  return m.class_name();
}

// The rank of a node's value from its tensor_meta (shape_prop's, or a
// torch.export program's), or -1.
int known_rank(const Node& n) {
  const MetaValue* meta = n.meta().find(kTensorMetaKey);
  if (meta == nullptr || !meta->is_map()) return -1;
  const MetaValue* shape = meta->to_map().find("shape");
  if (shape == nullptr || !shape->is_list()) return -1;
  return static_cast<int>(shape->to_list().size());
}

// True for users that read only a tensor's rank, sizes, dtype or device,
// which folding leaves as they were.
bool reads_metadata_only(const Node& user, const Node& value) {
  if (user.args().empty() || !user.args()[0].is_node() || user.args()[0].to_node() != &value) {
    return false;
  }
  for (size_t i = 1; i < user.args().size(); ++i) {
    if (user.args()[i].is_node() && user.args()[i].to_node() == &value) return false;
  }
  const std::string& t = user.target();
  if (user.op() != Op::kCallFunction && user.op() != Op::kCallMethod) return false;
  if (user.op() == Op::kCallFunction && t == kGetAttrTarget) {
    return user.args().size() == 2 && user.args()[1].is_string() &&
           (user.args()[1].to_string() == "shape" || user.args()[1].to_string() == "ndim" ||
            user.args()[1].to_string() == "dtype" || user.args()[1].to_string() == "device");
  }
  const std::string op = operator_base_name(user.op(), t);
  return op == "aten::dim" || op == "aten::size" || op == "aten::sym_size";
}

// A tensor the graph reads (get_attr), or an explanation of why not.
struct ReadTensor {
  std::optional<at::Tensor> tensor;  // empty for None
  Node* node = nullptr;              // the get_attr node, if any
  std::string error;
};

ReadTensor read_tensor(const GraphModule& gm, const Argument* arg, absl::string_view what) {
  ReadTensor out;
  if (arg == nullptr || arg->is_none()) return out;
  if (!arg->is_node() || arg->to_node()->op() != Op::kGetAttr) {
    out.error = absl::StrCat("its ", what, " is computed by the graph, not read from the module");
    return out;
  }
  out.node = arg->to_node();
  auto value = gm.get_attr(out.node->target());
  if (!value.ok() || !value->isTensor()) {
    out.error = absl::StrCat("its ", what, " '", out.node->target(), "' is not a tensor");
    return out;
  }
  // An undefined tensor is read as None: absent where optional, refused
  // where not (running statistics, the layer's weight).
  if (value->toTensor().defined()) out.tensor = value->toTensor();
  return out;
}

// The value of `m`'s parameter, buffer or attribute `name`; None when it has
// none (or `name` is a submodule).
c10::IValue module_value(const Module& m, const char* name) {
  const Module::Slot* slot = m.find(name);
  if (slot == nullptr || slot->kind == SlotKind::kModule) return c10::IValue();
  return slot->value;
}

std::optional<at::Tensor> module_tensor(const Module& m, const char* name) {
  c10::IValue v = module_value(m, name);
  if (!v.isTensor() || !v.toTensor().defined()) return std::nullopt;  // undefined: as None
  return v.toTensor();
}

// A batch norm as read from the graph.
struct BatchNorm {
  Node* node = nullptr;
  Node* input = nullptr;
  // Nodes whose value is the normalised tensor: the node itself, or the
  // getitem 0 of the tuple a native batch norm returns; `other_results` are
  // its getitem 1 and 2, unused.
  std::vector<Node*> results;
  std::vector<Node*> other_results;
  std::optional<at::Tensor> weight, bias;
  at::Tensor mean, var;
  double eps = 1e-5;
  bool training = false;
  // The rank the batch norm checks its input has (BatchNorm2d: 4); 0 when it
  // accepts several or does not check.
  int checked_rank = 0;
  std::string error;  // why it cannot be folded, when it cannot
};

int checked_rank_of_class(const std::string& cls) {
  if (cls == "BatchNorm2d") return 4;
  if (cls == "BatchNorm3d") return 5;
  return 0;
}

// The operators that compute a batch norm; those with more than one result
// return the saved statistics too (read through getitem).
bool is_batch_norm_operator(const std::string& base_name) {
  return base_name == "aten::batch_norm" || base_name == "aten::native_batch_norm" ||
         base_name == "aten::_native_batch_norm_legit" ||
         base_name == "aten::_native_batch_norm_legit_no_training";
}

bool is_layer_operator(const std::string& base_name) {
  return base_name == "aten::linear" || base_name == "aten::conv1d" ||
         base_name == "aten::conv2d" || base_name == "aten::conv3d" ||
         base_name == "aten::convolution" || base_name == "aten::_convolution";
}

bool is_batch_norm(const GraphModule& gm, const Node& n) {
  if (n.op() != Op::kCallModule) {
    std::optional<NormalizedCall> call = normalize_call(gm, n);
    return call && is_batch_norm_operator(call->base_name());
  }
  auto m = gm.get_submodule(n.target());
  return m.ok() && absl::StartsWith(torch_nn_class(**m), "BatchNorm");
}

BatchNorm read_module_batch_norm(const GraphModule& gm, Node& n) {
  BatchNorm bn;
  bn.node = &n;
  bn.results = {&n};
  const std::shared_ptr<Module> module = *gm.get_submodule(n.target());
  const Module& m = *module;
  if (n.args().size() != 1 || !n.kwargs().empty() || !n.args()[0].is_node()) {
    bn.error = "it is not called with one tensor";
    return bn;
  }
  bn.input = n.args()[0].to_node();
  bn.training = m.training();
  bn.weight = module_tensor(m, "weight");
  bn.bias = module_tensor(m, "bias");
  std::optional<at::Tensor> mean = module_tensor(m, "running_mean");
  std::optional<at::Tensor> var = module_tensor(m, "running_var");
  if (!mean || !var) {
    bn.error = "it has no running statistics (it normalises with the batch's)";
    return bn;
  }
  bn.mean = *mean;
  bn.var = *var;
  const c10::IValue eps = module_value(m, "eps");
  if (!eps.isDouble()) {
    bn.error = "its eps is not a float";
    return bn;
  }
  bn.eps = eps.toDouble();
  bn.checked_rank = checked_rank_of_class(torch_nn_class(m));
  return bn;
}

BatchNorm read_function_batch_norm(const GraphModule& gm, Node& n) {
  BatchNorm bn;
  bn.node = &n;
  const std::optional<NormalizedCall> normalized = normalize_call(gm, n);
  if (!normalized) {  // is_batch_norm said it normalises
    bn.error = "its arguments do not fit the batch norm operator";
    return bn;
  }
  const BoundCall& call = normalized->call;
  bn.input = call.node_arg("input");
  if (bn.input == nullptr) {
    bn.error = "its input is not a node";
    return bn;
  }
  if (call.index_of("training") < call.given.size()) {
    const std::optional<bool> training = call.boolean("training");
    if (!training) {
      bn.error = "whether it trains is decided when the graph runs";
      return bn;
    }
    bn.training = *training;
  }
  const auto read = [&](const char* name, std::optional<at::Tensor>* into) {
    ReadTensor r = read_tensor(gm, call.arg(name), name);
    if (!r.error.empty() && bn.error.empty()) bn.error = r.error;
    *into = r.tensor;
    return r.node;
  };
  std::optional<at::Tensor> mean, var;
  read("weight", &bn.weight);
  read("bias", &bn.bias);
  Node* mean_node = read("running_mean", &mean);
  read("running_var", &var);
  if (!bn.error.empty()) return bn;
  if (!mean || !var) {
    bn.error = "it has no running statistics (it normalises with the batch's)";
    return bn;
  }
  bn.mean = *mean;
  bn.var = *var;
  const std::optional<double> eps = call.number("eps");
  if (!eps) {
    bn.error = "its eps is not a number";
    return bn;
  }
  bn.eps = *eps;
  // The result: the node, or the getitem 0 of its tuple.
  if (call.schema->returns().size() == 1) {
    bn.results = {&n};
  } else {
    for (Node* user : n.users()) {
      const bool getitem = user->op() == Op::kCallFunction && user->target() == kGetItemTarget &&
                           user->args().size() == 2 && user->args()[1].is_int();
      if (getitem && user->args()[1].to_int() == 0) {
        bn.results.push_back(user);
      } else if (getitem && user->users().empty()) {
        bn.other_results.push_back(user);
      } else {
        bn.error = absl::StrCat("its saved statistics are used by '", user->name(), "'");
        return bn;
      }
    }
  }
  // A functional batch norm inlined from a BatchNorm2d/3d module keeps the
  // module's input check (a torch._assert on the input's dim()).
  if (mean_node != nullptr) {
    const std::string& target = mean_node->target();
    const size_t dot = target.rfind('.');
    auto owner = gm.get_submodule(dot == std::string::npos ? "" : target.substr(0, dot));
    bool dim_checked = false;
    for (const Node* user : bn.input->users()) {
      dim_checked |= (user->op() == Op::kCallFunction && user->target() == "aten::dim") ||
                     (user->op() == Op::kCallMethod && user->target() == "dim");
    }
    if (owner.ok() && dim_checked) bn.checked_rank = checked_rank_of_class(torch_nn_class(**owner));
  }
  return bn;
}

// A convolution or linear layer as read from the graph.
struct Layer {
  Node* node = nullptr;
  bool linear = false;
  at::Tensor weight;
  std::optional<at::Tensor> bias;
  std::string weight_name;  // qualified name of the weight: "conv1.weight"
  Node* weight_node = nullptr;  // get_attr nodes (call_function layers)
  Node* bias_node = nullptr;
  // call_module layers: the module, and the convolution's hyperparameters.
  std::shared_ptr<const Module> module;
  std::string error;
};

Layer read_layer(const GraphModule& gm, Node& n) {
  Layer layer;
  layer.node = &n;
  if (n.op() == Op::kCallModule) {
    auto m = gm.get_submodule(n.target());
    const std::string cls = m.ok() ? torch_nn_class(**m) : "";
    if (cls != "Conv1d" && cls != "Conv2d" && cls != "Conv3d" && cls != "Linear") {
      layer.error = "its input does not come from a convolution or linear layer";
      return layer;
    }
    if (n.args().size() != 1 || !n.kwargs().empty()) {
      layer.error = absl::StrCat("'", n.name(), "' is not called with one tensor");
      return layer;
    }
    layer.linear = cls == "Linear";
    layer.module = *m;
    std::optional<at::Tensor> weight = module_tensor(**m, "weight");
    if (!weight) {
      layer.error = absl::StrCat("'", n.target(), "' has no weight tensor");
      return layer;
    }
    layer.weight = *weight;
    layer.bias = module_tensor(**m, "bias");
    layer.weight_name = absl::StrCat(n.target(), ".weight");
    const c10::IValue padding_mode = module_value(**m, "padding_mode");
    if (!layer.linear && (!padding_mode.isString() || padding_mode.toStringRef() != "zeros")) {
      layer.error = absl::StrCat("'", n.target(), "' pads other than with zeros");
    }
    return layer;
  }
  const std::optional<NormalizedCall> normalized = normalize_call(gm, n);
  if (!normalized || !is_layer_operator(normalized->base_name())) {
    layer.error = "its input does not come from a convolution or linear layer";
    return layer;
  }
  const BoundCall& call = normalized->call;
  layer.linear = normalized->base_name() == "aten::linear";
  if (call.index_of("transposed") < call.given.size()) {
    const std::optional<bool> transposed = call.boolean("transposed");
    if (!transposed || *transposed) {
      layer.error = absl::StrCat("'", n.name(), "' is a transposed convolution");
      return layer;
    }
  }
  ReadTensor weight = read_tensor(gm, call.arg("weight"), "layer's weight");
  ReadTensor bias = read_tensor(gm, call.arg("bias"), "layer's bias");
  if (!weight.error.empty() || !bias.error.empty() || !weight.tensor) {
    layer.error = !weight.error.empty() ? weight.error
                  : !bias.error.empty() ? bias.error
                                        : "the layer has no weight";
    return layer;
  }
  layer.weight = *weight.tensor;
  layer.bias = bias.tensor;
  layer.weight_node = weight.node;
  layer.bias_node = bias.node;
  layer.weight_name = weight.node->target();
  return layer;
}

// Why `layer`'s tensors cannot be replaced by folded ones, or "".
std::string sharing_problem(const TensorReaders& readers, const Layer& layer) {
  const auto check = [&](const at::Tensor& t, Node* node, const char* what) -> std::string {
    const std::vector<const Node*>& r = readers.readers(t);
    const size_t uses = r.size() + (node != nullptr ? node->users().size() - 1 : 0);
    if (uses <= 1) return "";
    const std::string& own = node != nullptr ? node->name() : layer.node->name();
    std::string other;
    for (const Node* reader : r) {
      if (reader->name() != own) other = reader->name();
    }
    if (other.empty() && node != nullptr) {
      for (const Node* user : node->users()) {
        if (user != layer.node) other = user->name();
      }
    }
    return absl::StrCat("the ", what, " of '", layer.node->name(), "' is also used by '", other,
                        "' (folding would change what that computes, or keep two copies)");
  };
  std::string problem = check(layer.weight, layer.weight_node, "weight");
  if (problem.empty() && layer.bias) problem = check(*layer.bias, layer.bias_node, "bias");
  return problem;
}

// Why the graph may change a tensor folding reads, or "": a batch norm's
// statistics or affine parameters, or the layer's weight or bias, that a node
// may write in place (test-time adaptation, a counter kept in a buffer). The
// folded weights are computed once: before the write the graph would compute
// with the old values, after it the next run would.
std::string write_problem(const TensorReaders& readers, const Layer& layer, const BatchNorm& bn) {
  const absl::flat_hash_set<Node*> readers_folded = {bn.node, layer.node};
  const std::pair<const at::Tensor*, const char*> tensors[] = {
      {&bn.mean, "running mean"},
      {&bn.var, "running variance"},
      {bn.weight ? &*bn.weight : nullptr, "weight"},
      {bn.bias ? &*bn.bias : nullptr, "bias"},
      {&layer.weight, "layer's weight"},
      {layer.bias ? &*layer.bias : nullptr, "layer's bias"},
  };
  for (const auto& [tensor, what] : tensors) {
    if (tensor == nullptr || !tensor->defined()) continue;
    if (const Node* writer = tensor_writer(readers, *tensor, readers_folded)) {
      const bool own = std::string(what).rfind("layer", 0) == 0;
      return absl::StrCat(own ? "the " : "the batch norm's ", what, " may be written by '", writer->name(),
                          "' (", op_name(writer->op()), " ", writer->target(),
                          "): folded weights would keep the values before the write");
    }
  }
  return "";
}

struct Folded {
  at::Tensor weight, bias;
};

// fuse_conv_bn_weights / fuse_linear_bn_weights: computed in float32 (or
// float64 when any tensor is), stored in the layer's dtypes.
Folded fold_weights(const Layer& layer, const BatchNorm& bn) {
  at::NoGradGuard no_grad;
  bool any_double = layer.weight.scalar_type() == at::kDouble ||
                    bn.mean.scalar_type() == at::kDouble || bn.var.scalar_type() == at::kDouble;
  for (const auto* t : {&layer.bias, &bn.weight, &bn.bias}) {
    any_double |= t->has_value() && (*t)->scalar_type() == at::kDouble;
  }
  const at::ScalarType compute = any_double ? at::kDouble : at::kFloat;
  const auto as = [&](const at::Tensor& t) { return t.detach().to(compute); };
  const at::Tensor mean = as(bn.mean);
  const at::Tensor gamma = bn.weight ? as(*bn.weight) : at::ones_like(mean);
  const at::Tensor beta = bn.bias ? as(*bn.bias) : at::zeros_like(mean);
  const at::Tensor b = layer.bias ? as(*layer.bias) : at::zeros_like(mean);
  const at::Tensor scale = gamma * at::rsqrt(as(bn.var) + bn.eps);
  std::vector<int64_t> shape(static_cast<size_t>(layer.weight.dim()), 1);
  shape[0] = -1;
  Folded f;
  f.weight = (as(layer.weight) * scale.reshape(shape)).to(layer.weight.scalar_type());
  f.bias = ((b - mean) * scale + beta)
               .to(layer.bias ? layer.bias->scalar_type() : layer.weight.scalar_type());
  return f;
}

std::string shape_string(const at::Tensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.sizes(), ", "), "]");
}

// Why the batch norm's tensors and the layer's bias are not one value per
// output channel of the layer, or "". Shapes, not element counts: a bias of
// shape [C, 1] would broadcast into a [C, C] folded bias, and a [2, 4] weight
// on 8 channels would fail in libtorch.
std::string shape_problem(const Layer& layer, const BatchNorm& bn) {
  if (layer.weight.dim() < 2) {
    return absl::StrCat("the weight of '", layer.node->name(), "' has shape ",
                        shape_string(layer.weight), ", not that of a convolution or linear layer");
  }
  const int64_t channels = layer.weight.size(0);
  const std::pair<const std::optional<at::Tensor>, const char*> tensors[] = {
      {bn.mean, "running mean"},
      {bn.var, "running variance"},
      {bn.weight, "weight"},
      {bn.bias, "bias"},
      {layer.bias, "layer's bias"},
  };
  for (const auto& [tensor, what] : tensors) {
    if (!tensor) continue;  // an optional one, absent
    const bool own = std::string(what).rfind("layer", 0) == 0;
    if (tensor->dim() != 1 || tensor->size(0) != channels) {
      return absl::StrCat(own ? "the " : "its ", what, " has shape ", shape_string(*tensor),
                          ", not [", channels, "] (one value per output channel of '",
                          layer.node->name(), "')");
    }
  }
  return "";
}

// Why the pair cannot be folded, or "".
std::string fold_problem(const TensorReaders& readers, const Layer& layer, const BatchNorm& bn) {
  for (const Node* user : layer.node->users()) {
    if (user != bn.node && !reads_metadata_only(*user, *layer.node)) {
      return absl::StrCat("the result of '", layer.node->name(), "' is also used by '",
                          user->name(), "', which would see the folded values");
    }
  }
  if (std::string s = sharing_problem(readers, layer); !s.empty()) return s;
  if (std::string s = write_problem(readers, layer, bn); !s.empty()) return s;
  if (std::string s = shape_problem(layer, bn); !s.empty()) return s;
  // The batch norm normalises dimension 1; the layer's channels are there
  // only for batched convolutions and 2-D linear results.
  const int rank = layer.linear ? 2 : static_cast<int>(layer.weight.dim());
  int known = known_rank(*layer.node);
  if (known < 0) known = known_rank(*bn.node);
  if (known >= 0 && known != rank) {
    return absl::StrCat("the result of '", layer.node->name(), "' has rank ", known,
                        ", so its channels are not the dimension the batch norm normalises");
  }
  if (known < 0 && bn.checked_rank != rank) {
    return absl::StrCat("the rank of the result of '", layer.node->name(),
                        "' is unknown (an unbatched input would put its channels elsewhere); "
                        "run shape_prop before fold_bn");
  }
  return "";
}

absl::StatusOr<Argument> int_list(const c10::IValue& v, const std::string& what) {
  if (v.isInt()) return Argument(v.toInt());
  if (!v.isTuple() && !v.isIntList() && !v.isList()) {
    return absl::InvalidArgumentError(absl::StrCat("fold_bn: ", what, " is not a list of ints"));
  }
  std::vector<Argument> items;
  const std::vector<c10::IValue> elements =
      v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
  for (const c10::IValue& e : elements) {
    if (!e.isInt()) {
      return absl::InvalidArgumentError(absl::StrCat("fold_bn: ", what, " is not a list of ints"));
    }
    items.emplace_back(e.toInt());
  }
  return Argument::List(std::move(items));
}

// The call_function that replaces a Conv/Linear module call, with `weight`
// and `bias` nodes, at the insertion point. Names are never reused, so it is
// named `<module call>_folded`.
absl::StatusOr<Node*> layer_as_function(Graph& graph, const Layer& layer, Node* weight, Node* bias) {
  const Argument& input = layer.node->args()[0];
  const std::string name = absl::StrCat(layer.node->name(), "_folded");
  if (layer.linear) {
    return graph.create_node(Op::kCallFunction, "aten::linear", {input, weight, bias}, {}, name,
                             layer.node->type());
  }
  const Module& m = *layer.module;
  const std::string prefix = absl::StrCat(layer.node->target(), ".");
  auto stride = int_list(module_value(m, "stride"), prefix + "stride");
  auto dilation = int_list(module_value(m, "dilation"), prefix + "dilation");
  if (!stride.ok()) return stride.status();
  if (!dilation.ok()) return dilation.status();
  const c10::IValue groups = module_value(m, "groups");
  if (!groups.isInt()) {
    return absl::InvalidArgumentError(absl::StrCat("fold_bn: ", prefix, "groups is not an int"));
  }
  const c10::IValue padding_value = module_value(m, "padding");
  std::string target = absl::StrCat("aten::conv", layer.weight.dim() - 2, "d");
  Argument padding;
  if (padding_value.isString()) {
    padding = Argument(padding_value.toStringRef());
    target += ".padding";
  } else {
    auto p = int_list(padding_value, prefix + "padding");
    if (!p.ok()) return p.status();
    padding = *p;
  }
  return graph.create_node(Op::kCallFunction, target,
                           {input, weight, bias, *stride, padding, *dilation, groups.toInt()}, {},
                           name, layer.node->type());
}

// Folds `bn` into `layer` (fold_problem said yes).
absl::Status fold(GraphModule& gm, const Layer& layer, const BatchNorm& bn) {
  Graph& graph = gm.graph();
  const Folded folded = fold_weights(layer, bn);
  const std::string weight_name = unique_attribute_name(gm, layer.weight_name + "_folded");
  if (absl::Status s = gm.add_attribute(weight_name, folded.weight); !s.ok()) return s;
  std::string bias_base = layer.weight_name;
  if (absl::EndsWith(bias_base, "weight")) bias_base.resize(bias_base.size() - 6);
  const std::string bias_name = unique_attribute_name(gm, absl::StrCat(
      bias_base, absl::EndsWith(bias_base, ".") || bias_base.empty() ? "" : "_", "bias_folded"));
  if (absl::Status s = gm.add_attribute(bias_name, folded.bias); !s.ok()) return s;

  Node* fused = layer.node;
  {
    InsertionGuard guard = graph.inserting_before(layer.node);
    Node* w = graph.get_attr(weight_name);
    Node* b = graph.get_attr(bias_name);
    for (Node* attr : {w, b}) {
      if (const MetaValue* path = layer.node->meta().find(kModulePathKey)) {
        attr->meta().set(kModulePathKey, *path);
      }
    }
    if (layer.module) {
      auto call = layer_as_function(graph, layer, w, b);
      if (!call.ok()) return call.status();
      fused = *call;
      fused->meta() = layer.node->meta();
    } else {
      Node& n = *layer.node;
      if (n.args().size() > 1) {
        n.update_arg(1, w);
      } else {
        n.update_kwarg("weight", w);
      }
      if (n.args().size() > 2) {
        n.update_arg(2, b);
      } else if (n.args().size() == 2 && n.kwarg("bias") == nullptr) {
        Arguments args = n.args();
        args.emplace_back(b);
        n.set_args(std::move(args));
      } else {
        n.update_kwarg("bias", b);
      }
    }
  }
  for (Node* result : bn.results) {
    result->replace_all_uses_with(fused);
  }
  for (Node* result : bn.results) {
    if (result != bn.node) {
      if (absl::Status s = graph.erase_node(result); !s.ok()) return s;
    }
  }
  for (Node* other : bn.other_results) {
    if (absl::Status s = graph.erase_node(other); !s.ok()) return s;
  }
  if (absl::Status s = graph.erase_node(bn.node); !s.ok()) return s;
  if (fused != layer.node) {
    layer.node->replace_all_uses_with(fused);  // users that read only metadata
    if (absl::Status s = graph.erase_node(layer.node); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FoldBatchNormReport> fold_batch_norms(GraphModule& module) {
  FoldBatchNormReport report;
  std::vector<Node*> batch_norms;
  for (Node* n : module.graph().nodes()) {
    if (is_batch_norm(module, *n)) batch_norms.push_back(n);
  }
  const TensorReaders readers(module);
  for (Node* n : batch_norms) {
    BatchNorm bn = n->op() == Op::kCallModule ? read_module_batch_norm(module, *n)
                                              : read_function_batch_norm(module, *n);
    const std::string label = n->name();
    if (bn.error.empty() && bn.training) {
      report.in_training_mode.push_back(label);
      continue;
    }
    std::string problem = bn.error;
    std::optional<Layer> layer;
    if (problem.empty()) {
      layer = read_layer(module, *bn.input);
      problem = layer->error;
    }
    if (problem.empty()) problem = fold_problem(readers, *layer, bn);
    if (!problem.empty()) {
      report.left_alone.push_back(absl::StrCat(label, ": ", problem));
      continue;
    }
    if (absl::Status s = fold(module, *layer, bn); !s.ok()) return s;
    report.folded.push_back(label);
  }
  return report;
}

absl::Status FoldBatchNorm::run(GraphModule& module, PassContext& context) {
  auto report = fold_batch_norms(module);
  if (!report.ok()) return report.status();
  if (!report->in_training_mode.empty()) {
    context.warn(absl::StrCat(
        "fold_bn: ", report->in_training_mode.size(),
        " batch norm(s) left unfolded because they run in training mode (they normalise with "
        "each batch's statistics): ",
        absl::StrJoin(report->in_training_mode, ", "), "; trace in eval mode to fold them"));
  }
  for (const std::string& line : report->left_alone) {
    context.warn(absl::StrCat("fold_bn: left ", line));
  }
  return absl::OkStatus();
}

void register_fold_bn(PluginRegistrar& registrar) {
  registrar.add_pass<FoldBatchNorm>(
      "fold_bn",
      "folds batch norms in eval mode into the convolution or linear layer before them");
}

}  // namespace fx
