// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_calls.h"

#include <utility>

#include "runtime/interpreter/node_calls.h"
#include "runtime/value_conversion.h"

namespace fx {

absl::StatusOr<torch::jit::Function*> choose_function(
    const Node& node, const std::vector<torch::jit::Function*>& overloads,
    const std::vector<c10::IValue>& args, const IValueKwargs& kwargs) {
  for (torch::jit::Function* fn : overloads) {
    if (bind_arguments(fn->getSchema(), args, kwargs).ok()) return fn;
  }
  return node_error(node, "none of the TorchScript overloads of the function accepts its arguments");
}

absl::StatusOr<torch::jit::Method> choose_method(const Node& node,
                                                 const std::vector<torch::jit::Method>& overloads,
                                                 const std::vector<c10::IValue>& args,
                                                 const IValueKwargs& kwargs) {
  // Self comes first in a method's schema.
  for (const torch::jit::Method& m : overloads) {
    std::vector<c10::IValue> with_self = {m.owner()._ivalue()};
    with_self.insert(with_self.end(), args.begin(), args.end());
    if (bind_arguments(m.function().getSchema(), std::move(with_self), kwargs).ok()) return m;
  }
  return node_error(node, "none of the submodule's forward overloads accepts its arguments");
}

torch::jit::Kwargs coerce_to_schema(const c10::FunctionSchema& schema, size_t first,
                                    std::vector<c10::IValue>& args, const IValueKwargs& kwargs) {
  const auto& params = schema.arguments();
  auto typed = [](c10::IValue& value, const c10::Argument& param) {
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

absl::StatusOr<c10::IValue> call_function_body(const Node& node, torch::jit::Function& function,
                                               std::vector<c10::IValue> args,
                                               const IValueKwargs& kwargs) {
  try {
    torch::jit::Kwargs typed_kwargs = coerce_to_schema(function.getSchema(), 0, args, kwargs);
    return function(std::move(args), std::move(typed_kwargs));
  } catch (const std::exception& e) {
    return node_error(node, script_error_message(e));
  }
}

absl::StatusOr<c10::IValue> call_method_body(const Node& node, const torch::jit::Method& method,
                                             std::vector<c10::IValue> args,
                                             const IValueKwargs& kwargs) {
  try {
    torch::jit::Kwargs typed_kwargs = coerce_to_schema(method.function().getSchema(), 1, args, kwargs);
    return method(std::move(args), std::move(typed_kwargs));
  } catch (const std::exception& e) {
    return node_error(node, script_error_message(e));
  }
}

}  // namespace fx
