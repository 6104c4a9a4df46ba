// Copyright 2026 The FX for C++ Authors.
#include "distributed/stage_program.h"

#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"
#include "core/node.h"
#include "core/well_known.h"

namespace fx {
namespace {

constexpr char kNotSplit[] =
    "; a pipeline runs a module the split pass made: add split{stages=N} or "
    "split{points=...} to --passes";

// The stage of the top graph's inputs, and of its get_attr nodes (module
// state, which every rank holds: each stage reads it itself, none sends it).
constexpr int kInputs = -1;
constexpr int kState = -2;

// The stage of each node of the top graph: kInputs for placeholders, kState
// for get_attrs, the stage of the submodule a call_module calls, the stage
// of what a getitem unpacks; the output is not in the map.
absl::StatusOr<absl::flat_hash_map<const Node*, int>> stages_of(const GraphModule& top,
                                                                int* count) {
  absl::flat_hash_map<std::string, int> stage_of_submodule;
  for (const auto& [name, module] : top.graph_submodules()) {
    const int index = static_cast<int>(stage_of_submodule.size());
    stage_of_submodule[name] = index;
  }
  absl::flat_hash_map<const Node*, int> stage;
  int calls = 0;
  for (const Node* n : top.graph().nodes()) {
    if (n->op() == Op::kPlaceholder) {
      stage[n] = kInputs;
    } else if (n->op() == Op::kGetAttr) {
      stage[n] = kState;
    } else if (n->op() == Op::kCallModule && stage_of_submodule.contains(n->target())) {
      stage[n] = stage_of_submodule.at(n->target());
      if (stage[n] != calls) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the split module calls ", n->target(), " as its stage ", calls,
            "; a pipeline runs the stages in the order of their submodules (submod_0, submod_1, ...)"));
      }
      ++calls;
    } else if (n->op() == Op::kCallFunction && n->target() == "operator.getitem" &&
               !n->args().empty() && n->args()[0].is_node() &&
               stage.contains(n->args()[0].to_node()) && stage.at(n->args()[0].to_node()) >= 0) {
      stage[n] = stage.at(n->args()[0].to_node());
    } else if (n->op() != Op::kOutput) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the top graph's node ", n->name(), " (", op_name(n->op()), " ", n->target(),
          ") belongs to no stage",
          top.graph_submodules().empty()
              ? kNotSplit
              : "; a pipeline runs only the stages' submodules and the getitems unpacking them "
                "(a pass after split added it: run that pass before split)"));
    }
  }
  if (calls == 0) return absl::InvalidArgumentError(absl::StrCat("the graph calls no stage", kNotSplit));
  *count = calls;
  return stage;
}

}  // namespace

absl::StatusOr<int> count_stages(const GraphModule& split_module) {
  int count = 0;
  auto stages = stages_of(split_module, &count);
  if (!stages.ok()) return stages.status();
  return count;
}

absl::StatusOr<StageProgram> stage_program(const GraphModule& split_module, int stage) {
  int count = 0;
  auto stage_of = stages_of(split_module, &count);
  if (!stage_of.ok()) return stage_of.status();
  if (stage < 0 || stage >= count) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", stage, " of a module split into ",
                                                   count, " stages"));
  }
  const Graph& top = split_module.graph();
  const Node* output = top.output_node();
  // Values live at the cut after stage `cut`: defined at or before it, read
  // after it (the output reads after every stage).
  auto live_after = [&](int cut) {
    std::vector<Node*> live;
    for (Node* n : top.nodes()) {
      if (n->op() == Op::kOutput || stage_of->at(n) > cut || stage_of->at(n) == kState) continue;
      for (const Node* user : n->users()) {
        if (user == output || stage_of->at(user) > cut) {
          live.push_back(n);
          break;
        }
      }
    }
    return live;
  };
  std::vector<Node*> inputs = stage == 0 ? top.placeholders() : live_after(stage - 1);

  auto graph = std::make_unique<Graph>();
  NodeMap copied;
  StageProgram program{stage, count, {}, {}, GraphModule(empty_module("Stage"), std::make_unique<Graph>())};
  const NodeMapFn map = [&](Node* n) -> Argument {
    auto it = copied.find(n);
    return it == copied.end() ? Argument() : Argument(it->second);
  };
  for (Node* n : inputs) {
    // Stage 0 takes forward's inputs as forward does (defaults, types kept).
    copied[n] = n->op() == Op::kPlaceholder ? graph->node_copy(*n, map) : graph->placeholder(n->name(), n->type());
    program.input_names.push_back(n->name());
  }
  // The state this stage reads (or, for the last, the output does).
  for (Node* n : top.nodes()) {
    if (n->op() != Op::kGetAttr) continue;
    for (const Node* user : n->users()) {
      if ((user == output && program.is_last()) || (user != output && stage_of->at(user) == stage)) {
        copied[n] = graph->node_copy(*n, map);
        break;
      }
    }
  }
  std::string submodule;
  for (Node* n : top.nodes()) {
    if (n->op() == Op::kOutput || stage_of->at(n) != stage) continue;
    for (const Node* input : n->input_nodes()) {
      if (!copied.contains(input)) {
        return absl::InternalError(absl::StrCat("stage ", stage, "'s node ", n->name(),
                                                " reads ", input->name(),
                                                ", which is not live at its cut"));
      }
    }
    copied[n] = graph->node_copy(*n, map);
    if (n->op() == Op::kCallModule) submodule = n->target();
  }
  if (program.is_last()) {
    graph->output(map_arg(output->args()[0], map), output->type());
  } else {
    std::vector<Argument> outputs;
    for (Node* n : live_after(stage)) {
      outputs.emplace_back(copied.at(n));
      program.output_names.push_back(n->name());
    }
    graph->output(Argument::Tuple(std::move(outputs)));
  }
  std::shared_ptr<GraphModule> stage_module;
  for (const auto& [name, module] : split_module.graph_submodules()) {
    if (name == submodule) stage_module = module;
  }
  auto module = GraphModule::from_referenced(split_module, std::move(graph),
                                             absl::StrCat("Stage", stage),
                                             {{submodule, stage_module}});
  if (!module.ok()) return module.status();
  program.module = *std::move(module);
  return program;
}

std::string cut_fingerprint(const GraphModule& split_module) {
  std::string text;
  for (const auto& [name, module] : split_module.graph_submodules()) {
    absl::StrAppend(&text, name, ":");
    for (const Node* n : module->graph().nodes()) absl::StrAppend(&text, " ", n->name());
    absl::StrAppend(&text, "\n");
  }
  return text;
}

}  // namespace fx
