// Copyright 2026 The FX for C++ Authors.
//
// Tracing a TorchScript module (Tracer::trace of a torch::jit::Module) and a
// submodule's TorchScript forward into a graph (Tracer::trace_into): the
// entry points of the TorchScript side of fx::Tracer, which set up the
// GraphModule and its placeholders and run the engine (trace_engine.h) on
// the module's code. The hook chains they call are tracer/tracer.cc's.
#include <torch/csrc/jit/api/module.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "runtime/graph_module.h"
#include "runtime/torchscript/script_functions.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/value_conversion.h"
#include "tracer/module_info.h"
#include "tracer/module_ref.h"
#include "tracer/torchscript/trace_engine.h"
#include "tracer/torchscript/trace_value.h"
#include "tracer/tracer.h"

namespace fx {

namespace jit = torch::jit;
using tracer_internal::annotation_for;
using tracer_internal::TraceEngine;
using tracer_internal::TraceValue;

absl::StatusOr<GraphModule> Tracer::trace(const torch::jit::Module& root) {
  torch::jit::Module module = root;
  if (module.is_training() != options_.training) module.train(options_.training);
  jit::Function* fn = module._ivalue()->type()->findMethod(options_.method);
  if (fn == nullptr) {
    return absl::NotFoundError(absl::StrCat("the module (", python_type_name(*module.type()),
                                            ") has no method '", options_.method, "' to trace"));
  }
  // The GraphModule holds the module's state as its own module tree; the
  // trace walks the TorchScript objects, whose tensors the tree shares.
  absl::StatusOr<std::shared_ptr<Module>> state = module_from_torchscript(module);
  if (!state.ok()) return state.status();
  GraphModule gm(*std::move(state), std::make_unique<Graph>());
  set_script_unit(gm, module._ivalue()->compilation_unit());
  current_ = &gm;
  absl::Cleanup done = [this] { current_ = nullptr; };
  TraceEngine engine(*this, gm);
  const ModuleInfo* root_info = engine.root_info(module, "", gm.root());
  for (auto& ext : extensions_) ext->begin_trace(*this, ModuleRef(root_info));

  // forward's arguments (after self) become placeholders.
  const c10::FunctionSchema& schema = fn->getSchema();
  std::vector<std::string> names;
  for (size_t i = 1; i < schema.arguments().size(); ++i) names.push_back(schema.arguments()[i].name());
  for (const auto& [name, value] : options_.concrete_args) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concrete_args names ", quote_for_message(name), ", which ", options_.method,
          " does not take", did_you_mean(name, names), "; its arguments: ",
          absl::StrJoin(names, ", ")));
    }
  }
  std::vector<TraceValue> inputs;
  for (size_t i = 1; i < schema.arguments().size(); ++i) {
    const c10::Argument& a = schema.arguments()[i];
    const Argument* concrete = nullptr;
    for (const auto& [name, value] : options_.concrete_args) {
      if (name == a.name()) concrete = &value;
    }
    Arguments default_value;
    if (concrete != nullptr) {
      default_value.push_back(*concrete);
    } else if (a.default_value()) {
      auto d = ivalue_to_argument(*a.default_value(), a.real_type());
      if (d.ok()) default_value.push_back(std::move(*d));
    }
    Node* p = create_proxy(Op::kPlaceholder, a.name(), std::move(default_value), {});
    const std::string annotation = annotation_for(a.type());
    if (!annotation.empty()) p->set_type(annotation);
    p->meta().set(kTorchScriptTypeKey, a.type()->annotation_str());
    if (concrete == nullptr) {
      inputs.push_back(TraceValue::traced(p));
      continue;
    }
    // torch.fx's concrete_args: the value decides the trace, and the graph
    // checks at run time that the argument still has it. A Tensor argument
    // cannot be fixed to a Python value (libtorch would make a tensor of it).
    c10::TypePtr fixed_type = a.type();
    if (auto optional = fixed_type->cast<c10::OptionalType>()) fixed_type = optional->getElementType();
    if (fixed_type->kind() == c10::TypeKind::TensorType && !concrete->is_none()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concrete_args: argument '", a.name(), "' of ", options_.method, " is a ",
          a.type()->annotation_str(), ", which concrete_args cannot fix to ", python_repr(*concrete),
          " (they fix arguments of type bool, int, float, str or None)"));
    }
    auto known = argument_to_ivalue(*concrete, a.type());
    if (!known.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("concrete_args: ", python_repr(*concrete), " does not fit argument '",
                       a.name(), "' of type ", a.type()->annotation_str(), ": ",
                       known.status().message()));
    }
    const std::string message = absl::StrCat(a.name(), " has been specialized to have value ",
                                             python_repr(*concrete), " but got another value");
    if (concrete->is_none()) {
      create_proxy(Op::kCallFunction, kAssertIsNoneTarget, {p, message}, {});
    } else {
      Node* eq = create_proxy(Op::kCallFunction, "operator.eq", {p, *concrete}, {});
      create_proxy(Op::kCallFunction, kAssertTarget, {eq, message}, {});
    }
    inputs.push_back(TraceValue::known(std::move(*known)));
  }
  auto result = engine.call_method(root_info, options_.method, std::move(inputs));
  engine.warn_about_unmatched_functions();
  if (!result.ok()) return result.status();
  auto output = engine.to_argument(*result, schema.returns()[0].type());
  if (!output.ok()) return output.status();
  create_node(Op::kOutput, "output", {std::move(*output)}, {});
  if (absl::Status s = engine.check_fixed_reads_of_rebound_attributes(gm.graph()); !s.ok()) {
    return s;
  }
  record_trace_options(options_, gm);
  for (auto& ext : extensions_) {
    if (absl::Status s = ext->end_trace(*this, gm); !s.ok()) return s;
  }
  return gm;
}

absl::StatusOr<Argument> Tracer::trace_into(GraphModule& gm, absl::string_view module_path,
                                            const Arguments& args, const Kwargs& kwargs) {
  auto sub = gm.get_submodule(module_path);
  if (!sub.ok()) return sub.status();
  const std::string shown = module_path.empty() ? std::string("the root module")
                                                : absl::StrCat("module '", module_path, "'");
  if (torchscript_class(**sub) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        shown, " (", (*sub)->type_name(), ") has no TorchScript code (it was not read from a "
        "TorchScript file), so its forward cannot be traced"));
  }
  // The body is TorchScript code: it runs on an object of the module's class
  // holding the module's slots as they are now.
  auto object = torchscript_object(**sub);
  if (!object.ok()) {
    return absl::Status(object.status().code(),
                        absl::StrCat("cannot trace ", shown, ": ", object.status().message()));
  }
  absl::Cleanup restore = [this, saved = current_] { current_ = saved; };
  current_ = &gm;
  TraceEngine engine(*this, gm);
  const ModuleInfo* info = engine.root_info(*object, std::string(module_path), **sub);
  // The caller's values: the caller may read them again after this body, so
  // in-place operations on them stay in place.
  for_each_node(args, [&](Node* n) { engine.aliases().mark_external(n); });
  for_each_node(kwargs, [&](Node* n) { engine.aliases().mark_external(n); });
  return engine.call_method(info, "forward", args, kwargs);
}

}  // namespace fx
