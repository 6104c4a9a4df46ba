// Copyright 2026 The FX for C++ Authors.
#include "passes/fuse_elementwise/fuse_elementwise.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/support/call_arguments.h"
#include "passes/support/convolution_call.h"
#include "passes/support/value_writes.h"
#include "runtime/kernels/elementwise_kernels.h"
#include "runtime/graph_module.h"

namespace fx {
namespace {

// An operator fuse_elementwise takes, read against its schema.
struct Member {
  Node* node = nullptr;
  ElementwiseOp op = ElementwiseOp::kAdd;
  Node* self = nullptr;
  const Argument* other = nullptr;  // binary operations: a node or a number
  std::vector<int64_t> shape;
};

std::optional<ElementwiseOp> operation_of(const c10::FunctionSchema& schema) {
  const std::string& name = schema.name();
  const std::string& overload = schema.overload_name();
  const bool tensor_or_scalar = overload == "Tensor" || overload == "Scalar";
  if (name == "aten::add" && tensor_or_scalar) return ElementwiseOp::kAdd;
  if (name == "aten::sub" && tensor_or_scalar) return ElementwiseOp::kSub;
  if (name == "aten::mul" && tensor_or_scalar) return ElementwiseOp::kMul;
  if (name == "aten::div" && tensor_or_scalar) return ElementwiseOp::kDiv;
  if (name == "aten::neg" && overload.empty()) return ElementwiseOp::kNeg;
  if (name == "aten::relu" && overload.empty()) return ElementwiseOp::kRelu;
  return std::nullopt;
}

bool is_float_dtype(const std::string& dtype) {
  return dtype == "torch.float32" || dtype == "torch.float64";
}

// A tensor operand the fast loop takes beside a result of `result`'s dtype
// and shape: same dtype and device, same shape or 0-dim.
bool takes_operand(const Node& operand, const TensorInfo& result) {
  const auto info = tensor_info(operand);
  return info && info->dtype == result.dtype && info->device == result.device &&
         (info->shape == result.shape || info->shape.empty());
}

std::optional<Member> as_member(Node& n) {
  if (n.op() != Op::kCallFunction) return std::nullopt;
  const auto call = bind_call(n);
  if (!call) return std::nullopt;
  const auto op = operation_of(*call->schema);
  if (!op) return std::nullopt;
  const auto info = tensor_info(n);
  if (!info || !is_float_dtype(info->dtype) || info->device != "cpu") return std::nullopt;
  Member m;
  m.node = &n;
  m.op = *op;
  m.shape = info->shape;
  m.self = call->node_arg("self");
  if (m.self == nullptr || !takes_operand(*m.self, *info)) return std::nullopt;
  if (!is_binary(*op)) return m;
  if (call->index_of("alpha") < call->schema->arguments().size()) {
    const auto alpha = call->number("alpha");
    if (!alpha || *alpha != 1.0) return std::nullopt;
  }
  m.other = call->arg("other");
  if (m.other == nullptr) return std::nullopt;
  if (m.other->is_node()) {
    if (!takes_operand(*m.other->to_node(), *info)) return std::nullopt;
  } else if (!m.other->is_int() && !m.other->is_double() &&
             !(m.other->is_bool() && *op != ElementwiseOp::kSub)) {  // aten refuses x - True
    return std::nullopt;
  }
  return m;
}

c10::Scalar number_of(const Argument& a) {
  if (a.is_bool()) return c10::Scalar(a.to_bool());
  if (a.is_int()) return c10::Scalar(a.to_int());
  return c10::Scalar(a.to_double());
}

struct Group {
  std::vector<Member> members;
  bool merged = false;  // into another group
};

// The group's program, and the nodes it reads, in the order of its inputs.
std::pair<ElementwiseProgram, std::vector<Node*>> program_of(const Group& g) {
  ElementwiseProgram program;
  std::vector<Node*> inputs;
  absl::flat_hash_map<const Node*, int> result_of;
  const auto operand = [&](Node* n) {
    ElementwiseOperand o;
    if (auto it = result_of.find(n); it != result_of.end()) {
      o.kind = ElementwiseOperand::Kind::kResult;
      o.index = it->second;
      return o;
    }
    auto it = std::find(inputs.begin(), inputs.end(), n);
    o.index = static_cast<int>(it - inputs.begin());
    if (it == inputs.end()) inputs.push_back(n);
    return o;
  };
  for (const Member& m : g.members) {
    ElementwiseInstruction ins;
    ins.op = m.op;
    ins.a = operand(m.self);
    if (m.other != nullptr) {
      if (m.other->is_node()) {
        ins.b = operand(m.other->to_node());
      } else {
        ins.b.kind = ElementwiseOperand::Kind::kNumber;
        ins.b.number = number_of(*m.other);
      }
    }
    result_of.emplace(m.node, static_cast<int>(program.instructions.size()));
    program.instructions.push_back(std::move(ins));
  }
  program.inputs = static_cast<int>(inputs.size());
  return {std::move(program), std::move(inputs)};
}

// Why `g` cannot be one call at its last member's place; "" when it can:
// every value its earlier members read is read later, so the graph must not
// write its storage (through a view of it, a module call that updates the
// module tensor it views, or another input the caller may have passed the
// same tensor as).
std::string why_not_fused(const StorageWrites& writes, const Group& g) {
  for (size_t i = 0; i + 1 < g.members.size(); ++i) {
    const Member& m = g.members[i];
    for (Node* read : {m.self, m.other != nullptr && m.other->is_node() ? m.other->to_node() : nullptr}) {
      if (read == nullptr) continue;
      if (const Node* writer = writes.writer(*read, {})) {
        return absl::StrCat(m.node->name(), " reads ", read->name(), ", which ", writer->name(),
                            " may write: one call at ", g.members.back().node->name(),
                            " would read it later");
      }
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<ElementwiseFusionReport> fuse_elementwise(GraphModule& gm) {
  Graph& graph = gm.graph();
  if (!has_any_tensor_meta(graph)) {
    return absl::FailedPreconditionError(
        "fuse_elementwise needs shapes and dtypes: run shape_prop first "
        "(--passes=shape_prop,fuse_elementwise) or read a torch.export program");
  }
  ElementwiseFusionReport report;
  std::vector<Group> groups;
  absl::flat_hash_map<Node*, size_t> group_of;
  for (Node* n : graph.nodes()) {
    std::optional<Member> m = as_member(*n);
    if (!m) continue;
    // The groups of operands that only this call reads, of its shape.
    std::vector<size_t> joined;
    for (Node* operand : {m->self, m->other != nullptr && m->other->is_node() ? m->other->to_node() : nullptr}) {
      if (operand == nullptr) continue;
      auto it = group_of.find(operand);
      if (it == group_of.end() || operand->users().size() != 1) continue;
      const Member& produced = groups[it->second].members.back();
      if (produced.node != operand || produced.shape != m->shape) continue;
      if (std::find(joined.begin(), joined.end(), it->second) == joined.end()) joined.push_back(it->second);
    }
    if (joined.empty()) {
      group_of.emplace(n, groups.size());
      groups.push_back(Group{{*std::move(m)}, false});
      continue;
    }
    // Several groups meet here: one, its members in graph order.
    const size_t into = joined.front();
    for (size_t j = 1; j < joined.size(); ++j) {
      Group& from = groups[joined[j]];
      for (Member& member : from.members) {
        group_of[member.node] = into;
        groups[into].members.push_back(std::move(member));
      }
      from.members.clear();
      from.merged = true;
    }
    std::vector<Member>& members = groups[into].members;
    std::stable_sort(members.begin(), members.end(),
                     [](const Member& a, const Member& b) { return a.node->comes_before(*b.node); });
    group_of[n] = into;
    members.push_back(*std::move(m));
  }

  // Last groups first: rewriting a group changes the arguments of the users
  // of its last node, which only later groups' members can be, and those
  // are done by then.
  std::vector<Group*> order;
  for (Group& g : groups) {
    if (!g.merged && g.members.size() >= 2) order.push_back(&g);
  }
  std::sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
    return b->members.back().node->comes_before(*a->members.back().node);
  });
  const StorageWrites writes(gm);
  std::vector<std::string> fused;
  for (Group* group : order) {
    Group& g = *group;
    Node* last = g.members.back().node;
    if (std::string why = why_not_fused(writes, g); !why.empty()) {
      report.left_alone.push_back(absl::StrCat(last->name(), ": ", why));
      continue;
    }
    auto [program, inputs] = program_of(g);
    std::vector<Argument> input_args;
    for (Node* input : inputs) input_args.emplace_back(input);
    InsertionGuard guard = graph.inserting_before(last);
    Node* call = graph.call_function(kElementwise, {Argument(program.to_string()),
                                                    Argument::List(std::move(input_args))});
    call->meta() = last->meta();
    last->replace_all_uses_with(call);
    std::vector<std::string> names;
    for (const Member& m : g.members) names.push_back(m.node->name());
    for (auto it = g.members.rbegin(); it != g.members.rend(); ++it) {
      if (absl::Status s = graph.erase_node(it->node); !s.ok()) return s;
    }
    report.removed += static_cast<int>(g.members.size()) - 1;
    fused.push_back(absl::StrJoin(names, " + "));
  }
  report.fused.assign(fused.rbegin(), fused.rend());  // in graph order
  std::reverse(report.left_alone.begin(), report.left_alone.end());
  if (absl::Status s = graph.lint(); !s.ok()) {
    return absl::InternalError(absl::StrCat("fuse_elementwise left the graph malformed: ", s.message()));
  }
  return report;
}

absl::Status FuseElementwise::run(GraphModule& module, PassContext& context) {
  auto report = fuse_elementwise(module);
  if (!report.ok()) return report.status();
  if (!report->left_alone.empty()) {
    context.warn(absl::StrCat("fuse_elementwise: ", report->left_alone.size(),
                              " chain(s) left unfused: ", absl::StrJoin(report->left_alone, "; ")));
  }
  return absl::OkStatus();
}

void register_fuse_elementwise(PluginRegistrar& registrar) {
  registrar.add_pass<FuseElementwise>(
      "fuse_elementwise",
      "fuses chains of elementwise operators (add, sub, mul, div, neg, relu) into one "
      "fx::elementwise call that runs them in one pass over memory; needs shape_prop first");
}

}  // namespace fx
