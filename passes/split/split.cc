// Copyright 2026 The FX for C++ Authors.
//
// split_module: a graph and a stage per node become a top graph calling one
// GraphModule per stage. Where the cuts go is in cut_points.cc.
#include "passes/split/split.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "passes/split/cut_points.h"
#include "runtime/torchscript/script_calls.h"

namespace fx {
namespace {

// Values in graph order, each once.
class OrderedValues {
 public:
  void add(const Node* v) {
    if (seen_.insert(v).second) values_.push_back(v);
  }
  std::vector<const Node*> in_graph_order(const absl::flat_hash_map<const Node*, size_t>& index) {
    std::sort(values_.begin(), values_.end(),
              [&](const Node* a, const Node* b) { return index.at(a) < index.at(b); });
    return values_;
  }

 private:
  absl::flat_hash_set<const Node*> seen_;
  std::vector<const Node*> values_;
};

// The meta a value keeps where it becomes a placeholder or a getitem: what
// describes the value, not how it was computed.
void copy_value_meta(const Node& from, Node& to) {
  if (const MetaValue* m = from.meta().find(kTensorMetaKey)) to.meta().set(kTensorMetaKey, *m);
  if (from.op() == Op::kPlaceholder) {
    if (const MetaValue* t = from.meta().find(kTorchScriptTypeKey)) {
      to.meta().set(kTorchScriptTypeKey, *t);
    }
  }
}

}  // namespace

bool is_staged_node(const Node& n) {
  return n.op() != Op::kPlaceholder && n.op() != Op::kGetAttr && n.op() != Op::kOutput;
}

absl::StatusOr<GraphModule> split_module(const GraphModule& gm, const StageAssignment& stage_of) {
  const Graph& graph = gm.graph();
  std::vector<const Node*> order;
  absl::flat_hash_map<const Node*, size_t> index;
  for (const Node* n : graph.nodes()) {
    index[n] = order.size();
    order.push_back(n);
  }
  if (stage_of.size() != order.size()) {
    return absl::InvalidArgumentError(absl::StrCat("split: ", stage_of.size(),
                                                   " stage numbers for ", order.size(), " nodes"));
  }
  // Stages are consecutive runs in graph order, numbered from 0.
  int stages = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!is_staged_node(*order[i])) continue;
    const int s = stage_of[i];
    if (s != stages - 1 && s != stages) {
      return absl::InvalidArgumentError(absl::StrCat(
          "split: node '", order[i]->name(), "' is put in stage ", s, " after a node of stage ",
          stages - 1, "; stages must be consecutive runs of nodes in graph order"));
    }
    stages = std::max(stages, s + 1);
  }
  if (stages == 0) return absl::InvalidArgumentError("split: the graph has no node to put in a stage");
  // Stages read the module's state where they stand, once each; a value a
  // module's code rebinds at each call would be read at the wrong place (the
  // top graph reads the output's attributes before any stage runs) or from
  // a stage's copy of the state.
  for (const Node* n : order) {
    if (n->op() == Op::kGetAttr && code_may_assign(gm.root(), n->target())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "split: node '", n->name(), "' reads attribute '", n->target(),
          "', which the code of a module the graph calls assigns anew at each call; stages "
          "cannot read it where the graph does. Return it from that module's forward instead, "
          "or run the graph whole"));
    }
  }
  auto stage_of_node = [&](const Node* n) { return stage_of[index.at(n)]; };

  // What each stage reads from outside itself, and what it must give out.
  std::vector<OrderedValues> inputs(stages), outputs(stages);
  std::vector<absl::flat_hash_set<const Node*>> attrs(stages);
  std::vector<const Node*> top_attrs;
  for (const Node* n : order) {
    if (!is_staged_node(*n)) continue;
    const int s = stage_of_node(n);
    for (const Node* v : n->input_nodes()) {
      if (v->op() == Op::kGetAttr) {
        attrs[s].insert(v);
      } else if (v->op() == Op::kPlaceholder) {
        inputs[s].add(v);
      } else if (const int from = stage_of_node(v); from != s) {
        inputs[s].add(v);
        outputs[from].add(v);
      }
    }
  }
  const Node* output = graph.output_node();
  if (output != nullptr) {
    for (const Node* v : output->input_nodes()) {
      if (v->op() == Op::kGetAttr) {
        top_attrs.push_back(v);
      } else if (is_staged_node(*v)) {
        outputs[stage_of_node(v)].add(v);
      }
    }
  }

  // The stages.
  std::vector<std::pair<std::string, std::shared_ptr<GraphModule>>> submodules;
  std::vector<std::vector<const Node*>> stage_inputs(stages), stage_outputs(stages);
  for (int s = 0; s < stages; ++s) {
    stage_inputs[s] = inputs[s].in_graph_order(index);
    stage_outputs[s] = outputs[s].in_graph_order(index);
    auto g = std::make_unique<Graph>();
    absl::flat_hash_map<const Node*, Node*> map;
    for (const Node* v : stage_inputs[s]) {
      Node* p = g->placeholder(v->name(), v->type());
      copy_value_meta(*v, *p);
      map[v] = p;
    }
    auto mapped = [&](Node* n) { return Argument(map.at(n)); };
    for (const Node* n : order) {
      if ((n->op() == Op::kGetAttr && attrs[s].contains(n)) ||
          (is_staged_node(*n) && stage_of_node(n) == s)) {
        map[n] = g->node_copy(*n, mapped);
      }
    }
    std::vector<Argument> results;
    for (const Node* v : stage_outputs[s]) results.emplace_back(map.at(v));
    if (results.size() == 1) {
      g->output(results[0], stage_outputs[s][0]->type());
    } else {
      g->output(results.empty() ? Argument() : Argument::Tuple(std::move(results)));
    }
    const std::string name = absl::StrCat("submod_", s);
    auto stage = GraphModule::from_referenced(gm, std::move(g), name);
    if (!stage.ok()) return stage.status();
    submodules.emplace_back(name, std::make_shared<GraphModule>(*std::move(stage)));
  }

  // The top graph: the inputs, a call per stage, the output.
  auto top = std::make_unique<Graph>();
  top->meta() = graph.meta();
  absl::flat_hash_map<const Node*, Node*> env;
  auto from_env = [&](Node* n) { return Argument(env.at(n)); };
  for (const Node* n : order) {
    if (n->op() == Op::kPlaceholder) env[n] = top->node_copy(*n, from_env);
  }
  for (const Node* a : top_attrs) {
    if (!env.contains(a)) env[a] = top->node_copy(*a, from_env);
  }
  for (int s = 0; s < stages; ++s) {
    std::vector<Argument> args;
    for (const Node* v : stage_inputs[s]) args.emplace_back(env.at(v));
    Node* call = top->call_module(submodules[s].first, std::move(args));
    const std::vector<const Node*>& outs = stage_outputs[s];
    if (outs.size() == 1) {
      call->set_type(outs[0]->type());
      copy_value_meta(*outs[0], *call);
      env[outs[0]] = call;
      continue;
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      Node* item = top->create_node(Op::kCallFunction, kGetItemTarget,
                                    {Argument(call), Argument(static_cast<int64_t>(j))}, {},
                                    outs[j]->name(), outs[j]->type());
      copy_value_meta(*outs[j], *item);
      env[outs[j]] = item;
    }
  }
  if (output != nullptr) top->node_copy(*output, from_env);
  return GraphModule::from_referenced(gm, std::move(top), gm.class_name(), std::move(submodules));
}

absl::StatusOr<SplitReport> split_into_stages(GraphModule& gm, const SplitOptions& options) {
  auto cut = choose_stages(gm, options);
  if (!cut.ok()) return cut.status();
  auto split = split_module(gm, cut->stage_of);
  if (!split.ok()) return split.status();
  SplitReport& report = cut->report;
  Meta record;
  record.set("stages", report.stages);
  record.set("cost", report.cost);
  MetaValue::List costs, crossing;
  for (double c : report.stage_costs) costs.emplace_back(c);
  for (double c : report.crossing) crossing.emplace_back(c);
  record.set("stage_costs", std::move(costs));
  record.set("crossing", std::move(crossing));
  record.set("crossing_unit", report.crossing_unit);
  split->meta().set("split", std::move(record));
  gm = *std::move(split);
  return report;
}

absl::Status Split::run(GraphModule& module, PassContext& context) {
  SplitOptions options;
  options.points = points.value();
  options.stages = stages;
  options.cost = cost.value() == "time" ? SplitCost::kTime : SplitCost::kParams;
  options.slack = slack;
  if (options.stages > 0 || !options.points.empty()) {
    options.example_inputs = context.example_inputs();
  }
  auto report = split_into_stages(module, options);
  return report.status();
}

void register_split(PluginRegistrar& registrar) {
  registrar.add_pass<Split>(
      "split",
      "cuts the graph into pipeline stages (torch.fx's split_module): a top graph calling "
      "submod_0..submod_{N-1}");
}

}  // namespace fx
