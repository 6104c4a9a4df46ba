// Copyright 2026 The FX for C++ Authors.
//
// exec_order.h: FSDP's execution-order tracer (seed 001, `_ExecOrderTracer`).
//
// Records, with the seed's semantics, in the graph's meta["exec_order"]:
//   module_forward_order  the qualified names of the modules in the order their
//                         forward is called, one entry per call, the root ("")
//                         first (leaves and traced-through modules alike);
//   param_forward_order   the parameters (qualified names) in the order of their
//                         first use: by an operation reading them, or by the
//                         call of the leaf module that owns them;
//   module_param_usage    for each module, the groups of parameters used
//                         together while its forward ran, in order: each group
//                         {"module": <who used them>, "params": [names]} is
//                         either this module using some of its own parameters in
//                         an operation, or a submodule call with all of that
//                         submodule's parameters. A module's list restarts at
//                         each of its calls, as in the seed.
#ifndef FX_TRACER_EXEC_ORDER_EXEC_ORDER_H_
#define FX_TRACER_EXEC_ORDER_EXEC_ORDER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/export.h"
#include "plugins/registry.h"
#include "tracer/tracer.h"

namespace fx {

class FX_API ExecOrderTracer : public TracerExtension {
 public:
  struct ParamUsage {
    std::string module;
    std::vector<std::string> params;
  };

  void begin_trace(Tracer& tracer, const ModuleRef& root) override;
  absl::Status end_trace(Tracer& tracer, GraphModule& result) override;
  absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                       const ModuleForward& forward, const Arguments& args,
                                       const Kwargs& kwargs, CallModuleNext next) override;
  Node* create_proxy(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                     Kwargs kwargs, absl::string_view name, CreateProxyNext next) override;

  const std::vector<std::string>& module_forward_order() const { return module_forward_order_; }
  const std::vector<std::string>& param_forward_order() const { return param_forward_order_; }
  // Modules in the order their usage lists were first created.
  const std::vector<std::string>& modules_with_usage() const { return usage_order_; }
  const std::vector<ParamUsage>& param_usage(const std::string& module) const;

 private:
  std::vector<std::string> names_of(const ModuleRef& m) const;
  // The usage list of `module`, created (and ordered) on first use.
  std::vector<ParamUsage>& usage_of(const std::string& module);
  void reset_usage(const std::string& module);
  void add_usage(const std::string& module, ParamUsage usage);
  void visit(const std::string& param);

  std::string curr_module_;
  // The current module's parameters (qualified), for leaf call_module nodes.
  std::vector<std::string> curr_params_;
  std::vector<std::string> module_forward_order_;
  std::vector<std::string> param_forward_order_;
  absl::flat_hash_set<std::string> visited_params_;
  absl::flat_hash_set<std::string> root_params_;
  absl::flat_hash_map<std::string, std::vector<ParamUsage>> usage_;
  std::vector<std::string> usage_order_;
};

// Registers tracer extension "exec_order".
FX_API void register_exec_order(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_TRACER_EXEC_ORDER_EXEC_ORDER_H_
