// Copyright 2026 The FX for C++ Authors.
#include "tracer/leaf_policy/leaf_policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace {

// The first pattern that names `m`, or nullptr.
const std::string* match(const std::vector<std::string>& patterns, const ModuleRef& m) {
  for (const std::string& p : patterns) {
    if (p == m.class_name() || p == m.type_name() || p == m.qualname()) return &p;
  }
  return nullptr;
}

}  // namespace

bool LeafPolicy::is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) {
  seen_.insert(m.class_name());
  seen_.insert(m.qualname());
  if (const std::string* p = match(*trace_through, m)) {
    matched_.insert(*p);
    return false;
  }
  if (const std::string* p = match(*leaves, m)) {
    matched_.insert(*p);
    return true;
  }
  return next(m);
}

absl::Status LeafPolicy::end_trace(Tracer& tracer, GraphModule& result) {
  std::vector<std::string> seen(seen_.begin(), seen_.end());
  std::sort(seen.begin(), seen.end());
  for (const auto* option : {&trace_through, &leaves}) {
    for (const std::string& name : **option) {
      if (matched_.contains(name)) continue;
      tracer.warn(absl::StrCat("leaf_policy{", option->name(), "=...}: no module of the model is ",
                               quote_for_message(name), did_you_mean(name, seen),
                               " (names are classes, Python types or qualified names)"));
    }
  }
  return absl::OkStatus();
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
