// Copyright 2026 The FX for C++ Authors.
#include "tracer/leaf_policy/leaf_policy.h"

#include <algorithm>

namespace fx {
namespace {

bool matches(const std::vector<std::string>& patterns, const ModuleRef& m) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return p == m.class_name() || p == m.type_name() || p == m.qualname();
  });
}

}  // namespace

bool LeafPolicy::is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) {
  if (matches(trace_through_, m)) return false;
  if (matches(leaves_, m)) return true;
  return next(m);
}

void register_leaf_policy(PluginRegistrar& registrar) {
  registrar.add_tracer_extension(
      "leaf_policy", "chooses which modules are leaves (the seed's LowerReluTracer)",
      {{"trace_through", "modules to trace through (class, type or qualified names)", ""},
       {"leaves", "modules to call as leaves (class, type or qualified names)", ""}},
      [](const Options& options) -> absl::StatusOr<std::shared_ptr<TracerExtension>> {
        if (!options.has("trace_through") && !options.has("leaves")) {
          return absl::InvalidArgumentError(
              "leaf_policy needs trace_through= or leaves=, e.g. leaf_policy{trace_through=ReLU}");
        }
        return std::make_shared<LeafPolicy>(options.get_list("trace_through"),
                                            options.get_list("leaves"));
      });
}

}  // namespace fx
