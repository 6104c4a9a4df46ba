// Copyright 2026 The FX for C++ Authors.
//
// Calls: a submodule's forward goes through the call_module hook (a
// call_module node for leaves, traced through otherwise); other methods and
// TorchScript functions are traced through, except leaf functions, which
// become one call_function node.
#include <torch/csrc/jit/api/function_impl.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tracer/trace_engine.h"

namespace fx {
namespace tracer_internal {
namespace {

bool is_forward_name(absl::string_view name) {
  // DenseNet's layers are called through TorchScript's overload `forward__0`.
  return name == "forward" || absl::StartsWith(name, "forward__");
}

}  // namespace

absl::StatusOr<jit::Function*> TraceEngine::find_method(const ModuleInfo* self,
                                                       const std::string& method) const {
  jit::Function* fn = self->type->findMethod(method);
  if (fn == nullptr) {
    return absl::NotFoundError(absl::StrCat("module '", self->qualname, "' (",
                                            self->cls->type_name, ") has no method '", method, "'"));
  }
  return fn;
}

absl::Status TraceEngine::run_call_method(const jit::Node* n, Frame& frame) {
  Resolved& resolved = resolved_[n];
  if (resolved.name == nullptr) resolved.name = &n->s(c10::attr::name);
  const std::string& name = *resolved.name;
  const TraceValue& object = lookup(frame, n->input(0));
  if (!object.is_module()) {
    return error(n, absl::StrCat("method '", name, "' is called on a value that is not a module"));
  }
  const ModuleInfo* target = object.module_info();
  std::vector<TraceValue> inputs = inputs_of(n, frame);
  inputs.erase(inputs.begin());

  absl::StatusOr<TraceValue> result;
  if (!is_forward_name(name) || target == frame.self) {
    // Another method of a module (ResNet's `_forward_impl`): traced through.
    result = call_method(target, name, std::move(inputs));
  } else {
    // A submodule call: the call_module hook decides between a node and
    // tracing through.
    Arguments args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto a = to_argument(inputs[i], n->input(i + 1)->type());
      if (!a.ok()) return error(n, a.status().message());
      args.push_back(std::move(*a));
    }
    // Tracing through, behind one pointer (no allocation for the closure).
    struct Callee {
      TraceEngine* engine;
      const ModuleInfo* module;
      const std::string* method;
    } callee{this, target, &name};
    const Callee* c = &callee;
    ModuleForward forward = [c](const Arguments& call_args, const Kwargs& call_kwargs) {
      return c->engine->call_method(c->module, *c->method, call_args, call_kwargs);
    };
    auto called = tracer_.call_module(ModuleRef(target), forward, args, {});
    if (!called.ok()) return called.status();
    result = from_argument(*called, n->output()->type());
  }
  if (!result.ok()) return result.status();
  frame.values[n->output()] = std::move(*result);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_call_function(const jit::Node* n, Frame& frame) {
  const auto fn_type = n->input(0)->type()->cast<c10::FunctionType>();
  if (!fn_type) return error(n, "call of a value that is not a function");
  jit::Function* fn = fn_type->function();
  std::vector<TraceValue> inputs = inputs_of(n, frame);
  inputs.erase(inputs.begin());
  const auto& leaves = tracer_.options().leaf_functions;
  if (!leaves.empty()) {
    const std::string python_name = python_qualified_name(fn->qualname().qualifiedName());
    if (std::find(leaves.begin(), leaves.end(), python_name) != leaves.end()) {
      // A leaf function (torch.fx's wrap): one node, run by the interpreter.
      const auto& params = fn->getSchema().arguments();
      Arguments args;
      for (size_t i = 0; i < inputs.size(); ++i) {
        auto a = to_argument(inputs[i], i < params.size() ? params[i].real_type() : nullptr);
        if (!a.ok()) return error(n, a.status().message());
        args.push_back(std::move(*a));
      }
      Node* node = tracer_.create_proxy(Op::kCallFunction, python_name, std::move(args), {});
      frame.values[n->output()] = TraceValue::traced(node);
      return absl::OkStatus();
    }
  }
  auto result = call_graph(*jit::toGraphFunction(*fn).graph(), nullptr, std::move(inputs),
                           Context{nullptr, nullptr, fn});
  if (!result.ok()) return result.status();
  frame.values[n->output()] = std::move(*result);
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
