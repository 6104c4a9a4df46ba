// Copyright 2026 The FX for C++ Authors.
//
// leaf_policy.h: choose which modules are leaves (the seed's LowerReluTracer).
//
// Option `trace_through` lists modules to trace through even though torch.fx
// would call them as leaves (`ReLU` is the seed's LowerReluTracer); option
// `leaves` lists modules to call as leaves even though they would be traced
// through (a user module with data-dependent control flow). Entries match a
// module's class name (`ReLU`), its Python type (`torch.nn.modules.activation.ReLU`)
// or its qualified name (`layer1.0.relu`).
#ifndef FX_TRACER_LEAF_POLICY_LEAF_POLICY_H_
#define FX_TRACER_LEAF_POLICY_LEAF_POLICY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/export.h"
#include "plugins/registry.h"
#include "tracer/tracer.h"

namespace fx {

class FX_API LeafPolicy : public TracerExtension, public OptionSet {
 public:
  ListOption trace_through{*this, "trace_through",
                           "modules to trace through (class, type or qualified names)"};
  ListOption leaves{*this, "leaves", "modules to call as leaves (class, type or qualified names)"};

  LeafPolicy() = default;
  LeafPolicy(std::vector<std::string> trace_through_modules, std::vector<std::string> leaf_modules) {
    trace_through = std::move(trace_through_modules);
    leaves = std::move(leaf_modules);
  }
  bool is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) override;
  // Warns about names that matched no module of the trace.
  absl::Status end_trace(Tracer& tracer, GraphModule& result) override;

 protected:
  absl::Status validate_options() override;

 private:
  absl::flat_hash_set<std::string> matched_;
  // Class, type and qualified names of the modules met, for suggestions.
  absl::flat_hash_set<std::string> seen_;
};

// Registers tracer extension "leaf_policy" (options `trace_through`, `leaves`).
FX_API void register_leaf_policy(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_TRACER_LEAF_POLICY_LEAF_POLICY_H_
