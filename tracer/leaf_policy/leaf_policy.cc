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
  if (matches(*trace_through, m)) return false;
  if (matches(*leaves, m)) return true;
  return next(m);
}

absl::Status LeafPolicy::validate_options() {
  if (trace_through->empty() && leaves->empty()) {
    return absl::InvalidArgumentError(
        "leaf_policy needs trace_through= or leaves=, e.g. leaf_policy{trace_through=ReLU}");
  }
  return absl::OkStatus();
}

void register_leaf_policy(PluginRegistrar& registrar) {
  registrar.add_tracer_extension<LeafPolicy>(
      "leaf_policy", "chooses which modules are leaves (the seed's LowerReluTracer)");
}

}  // namespace fx
