// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"

#include "runtime/graph_module.h"

namespace fx {

absl::Status DeadCodeElimination::run(GraphModule& module, PassContext& context) {
  module.graph().eliminate_dead_code();
  if (submodules) return module.delete_unused_attributes();
  return absl::OkStatus();
}

void register_dce(PluginRegistrar& registrar) {
  registrar.add_pass<DeadCodeElimination>(
      "dce", "removes nodes whose values are unused and that have no side effects");
}

}  // namespace fx
