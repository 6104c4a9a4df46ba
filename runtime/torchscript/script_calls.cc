// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_calls.h"

#include <string>
#include <utility>

#include <torch/csrc/jit/api/compilation_unit.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/well_known.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/torchscript/script_callables.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/value_conversion.h"

namespace fx {

namespace {

std::shared_ptr<const ScriptCall> function_call(torch::jit::Function* function) {
  auto call = std::make_shared<ScriptCall>();
  call->function = function;
  return call;
}

std::shared_ptr<const ScriptCall> method_call(torch::jit::Method method) {
  auto call = std::make_shared<ScriptCall>();
  call->method = std::move(method);
  return call;
}

// Whether `call`'s schema binds these arguments (after self, for a method).
bool binds(const ScriptCall& call, const std::vector<c10::IValue>& args,
           const IValueKwargs& kwargs) {
  if (call.function != nullptr) return bind_arguments(call.function->getSchema(), args, kwargs).ok();
  std::vector<c10::IValue> with_self = {call.method->owner()._ivalue()};
  with_self.insert(with_self.end(), args.begin(), args.end());
  return bind_arguments(call.method->function().getSchema(), std::move(with_self), kwargs).ok();
}

absl::StatusOr<std::shared_ptr<const ScriptCallee>> module_callee(const GraphModule& gm,
                                                                  const Node& node) {
  auto state = gm.get_submodule(node.target());
  if (!state.ok()) return node_error(node, state.status().message());
  // The module's code runs on its slots as they are now.
  auto object = torchscript_object(**state);
  if (!object.ok()) return node_error(node, object.status().message());
  auto callee = std::make_shared<ScriptCallee>();
  if (const MetaValue* named = node.meta().find(kModuleMethodKey);
      named != nullptr && named->is_string()) {
    // The method the tracer saw called (an overload of forward).
    auto method = object->find_method(named->to_string());
    if (!method) {
      return node_error(node, absl::StrCat("the submodule has no method '", named->to_string(),
                                           "' (meta _method)"));
    }
    callee->overloads.push_back(method_call(*method));
  } else if (auto forward = object->find_method("forward")) {
    callee->overloads.push_back(method_call(*forward));
  } else {
    for (const torch::jit::Method& m : object->get_methods()) {
      if (absl::StartsWith(m.name(), "forward__")) callee->overloads.push_back(method_call(m));
    }
    if (callee->overloads.empty()) return node_error(node, "the submodule has no forward method");
  }
  return callee;
}

// A leaf function the tracer recorded, or a function of the model's code by
// name; null when there is none.
std::shared_ptr<const ScriptCallee> function_callee(const GraphModule& gm, const Node& node) {
  auto callee = std::make_shared<ScriptCallee>();
  if (has_script_function(gm, node.target())) {
    for (torch::jit::Function* f : find_script_functions(gm, node.target())) {
      callee->overloads.push_back(function_call(f));
    }
  } else {
    for (torch::jit::Function* f : find_unit_functions(gm, node.target())) {
      callee->overloads.push_back(function_call(f));
    }
  }
  if (callee->overloads.empty()) return nullptr;
  return callee;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ScriptCallee>> find_script_callee(const GraphModule& gm,
                                                                       const Node& node) {
  if (node.op() == Op::kCallModule) {
    if (gm.graph_submodule(node.target()) != nullptr) return nullptr;
    return module_callee(gm, node);
  }
  if (node.op() == Op::kCallFunction) return function_callee(gm, node);
  return nullptr;
}

absl::StatusOr<std::shared_ptr<const ScriptCall>> choose_script_call(
    const Node& node, const ScriptCallee& callee, const std::vector<c10::IValue>& args,
    const IValueKwargs& kwargs) {
  if (callee.overloads.size() == 1) return callee.overloads[0];
  for (const std::shared_ptr<const ScriptCall>& call : callee.overloads) {
    if (binds(*call, args, kwargs)) return call;
  }
  return node_error(node, node.op() == Op::kCallModule
                              ? "none of the submodule's forward overloads accepts its arguments"
                              : "none of the TorchScript overloads of the function accepts its "
                                "arguments");
}

torch::jit::Kwargs coerce_to_schema(const c10::FunctionSchema& schema, size_t first,
                                    std::vector<c10::IValue>& args, const IValueKwargs& kwargs) {
  const auto& params = schema.arguments();
  auto typed = [](c10::IValue& value, const c10::Argument& param) {
    // A number for a BroadcastingList2[int] (`int[2]`: F.adaptive_avg_pool2d's
    // output_size), as TorchScript's compiler broadcasts a literal.
    if ((value.isInt() || value.isDouble()) && param.N().has_value() &&
        param.type()->kind() == c10::TypeKind::ListType) {
      const c10::TypeKind element = param.type()->expectRef<c10::ListType>().getElementType()->kind();
      if (value.isInt() && element == c10::TypeKind::IntType) {
        value = c10::IValue(std::vector<int64_t>(*param.N(), value.toInt()));
      } else if (element == c10::TypeKind::FloatType) {
        value = c10::IValue(std::vector<double>(*param.N(), value.toScalar().toDouble()));
      }
      return;
    }
    if (!value.isList() && !value.isTuple()) return;
    if (value.type()->isSubtypeOf(*param.type())) return;
    if (auto coerced = coerce_to_type(value, param.type()); coerced.ok()) value = *std::move(coerced);
  };
  for (size_t i = 0; i < args.size() && first + i < params.size(); ++i) typed(args[i], params[first + i]);
  torch::jit::Kwargs out(kwargs.begin(), kwargs.end());
  for (auto& [name, value] : out) {
    for (const c10::Argument& p : params) {
      if (p.name() == name) typed(value, p);
    }
  }
  return out;
}

absl::StatusOr<c10::IValue> call_script(const Node& node, const ScriptCallee& callee,
                                        std::vector<c10::IValue> args,
                                        const IValueKwargs& kwargs) {
  auto call = choose_script_call(node, callee, args, kwargs);
  if (!call.ok()) return call.status();
  return call_script(node, **call, std::move(args), kwargs);
}

absl::StatusOr<c10::IValue> call_script(const Node& node, const ScriptCall& call,
                                        std::vector<c10::IValue> args,
                                        const IValueKwargs& kwargs) {
  try {
    if (call.function != nullptr) {
      torch::jit::Kwargs typed = coerce_to_schema(call.function->getSchema(), 0, args, kwargs);
      return (*call.function)(std::move(args), std::move(typed));
    }
    torch::jit::Kwargs typed = coerce_to_schema(call.method->function().getSchema(), 1, args, kwargs);
    return (*call.method)(std::move(args), std::move(typed));
  } catch (const std::exception& e) {
    return node_error(node, script_error_message(e));
  }
}

}  // namespace fx
