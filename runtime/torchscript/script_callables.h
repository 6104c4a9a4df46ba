// Copyright 2026 The FX for C++ Authors.
//
// script_callables.h: what script_calls.h's opaque ScriptCall holds (a
// TorchScript function, or a method bound to its module's object), and how a
// call's values get the types TorchScript's schema checks demand. For the
// TorchScript format's own files (leaf-function lowering, fxrun's reference
// run of a .pt model); the runtime holds ScriptCall through script_calls.h,
// which parses no TorchScript header.
//
//   const ScriptCall& call = ...;                 // from choose_script_call
//   if (call.function != nullptr) ... call.function->getSchema() ...
//   torch::jit::Kwargs typed = fx::coerce_to_schema(schema, 1, args, kwargs);
#ifndef FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLABLES_H_
#define FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLABLES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "core/export.h"
#include "runtime/module.h"
#include "runtime/operator_binding.h"
#include "runtime/torchscript/script_calls.h"

namespace fx {

// What a called method of a module may change (script_module.h's
// attributes_code_assigns), to store into the module tree after each call.
struct FX_API CodeWrites {
  struct Write {
    std::vector<std::string> object_path;  // from the called object: "cell", "count"
    std::shared_ptr<const Module> owner;   // the module holding the slot
    std::string name;                      // the slot: "count"
  };
  std::vector<Write> writes;
};

// Exactly one of `function` and `method` is set.
struct FX_API ScriptCall {
  torch::jit::Function* function = nullptr;  // or
  c10::optional<torch::jit::Method> method;
  // A method that may change its module's attributes: calls of such
  // methods run one at a time in the process, each storing what it changed
  // (Module::store_code_written) before the next. Null otherwise.
  std::shared_ptr<const CodeWrites> code_writes;
};

// TorchScript checks a call's values against the declared types exactly: a
// list a caller gave or the graph built (List[Any]) is no `List[Tensor]`.
// Gives list and tuple values in `args` and `kwargs` the types `schema`
// declares where Python would accept them there (coerce_to_type); what does
// not fit is left for TorchScript to refuse. `first` is the schema parameter
// `args[0]` fills (1 past a method's self). Returns the kwargs, typed.
FX_API torch::jit::Kwargs coerce_to_schema(const c10::FunctionSchema& schema, size_t first,
                                           std::vector<c10::IValue>& args,
                                           const IValueKwargs& kwargs = {});

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCRIPT_CALLABLES_H_
