// Copyright 2026 The FX for C++ Authors.
#include "tracer/module_path/module_path.h"
#include "core/well_known.h"

#include <utility>

namespace fx {

void ModulePathTracer::begin_trace(Tracer& tracer, const ModuleRef& root) {
  current_module_qualified_name_.clear();
}

absl::StatusOr<Argument> ModulePathTracer::call_module(Tracer& tracer, const ModuleRef& m,
                                                       const ModuleForward& forward,
                                                       const Arguments& args, const Kwargs& kwargs,
                                                       CallModuleNext next) {
  std::string old_qualname =
      std::exchange(current_module_qualified_name_, tracer.path_of_module(m));
  auto result = next(m, forward, args, kwargs);
  current_module_qualified_name_ = std::move(old_qualname);
  return result;
}

Node* ModulePathTracer::create_proxy(Tracer& tracer, Op op, absl::string_view target,
                                     Arguments args, Kwargs kwargs, absl::string_view name,
                                     CreateProxyNext next) {
  Node* node = next(op, target, std::move(args), std::move(kwargs), name);
  node->meta().set(kModulePathKey, current_module_qualified_name_);
  return node;
}

void register_module_path(PluginRegistrar& registrar) {
  registrar.add_tracer_extension<ModulePathTracer>(
      "module_path",
      "records meta['module_path']: the qualified name of the module each node came from");
}

}  // namespace fx
