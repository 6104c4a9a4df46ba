// Copyright 2026 The FX for C++ Authors.
//
// module_path.h: the seeds' ModulePathTracer as a tracer extension.
//
// Every node recorded through create_proxy (placeholders, get_attr,
// call_function, leaf call_module: all but the output, as in the seed) gets
// `meta["module_path"]`: the qualified name of the module whose forward was
// being traced when it was recorded ("" for the root, "layer1.0" for an
// addition inside layer1.0's forward, "layer1.0.conv1" for that leaf's call).
#ifndef FX_TRACER_MODULE_PATH_MODULE_PATH_H_
#define FX_TRACER_MODULE_PATH_MODULE_PATH_H_

#include <string>

#include "core/export.h"
#include "plugins/registry.h"
#include "tracer/tracer.h"

namespace fx {

class FX_API ModulePathTracer : public TracerExtension {
 public:
  void begin_trace(Tracer& tracer, const ModuleRef& root) override;
  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override;
  Node* create_proxy(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                     Kwargs kwargs, absl::string_view name, CreateProxyNext next) override;

 private:
  std::string current_module_qualified_name_;
};

// Registers tracer extension "module_path".
FX_API void register_module_path(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_TRACER_MODULE_PATH_MODULE_PATH_H_
