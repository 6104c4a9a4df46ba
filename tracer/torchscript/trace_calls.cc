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
#include "core/message_text.h"
#include "core/naming.h"
#include "core/well_known.h"
#include "runtime/torchscript/script_functions.h"
#include "tracer/torchscript/call_effects.h"
#include "tracer/torchscript/trace_engine.h"

namespace fx {
namespace tracer_internal {
namespace {

bool is_forward_name(absl::string_view name) {
  // DenseNet's layers are called through TorchScript's overload `forward__0`.
  return name == "forward" || absl::StartsWith(name, "forward__");
}

// The torch.fx target of a function that torch.fx records as one call, or "":
// public functions of torch.nn.functional and torch.functional (their
// __torch_function__ hands the whole call to the tracer), and the functions
// libraries wrap for torch.fx. Private helpers (`_canonical_mask`) are traced through, as
// torch.fx traces through them, except the implementations TorchScript picks
// for a boolean-dispatched function (`_max_pool2d` for F.max_pool2d), which
// torch.fx records under the public name.
std::string torch_fx_function_name(absl::string_view python_name) {
  // Functions libraries register with torch.fx.wrap when Python imports them
  // (torchvision 0.14), which torch.fx users therefore get as leaves.
  static constexpr absl::string_view kWrappedByLibraries[] = {
      "torchvision.ops.drop_block.drop_block2d",
      "torchvision.ops.drop_block.drop_block3d",
      "torchvision.ops.roi_align.roi_align",
      "torchvision.ops.roi_pool.roi_pool",
      "torchvision.ops.ps_roi_align.ps_roi_align",
      "torchvision.ops.ps_roi_pool.ps_roi_pool",
      "torchvision.ops.stochastic_depth.stochastic_depth",
      "torchvision.ops.poolers._setup_scales",
      "torchvision.ops.poolers._filter_input",
      "torchvision.ops.poolers._multiscale_roi_align",
      "torchvision.models.swin_transformer._patch_merging_pad",
      "torchvision.models.swin_transformer._get_relative_position_bias",
      "torchvision.models.swin_transformer.shifted_window_attention",
      "torchvision.models.video.mvit._unsqueeze",
      "torchvision.models.video.mvit._squeeze",
      "torchvision.models.video.mvit._add_rel_pos",
      "torchvision.models.video.mvit._add_shortcut",
  };
  for (absl::string_view wrapped : kWrappedByLibraries) {
    if (python_name == wrapped) return std::string(python_name);
  }
  for (absl::string_view module : {"torch.nn.functional.", "torch.functional."}) {
    if (!absl::StartsWith(python_name, module)) continue;
    absl::string_view name = python_name.substr(module.size());
    if (name.find('.') != absl::string_view::npos) return "";
    if (!absl::StartsWith(name, "_")) return std::string(python_name);
    static constexpr absl::string_view kBooleanDispatched[] = {
        "max_pool1d",          "max_pool2d",          "max_pool3d",
        "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
        "fractional_max_pool2d", "fractional_max_pool3d"};
    for (absl::string_view dispatched : kBooleanDispatched) {
      if (name.substr(1) == dispatched) return absl::StrCat(module, dispatched);
    }
  }
  return "";
}

// The type argument `i` of a call is recorded as: what its int stands for in
// the callee (a dtype, layout or memory format), else `declared`.
c10::TypePtr literal_type(const CallEffects& effects, size_t i, const c10::TypePtr& declared) {
  if (i < effects.literal_types.size() && effects.literal_types[i] != nullptr) {
    return effects.literal_types[i];
  }
  return declared;
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
  if (object.is_object()) {
    std::vector<TraceValue> arguments = inputs_of(n, frame);
    arguments.erase(arguments.begin());
    auto result = call_object_method(n, object, name, std::move(arguments));
    if (!result.ok()) return result.status();
    frame.values[n->output()] = std::move(*result);
    return absl::OkStatus();
  }
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
    // tracing through. Its arguments as the caller wrote them: `self.lstm(x)`,
    // not the `(x, None)` TorchScript fills in.
    auto fn = find_method(target, name);
    if (!fn.ok()) return error(n, fn.status().message());
    std::vector<Argument> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto a = to_argument(inputs[i], n->input(i + 1)->type());
      if (!a.ok()) return error(n, a.status().message());
      values.push_back(std::move(*a));
    }
    Arguments args;
    Kwargs kwargs;
    split_call_arguments((*fn)->getSchema().arguments(), 1, false, values, &args, &kwargs);
    // Tracing through, behind one pointer (no allocation for the closure).
    struct Callee {
      TraceEngine* engine;
      const ModuleInfo* module;
      const std::string* method;
      bool traced_through;
    } callee{this, target, &name, false};
    Callee* c = &callee;
    ModuleForward forward = [c](const Arguments& call_args, const Kwargs& call_kwargs) {
      c->traced_through = true;
      return c->engine->call_method(c->module, *c->method, call_args, call_kwargs);
    };
    auto called = tracer_.call_module(ModuleRef(target), forward, args, kwargs);
    if (!called.ok()) return called.status();
    if (!callee.traced_through && called->is_node() &&
        called->to_node()->op() == Op::kCallModule) {
      // A leaf: what its body does to its arguments, the graph must know.
      // (Its int arguments stay ints, even where its body uses them as
      // dtypes: the call is of a TorchScript method, which takes ints.)
      apply_call_effects(called->to_node(), values, module_call_effects(torch::jit::Module(target->object), name));
      // Reads after the call of what its code may rebind (`self.prev = x`) are
      // new get_attr nodes, after it; the call is a side effect, never dropped.
      if (forget_rebound_attributes(target, name)) called->to_node()->set_impure(true);
      note_optional(called->to_node(), n->output()->type());
      if (name != "forward") called->to_node()->meta().set(kModuleMethodKey, name);
      // TorchScript compiles the module's hooks into this caller, where they
      // are traced as its code: the node must not run them again.
      if (!target->type->getForwardHooks().empty() ||
          !target->type->getForwardPreHooks().empty()) {
        called->to_node()->meta().set(kHooksTracedKey, true);
      }
    }
    result = from_argument(*called, n->output()->type());
  }
  if (!result.ok()) return result.status();
  frame.values[n->output()] = std::move(*result);
  return absl::OkStatus();
}

std::string TraceEngine::leaf_function_target(const std::string& python_name) const {
  const TraceOptions& options = tracer_.options();
  if (std::find(options.leaf_functions.begin(), options.leaf_functions.end(), python_name) !=
      options.leaf_functions.end()) {
    return python_name;
  }
  std::string target = torch_fx_function_name(python_name);
  if (target.empty()) return "";
  for (const std::string& through : options.trace_through_functions) {
    if (python_name == through || target == through ||
        absl::StartsWith(python_name, absl::StrCat(through, "."))) {
      return "";
    }
  }
  return target;
}

absl::Status TraceEngine::run_call_function(const jit::Node* n, Frame& frame) {
  const auto fn_type = n->input(0)->type()->cast<c10::FunctionType>();
  if (!fn_type) return error(n, "call of a value that is not a function");
  jit::Function* fn = fn_type->function();
  std::vector<TraceValue> inputs = inputs_of(n, frame);
  inputs.erase(inputs.begin());
  const std::string python_name = python_qualified_name(fn->qualname().qualifiedName());
  seen_functions_.insert(python_name);
  const std::string target = leaf_function_target(python_name);
  if (target.empty()) {
    auto result = call_graph(*jit::toGraphFunction(*fn).graph(), nullptr, std::move(inputs),
                             Context{nullptr, nullptr, fn});
    if (!result.ok()) return result.status();
    frame.values[n->output()] = std::move(*result);
    return absl::OkStatus();
  }
  // A leaf function: one call_function node, run by the runtime through the
  // function's body.
  const auto& params = fn->getSchema().arguments();
  std::vector<c10::optional<c10::IValue>> known;
  for (const TraceValue& input : inputs) {
    known.push_back(input.is_known() ? c10::optional<c10::IValue>(input.known_value())
                                     : c10::nullopt);
  }
  const CallEffects& effects = function_call_effects(unit_, *fn, known);
  std::vector<Argument> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto a = to_argument(inputs[i], literal_type(effects, i, i < params.size() ? params[i].real_type()
                                                                               : nullptr));
    if (!a.ok()) return error(n, a.status().message());
    values.push_back(std::move(*a));
  }
  Arguments args;
  Kwargs kwargs;
  if (!absl::StartsWith(python_name, "torch.")) {
    // A function wrapped by the user or a library (torch.fx.wrap records the
    // call as written): as the caller most likely wrote it.
    split_call_arguments(params, 0, false, values, &args, &kwargs);
  } else {
    // torch's own functions, as their __torch_function__ hands them to
    // torch.fx: the parameters before the first one with a default
    // positionally, every other one by keyword.
    size_t positional = 0;
    while (positional < params.size() && !params[positional].default_value() &&
           !params[positional].kwarg_only()) {
      ++positional;
    }
    for (size_t i = 0; i < values.size(); ++i) {
      if (i < positional || i >= params.size()) {
        args.push_back(values[i]);
      } else {
        kwargs.emplace_back(params[i].name(), values[i]);
      }
    }
  }
  Node* node = tracer_.create_proxy(Op::kCallFunction, target, std::move(args), std::move(kwargs));
  add_script_function(gm_, target, jit::StrongFunctionPtr(unit_, fn));
  apply_call_effects(node, values, effects);
  note_optional(node, n->output()->type());
  frame.values[n->output()] = TraceValue::traced(node);
  return absl::OkStatus();
}

void TraceEngine::warn_about_unmatched_functions() {
  const std::vector<std::string> seen(seen_functions_.begin(), seen_functions_.end());
  auto check = [&](absl::string_view flag, const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      const bool matched = std::any_of(seen.begin(), seen.end(), [&](const std::string& f) {
        return f == name || torch_fx_function_name(f) == name ||
               absl::StartsWith(f, absl::StrCat(name, "."));
      });
      if (matched) continue;
      tracer_.warn(absl::StrCat(flag, ": the model calls no function ", quote_for_message(name),
                                did_you_mean(name, seen),
                                seen.empty() ? "; it calls no TorchScript function" : ""));
    }
  };
  check("--leaf-functions", tracer_.options().leaf_functions);
  check("--trace-through", tracer_.options().trace_through_functions);
}

void TraceEngine::apply_call_effects(Node* call, const std::vector<Argument>& arguments,
                                     const CallEffects& effects) {
  for (size_t i = 0; i < arguments.size() && i < effects.writes.size(); ++i) {
    if (!effects.writes[i] && !effects.aliased[i]) continue;
    for_each_node(arguments[i], [&](Node* argument) {
      if (effects.writes[i]) call->set_impure(true);
      if (effects.aliased[i]) aliases_.record_view(call, argument);
    });
  }
}

}  // namespace tracer_internal
}  // namespace fx
