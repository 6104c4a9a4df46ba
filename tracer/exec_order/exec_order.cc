// Copyright 2026 The FX for C++ Authors.
#include "tracer/exec_order/exec_order.h"

#include "core/meta.h"
#include "core/well_known.h"

namespace fx {

std::vector<std::string> ExecOrderTracer::names_of(const ModuleRef& m) const {
  std::vector<std::string> names;
  for (const auto& [name, tensor] : m.named_parameters()) names.push_back(name);
  return names;
}

std::vector<ExecOrderTracer::ParamUsage>& ExecOrderTracer::usage_of(const std::string& module) {
  auto [it, inserted] = usage_.try_emplace(module);
  if (inserted) usage_order_.push_back(module);
  return it->second;
}

void ExecOrderTracer::reset_usage(const std::string& module) { usage_of(module).clear(); }

void ExecOrderTracer::add_usage(const std::string& module, ParamUsage usage) {
  usage_of(module).push_back(std::move(usage));
}

void ExecOrderTracer::visit(const std::string& param) {
  if (visited_params_.insert(param).second) param_forward_order_.push_back(param);
}

const std::vector<ExecOrderTracer::ParamUsage>& ExecOrderTracer::param_usage(
    const std::string& module) const {
  static const std::vector<ParamUsage>* const kNone = new std::vector<ParamUsage>();
  auto it = usage_.find(module);
  return it == usage_.end() ? *kNone : it->second;
}

void ExecOrderTracer::begin_trace(Tracer& tracer, const ModuleRef& root) {
  curr_module_ = "";
  curr_params_ = names_of(root);
  module_forward_order_ = {""};
  param_forward_order_.clear();
  visited_params_.clear();
  usage_.clear();
  usage_order_.clear();
  reset_usage("");
  root_params_ = absl::flat_hash_set<std::string>(curr_params_.begin(), curr_params_.end());
}

absl::StatusOr<Argument> ExecOrderTracer::call_module(Tracer& tracer, const ModuleRef& m,
                                                      const ModuleForward& forward,
                                                      const Arguments& args, const Kwargs& kwargs,
                                                      CallModuleNext next) {
  const std::string module = tracer.path_of_module(m);
  module_forward_order_.push_back(module);
  std::vector<std::string> named_params = names_of(m);
  if (!named_params.empty()) add_usage(curr_module_, {module, named_params});
  std::string prev_module = std::exchange(curr_module_, module);
  std::vector<std::string> prev_params = std::exchange(curr_params_, std::move(named_params));
  reset_usage(module);
  auto output = next(m, forward, args, kwargs);
  curr_module_ = std::move(prev_module);
  curr_params_ = std::move(prev_params);
  return output;
}

Node* ExecOrderTracer::create_proxy(Tracer& tracer, Op op, absl::string_view target,
                                    Arguments args, Kwargs kwargs, absl::string_view name,
                                    CreateProxyNext next) {
  // The seed looks at the positional args only.
  std::vector<std::string> used;
  if (op == Op::kCallFunction || op == Op::kCallMethod) {
    for (const Argument& a : args) {
      if (a.is_node() && root_params_.contains(a.to_node()->target())) {
        used.push_back(a.to_node()->target());
      }
    }
  }
  Node* node = next(op, target, std::move(args), std::move(kwargs), name);
  if (op == Op::kCallFunction || op == Op::kCallMethod) {
    for (const std::string& p : used) visit(p);
    if (!used.empty()) add_usage(curr_module_, {curr_module_, used});
  } else if (op == Op::kCallModule) {
    // A leaf module's call uses all of its parameters.
    if (!curr_params_.empty()) add_usage(curr_module_, {curr_module_, curr_params_});
    for (const std::string& p : curr_params_) visit(p);
  }
  return node;
}

absl::Status ExecOrderTracer::end_trace(Tracer& tracer, GraphModule& result) {
  auto list = [](const std::vector<std::string>& names) {
    return MetaValue::List(names.begin(), names.end());
  };
  Meta usage;
  for (const std::string& module : usage_order_) {
    MetaValue::List groups;
    for (const ParamUsage& u : usage_.at(module)) {
      groups.push_back(Meta{{"module", u.module}, {"params", list(u.params)}});
    }
    usage.set(module, std::move(groups));
  }
  result.meta().set(kExecOrderKey, Meta{{"module_forward_order", list(module_forward_order_)},
                                       {"param_forward_order", list(param_forward_order_)},
                                       {"module_param_usage", std::move(usage)}});
  return absl::OkStatus();
}

void register_exec_order(PluginRegistrar& registrar) {
  registrar.add_tracer_extension<ExecOrderTracer>(
      "exec_order",
      "records module and parameter execution order in meta['exec_order'] (FSDP's "
      "_ExecOrderTracer)");
}

}  // namespace fx
