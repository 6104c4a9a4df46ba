// Copyright 2026 The FX for C++ Authors.
#include "passes/dce/dce.h"

#include "runtime/graph_module.h"

namespace fx {

absl::Status DeadCodeElimination::run(GraphModule& module, PassContext& context) {
  module.graph().eliminate_dead_code();
  if (remove_unused_submodules_) return module.delete_unused_attributes();
  return absl::OkStatus();
}

void register_dce(PluginRegistrar& registrar) {
  registrar.add_pass(
      "dce", "removes nodes whose values are unused and that have no side effects",
      {{"submodules",
        "also remove submodules, parameters and attributes the graph no longer uses", "false"}},
      [](const Options& options) -> absl::StatusOr<std::unique_ptr<Pass>> {
        auto submodules = options.get_bool("submodules", false);
        if (!submodules.ok()) return submodules.status();
        return std::make_unique<DeadCodeElimination>(*submodules);
      });
}

}  // namespace fx
