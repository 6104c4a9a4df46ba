// Copyright 2026 The FX for C++ Authors.
#include "passes/transpose_linear/transpose_linear.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "passes/support/call_arguments.h"
#include "passes/support/operator_targets.h"
#include "passes/support/tensor_readers.h"
#include "passes/support/value_writes.h"
#include "runtime/graph_module.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

bool is_linear(const Node& n) {
  if (n.op() != Op::kCallFunction) return false;
  const std::string& t = n.target();
  if (t == "torch.nn.functional.linear" || t == "torch._C._nn.linear") return true;
  const absl::string_view overload = operator_overload(n.op(), t);
  return operator_base_name(n.op(), t) == "aten::linear" && (overload.empty() || overload == "default");
}

// Whether `user` reads `value` as a linear call's weight and in no other argument.
bool reads_as_linear_weight(const Node& user, const Node& value) {
  if (!is_linear(user)) return false;
  const Argument* weight = argument_at(user, 1, "weight");
  if (weight == nullptr || !weight->is_node() || weight->to_node() != &value) return false;
  const Argument* input = argument_at(user, 0, "input");
  const Argument* bias = argument_at(user, 2, "bias");
  for (const Argument* other : {input, bias}) {
    if (other != nullptr && other->is_node() && other->to_node() == &value) return false;
  }
  return true;
}

// Why the graph may write or hand out `weight`, or "": it is read by anything
// but linear calls' weight arguments and pure readers.
std::string write_problem(const TensorReaders& readers, const at::Tensor& weight) {
  const std::vector<const Node*>& r = readers.readers(weight);
  for (const Node* reader : r) {
    if (reader->op() == Op::kCallModule) {
      return absl::StrCat("its weight is also held by the submodule that '", reader->name(),
                          "' calls");
    }
  }
  for (const Node* get_attr : r) {
    for (const Node* user : get_attr->users()) {
      if (reads_as_linear_weight(*user, *get_attr) || only_reads(*user, *get_attr)) continue;
      return absl::StrCat("its weight '", get_attr->target(), "' is also used by '", user->name(),
                          "', which may write it or hand it out");
    }
  }
  return "";
}

// Which elements of which storage a weight is, read as which dtype: tied
// attributes are one weight, two views of one storage (halves of a packed
// parameter) are two.
using WeightView =
    std::tuple<const void*, int64_t, std::vector<int64_t>, std::vector<int64_t>, int>;

WeightView view_of(const at::Tensor& t) {
  return {storage_identity(t), t.storage_offset(), t.sizes().vec(), t.strides().vec(),
          static_cast<int>(t.scalar_type())};
}

// Why `n`'s weight cannot be transposed, or "" with `weight` set.
std::string weight_problem(const GraphModule& gm, const TensorReaders& readers, const Node& n,
                           at::Tensor& weight) {
  const Argument* arg = argument_at(n, 1, "weight");
  if (arg == nullptr || !arg->is_node() || arg->to_node()->op() != Op::kGetAttr) {
    return "its weight is computed by the graph, not read from the module";
  }
  auto value = gm.get_attr(arg->to_node()->target());
  if (!value.ok() || !value->isTensor()) {
    return absl::StrCat("its weight '", arg->to_node()->target(), "' is not a tensor");
  }
  weight = value->toTensor();
  if (weight.layout() != at::kStrided || weight.dim() != 2) {
    return absl::StrCat("its weight '", arg->to_node()->target(), "' is not a 2-d strided tensor");
  }
  if (weight.t().is_contiguous()) {
    return absl::StrCat("its weight '", arg->to_node()->target(), "' is stored transposed already");
  }
  return write_problem(readers, weight);
}

absl::Status transpose(GraphModule& gm, Node& linear, const at::Tensor& weight,
                       std::map<WeightView, Node*>& transposed) {
  Graph& graph = gm.graph();
  const Node& weight_node = *argument_at(linear, 1, "weight")->to_node();
  Node*& weight_t = transposed[view_of(weight)];
  if (weight_t == nullptr) {
    const std::string name = unique_attribute_name(gm, weight_node.target() + "_transposed");
    at::Tensor t;
    {
      at::NoGradGuard no_grad;
      t = weight.detach().t().contiguous();
    }
    if (absl::Status s = gm.add_attribute(name, t); !s.ok()) return s;
    // Before its first reader: linear calls are rewritten in graph order.
    InsertionGuard guard = graph.inserting_before(&linear);
    weight_t = graph.get_attr(name);
  }
  const Argument* input = argument_at(linear, 0, "input");
  const Argument* bias = argument_at(linear, 2, "bias");
  InsertionGuard guard = graph.inserting_before(&linear);
  Node* result = graph.create_node(Op::kCallFunction, "aten::matmul", {*input, weight_t}, {},
                                   absl::StrCat(linear.name(), "_matmul"), linear.type());
  result->meta() = linear.meta();
  if (bias != nullptr && !bias->is_none()) {
    result = graph.create_node(Op::kCallFunction, "aten::add.Tensor", {result, *bias}, {},
                               absl::StrCat(linear.name(), "_bias"), linear.type());
    result->meta() = linear.meta();
  }
  linear.replace_all_uses_with(result);
  return graph.erase_node(&linear);
}

}  // namespace

absl::StatusOr<TransposeLinearReport> transpose_linear_weights(GraphModule& module) {
  TransposeLinearReport report;
  std::vector<Node*> linears;
  for (Node* n : module.graph().nodes()) {
    if (is_linear(*n)) linears.push_back(n);
  }
  const TensorReaders readers(module);
  std::map<WeightView, Node*> transposed;  // one copy per weight
  for (Node* n : linears) {
    at::Tensor weight;
    const std::string problem = weight_problem(module, readers, *n, weight);
    if (!problem.empty()) {
      report.left_alone.push_back(absl::StrCat(n->name(), ": ", problem));
      continue;
    }
    const std::string name = n->name();
    if (absl::Status s = transpose(module, *n, weight, transposed); !s.ok()) return s;
    report.transposed.push_back(name);
  }
  return report;
}

absl::Status TransposeLinear::run(GraphModule& module, PassContext& context) {
  auto report = transpose_linear_weights(module);
  if (!report.ok()) return report.status();
  for (const std::string& line : report->left_alone) {
    context.warn(absl::StrCat("transpose_linear: left ", line));
  }
  return absl::OkStatus();
}

void register_transpose_linear(PluginRegistrar& registrar) {
  registrar.add_pass<TransposeLinear>(
      "transpose_linear",
      "stores linear layers' weights transposed, so that their matrix products read them in order");
}

}  // namespace fx
