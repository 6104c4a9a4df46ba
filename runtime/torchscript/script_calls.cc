// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_calls.h"

#include <algorithm>
#include <string>
#include <utility>

#include <torch/csrc/jit/api/compilation_unit.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/naming.h"
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

std::shared_ptr<const ScriptCall> method_call(torch::jit::Method method,
                                              std::shared_ptr<const CodeWrites> code_writes) {
  auto call = std::make_shared<ScriptCall>();
  call->method = std::move(method);
  call->code_writes = std::move(code_writes);
  return call;
}

// What `method` of `module` may change, by the modules that hold it; null
// when nothing.
std::shared_ptr<const CodeWrites> code_writes_of(const std::shared_ptr<const Module>& module,
                                                 const std::string& method) {
  const std::vector<std::string> assigned = attributes_code_assigns(*module, method);
  if (assigned.empty()) return nullptr;
  auto out = std::make_shared<CodeWrites>();
  for (const std::string& attribute : assigned) {
    CodeWrites::Write w;
    for (absl::string_view atom : qualified_name_atoms(attribute)) w.object_path.emplace_back(atom);
    w.name = w.object_path.back();
    const size_t dot = attribute.rfind('.');
    auto owner = module->get_submodule(dot == std::string::npos ? "" : attribute.substr(0, dot));
    // Code may assign through an attribute that holds no module here (an
    // object it made itself); only the module tree's slots are stored.
    if (!owner.ok() || !(*owner)->contains(w.name)) continue;
    w.owner = *std::move(owner);
    out->writes.push_back(std::move(w));
  }
  if (out->writes.empty()) return nullptr;
  return out;
}

// Held by every call of code that changes its module's attributes: one
// object may be reached from several modules' calls (a leaf and its own
// submodule called as another leaf), so one lock for all keeps its slots
// and the tree's consistent. Such calls are rare (streaming state); the
// code of other modules runs without it.
absl::Mutex& state_changing_calls() {
  static absl::Mutex* mutex = new absl::Mutex();
  return *mutex;
}

// Stores what the call's code assigned into the module tree (CodeWrites).
absl::Status store_code_writes(const Node& node, const torch::jit::Module& object,
                               const CodeWrites& code_writes) {
  for (const CodeWrites::Write& w : code_writes.writes) {
    c10::IValue value = object._ivalue();
    bool reached = true;
    for (const std::string& atom : w.object_path) {
      reached = value.isObject() && value.toObjectRef().type()->hasAttribute(atom);
      if (!reached) break;
      value = value.toObjectRef().getAttr(atom);
    }
    if (!reached) continue;  // the code replaced a submodule on the way by another object
    if (absl::Status s = w.owner->store_code_written(w.name, std::move(value)); !s.ok()) {
      return node_error(node, s.message());
    }
  }
  return absl::OkStatus();
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
  auto bound_call = [&](torch::jit::Method m) {
    std::shared_ptr<const CodeWrites> code_writes = code_writes_of(*state, m.name());
    return method_call(std::move(m), std::move(code_writes));
  };
  auto callee = std::make_shared<ScriptCallee>();
  if (const MetaValue* named = node.meta().find(kModuleMethodKey);
      named != nullptr && named->is_string()) {
    // The method the tracer saw called (an overload of forward).
    auto method = object->find_method(named->to_string());
    if (!method) {
      return node_error(node, absl::StrCat("the submodule has no method '", named->to_string(),
                                           "' (meta _method)"));
    }
    callee->overloads.push_back(bound_call(*method));
  } else if (auto forward = object->find_method("forward")) {
    callee->overloads.push_back(bound_call(*forward));
  } else {
    for (const torch::jit::Method& m : object->get_methods()) {
      if (absl::StartsWith(m.name(), "forward__")) callee->overloads.push_back(bound_call(m));
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

bool code_may_assign(const Module& root, absl::string_view qualified_name) {
  const Module* m = &root;
  absl::string_view rest = qualified_name;
  while (m != nullptr) {
    if (const TorchScriptClass* code = torchscript_class(*m)) {
      const std::vector<std::string>& assigned = code->assigned_attributes();
      if (std::binary_search(assigned.begin(), assigned.end(), std::string(rest))) return true;
    }
    const size_t dot = rest.find('.');
    if (dot == absl::string_view::npos) return false;
    const Module::Slot* next = m->find(rest.substr(0, dot));
    m = next != nullptr && next->kind == SlotKind::kModule ? next->module.get() : nullptr;
    rest.remove_prefix(dot + 1);
  }
  return false;
}

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

bool rebinds_module_state(const ScriptCall& call) { return call.code_writes != nullptr; }

bool module_call_changes_state(const GraphModule& gm, const Node& node) {
  if (node.op() != Op::kCallModule || gm.graph_submodule(node.target()) != nullptr) return false;
  auto module = gm.get_submodule(node.target());
  if (!module.ok()) return false;
  const TorchScriptClass* code = torchscript_class(**module);
  if (code == nullptr) return false;
  const MetaValue* named = node.meta().find(kModuleMethodKey);
  if (named != nullptr && named->is_string()) {
    return !code->assigned_attributes(named->to_string()).empty();
  }
  if (code->type()->findMethod("forward") != nullptr) {
    return !code->assigned_attributes("forward").empty();
  }
  for (torch::jit::Function* m : code->type()->methods()) {
    if (absl::StartsWith(m->name(), "forward__") && !code->assigned_attributes(m->name()).empty()) {
      return true;
    }
  }
  return false;
}

bool calls_code_that_changes_state(const GraphModule& gm) {
  for (const Node* n : gm.graph().nodes()) {
    if (n->op() != Op::kCallModule) continue;
    if (const GraphModule* sub = gm.graph_submodule(n->target())) {
      if (calls_code_that_changes_state(*sub)) return true;
    } else if (module_call_changes_state(gm, *n)) {
      return true;
    }
  }
  return false;
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
    if (call.code_writes == nullptr) return (*call.method)(std::move(args), std::move(typed));
    // Its code changes its module's attributes: one such call at a time, the
    // new values stored into the tree before the next.
    absl::MutexLock lock(&state_changing_calls());
    c10::IValue result = (*call.method)(std::move(args), std::move(typed));
    absl::Status stored = store_code_writes(node, call.method->owner(), *call.code_writes);
    if (!stored.ok()) return stored;
    return result;
  } catch (const std::exception& e) {
    return node_error(node, script_error_message(e));
  }
}

}  // namespace fx
