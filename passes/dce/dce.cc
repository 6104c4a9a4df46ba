// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"

#include "runtime/graph_module.h"
#include "runtime/torchscript/script_calls.h"

namespace fx {

absl::Status DeadCodeElimination::run(GraphModule& module, PassContext& context) {
  // A module call whose code changes the module's attributes (`self.prev =
  // x`) is a side effect, kept whether its value is used or not, whoever
  // made the graph (a graph file need not mark it).
  for (Node* n : module.graph().find_nodes(Op::kCallModule)) {
    if (!n->is_impure() && module_call_changes_state(module, *n)) n->set_impure(true);
  }
  module.graph().eliminate_dead_code();
  if (submodules) return module.delete_unused_attributes();
  return absl::OkStatus();
}

void register_dce(PluginRegistrar& registrar) {
  registrar.add_pass<DeadCodeElimination>(
      "dce", "removes nodes whose values are unused and that have no side effects");
}

}  // namespace fx
