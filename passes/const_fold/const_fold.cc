// Copyright 2026 The FX for C++ Authors.
#include "passes/const_fold/const_fold.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/ivalue.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/well_known.h"
#include "passes/attribute_names.h"
#include "passes/support/value_writes.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/graph_module.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

constexpr absl::string_view kFoldedAttributeName = "_FX_CONST_FOLDED_ATTRS";

// What libtorch's schema says about a call_function node's operator.
struct OperatorFacts {
  bool known = false;          // a registered operator (or operator.getitem)
  bool pure = false;           // mutates nothing, draws no random numbers, no side effect
};

bool takes_generator(const c10::FunctionSchema& schema) {
  for (const c10::Argument& a : schema.arguments()) {
    if (absl::StrContains(a.type()->annotation_str(), "Generator")) return true;
  }
  return false;
}

class Facts {
 public:
  const OperatorFacts& of(const Node& n) {
    static const OperatorFacts kUnknown;
    if (n.op() != Op::kCallFunction) return kUnknown;
    auto it = cache_.find(n.target());
    if (it == cache_.end()) it = cache_.emplace(n.target(), compute(n.target())).first;
    return it->second;
  }

 private:
  static OperatorFacts compute(const std::string& target) {
    OperatorFacts f;
    if (target == kGetItemTarget) {  // an element of a tuple or list: may be a view
      f.known = f.pure = true;
      return f;
    }
    if (!absl::StrContains(target, "::")) return f;
    auto op = find_operator(target);
    if (!op.ok()) return f;
    const c10::FunctionSchema& schema = *op->schema;
    f.known = true;
    f.pure = !schema.is_mutable() && !takes_generator(schema) && !op->is_random();
    return f;
  }
  absl::flat_hash_map<std::string, OperatorFacts> cache_;
};

// The tensors something in the graph may write, by storage: those read by a
// get_attr whose value may be written, and those of every called submodule
// (a module's forward may update its buffers).
absl::flat_hash_set<const void*> written_storages(const GraphModule& gm) {
  absl::flat_hash_set<const void*> written;
  for (const Node* n : gm.graph().nodes()) {
    if (n->op() == Op::kGetAttr) {
      auto v = gm.get_attr(n->target());
      if (v.ok() && v->isTensor() && writer_of(*n, {}) != nullptr) {
        written.insert(storage_identity(v->toTensor()));
      }
    } else if (n->op() == Op::kCallModule) {
      auto m = gm.get_submodule(n->target());
      if (!m.ok()) continue;
      for (const auto& [name, tensor] : (*m)->named_tensors()) {
        written.insert(storage_identity(tensor));
      }
    }
  }
  return written;
}

}  // namespace

absl::StatusOr<ConstFoldReport> fold_constants(GraphModule& module) {
  Graph& graph = module.graph();
  Facts facts;
  const absl::flat_hash_set<const void*> written = written_storages(module);

  // The constant nodes, in graph order.
  absl::flat_hash_set<const Node*> constant;
  std::vector<Node*> folded_calls;
  absl::flat_hash_set<const void*> source_storages;
  for (Node* n : graph.nodes()) {
    if (n->op() == Op::kGetAttr) {
      auto v = module.get_attr(n->target());
      if (v.ok() && v->isTensor() && written.count(storage_identity(v->toTensor())) == 0) {
        constant.insert(n);
        source_storages.insert(storage_identity(v->toTensor()));
      }
      continue;
    }
    const OperatorFacts& f = facts.of(*n);
    if (!f.known || !f.pure || n->is_impure()) continue;
    bool inputs_constant = true;
    for (const Node* input : n->input_nodes()) inputs_constant &= constant.count(input) > 0;
    if (!inputs_constant || writer_of(*n, {}) != nullptr) continue;
    constant.insert(n);
    folded_calls.push_back(n);
  }

  // Those the rest of the graph reads, and the calls they need.
  std::vector<Node*> boundary;
  for (Node* n : folded_calls) {
    for (const Node* user : n->users()) {
      if (constant.count(user) == 0) {
        boundary.push_back(n);
        break;
      }
    }
  }
  ConstFoldReport report;
  if (boundary.empty()) return report;
  absl::flat_hash_set<const Node*> needed;
  std::vector<const Node*> stack(boundary.begin(), boundary.end());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!needed.insert(n).second) continue;
    for (const Node* input : n->input_nodes()) stack.push_back(input);
  }

  // Computed once, by the runtime, in a graph of their own.
  auto sub = std::make_unique<Graph>();
  NodeMap copies;
  for (const Node* n : graph.nodes()) {
    if (needed.count(n) == 0) continue;
    copies[n] = sub->node_copy(*n, [&](Node* input) { return copies.at(input); });
  }
  std::vector<Argument> results;
  for (const Node* n : boundary) results.emplace_back(copies.at(n));
  sub->output(Argument::Tuple(std::move(results)));
  auto constants = GraphModule::from_referenced(module, std::move(sub), "ConstantSubgraph");
  if (!constants.ok()) return constants.status();
  // Outside InferenceMode (the plan's default): the attributes are then
  // normal tensors, which later runs with autograd (shape_prop's, a user's)
  // can read beside parameters that require grad.
  PlanOptions plan_options;
  plan_options.inference_mode = false;
  auto plan = ExecutionPlan::compile(*constants, plan_options);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<c10::IValue> values;
  {
    at::NoGradGuard no_grad;
    values = (*plan)->run({});
  }
  if (!values.ok()) {
    return absl::Status(values.status().code(),
                        absl::StrCat("const_fold: computing the constant nodes failed: ",
                                     values.status().message()));
  }
  const std::vector<c10::IValue> computed = values->toTupleRef().elements().vec();

  for (size_t i = 0; i < boundary.size(); ++i) {
    Node* n = boundary[i];
    if (!computed[i].isTensor()) continue;  // sizes, numbers: left in the graph
    at::Tensor value = computed[i].toTensor().detach();
    // A view of a parameter would share its storage: the attribute gets its own.
    if (source_storages.count(storage_identity(value)) > 0) value = value.clone();
    const std::string name = unique_attribute_name(module, kFoldedAttributeName);
    if (absl::Status s = module.add_attribute(name, value); !s.ok()) return s;
    Node* attr;
    {
      InsertionGuard guard = graph.inserting_before(n);
      attr = graph.get_attr(name, n->type());
    }
    for (absl::string_view key : {kTensorMetaKey, kModulePathKey}) {
      if (const MetaValue* v = n->meta().find(key)) attr->meta().set(key, *v);
    }
    n->replace_all_uses_with(attr);
    report.attributes.push_back(name);
  }
  for (auto it = folded_calls.rbegin(); it != folded_calls.rend(); ++it) {
    if (!(*it)->users().empty()) continue;
    report.folded_nodes.push_back((*it)->name());
    if (absl::Status s = graph.erase_node(*it); !s.ok()) return s;
  }
  std::reverse(report.folded_nodes.begin(), report.folded_nodes.end());
  return report;
}

absl::Status ConstantFolding::run(GraphModule& module, PassContext& context) {
  return fold_constants(module).status();
}

void register_const_fold(PluginRegistrar& registrar) {
  registrar.add_pass<ConstantFolding>(
      "const_fold",
      "computes once the pure operator calls whose inputs are all constants and reads their "
      "results as attributes");
}

}  // namespace fx
