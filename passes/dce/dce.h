// Copyright 2026 The FX for C++ Authors.
//
// dce.h: dead-code elimination as a pass.
//
// Removes every node whose value is unused and that has no side effect
// (Graph::eliminate_dead_code: placeholders, the output, in-place operators
// and assertions stay), unused get_attr nodes included. With option
// `submodules=true` it also drops from the module the submodules, parameters
// and attributes the graph no longer references (torch.fx's
// delete_all_unused_submodules).
#ifndef FX_PASSES_DCE_DCE_H_
#define FX_PASSES_DCE_DCE_H_

#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

class FX_API DeadCodeElimination : public Pass {
 public:
  Option<bool> submodules{
      *this, "submodules",
      "also remove submodules, parameters and attributes the graph no longer uses", false};

  DeadCodeElimination() = default;
  explicit DeadCodeElimination(bool remove_unused_submodules) {
    submodules = remove_unused_submodules;
  }
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "dce" (option `submodules`).
FX_API void register_dce(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_DCE_DCE_H_
