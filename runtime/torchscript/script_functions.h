// Copyright 2026 The FX for C++ Authors.
//
// script_functions.h: the TorchScript code a graph traced from a .pt calls
// as code rather than as operators: leaf functions (call_function of a
// TorchScript function the tracer did not enter, by target:
// `torch.nn.functional.interpolate`, `mylib.clip`) and the model's
// compilation unit (its other functions by name, its NamedTuple classes).
// GraphModule holds them opaquely (GraphModule::script_functions); this is
// their TorchScript side.
//
//   fx::add_script_function(gm, "mylib.clip", torch::jit::StrongFunctionPtr(cu, fn));
//   std::vector<torch::jit::Function*> f = fx::find_script_functions(gm, "mylib.clip");
//
// Contracts: a target may have several functions (TorchScript compiles an
// overloaded Python function once per overload); the runtime picks the one
// the arguments fit. Adding to a GraphModule whose table is shared with
// another (from_referenced, a plan's copy) gives it a table of its own.
#ifndef FX_RUNTIME_TORCHSCRIPT_SCRIPT_FUNCTIONS_H_
#define FX_RUNTIME_TORCHSCRIPT_SCRIPT_FUNCTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/compilation_unit.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {

class FX_API ScriptFunctions {
 public:
  // The leaf functions, by call_function target, in the order recorded.
  absl::flat_hash_map<std::string, std::vector<torch::jit::StrongFunctionPtr>> by_target;
  // The model's code, for functions called by name and NamedTuple classes;
  // null for a graph that was not traced from TorchScript.
  std::shared_ptr<torch::jit::CompilationUnit> unit;
};

// Records `function` as a leaf function of `gm` for `target` (once).
FX_API void add_script_function(GraphModule& gm, const std::string& target,
                                torch::jit::StrongFunctionPtr function);
// Sets the compilation unit of the model's code.
FX_API void set_script_unit(GraphModule& gm, std::shared_ptr<torch::jit::CompilationUnit> unit);
// The functions recorded for `target`, in the order recorded.
FX_API std::vector<torch::jit::Function*> find_script_functions(const GraphModule& gm,
                                                                absl::string_view target);
// True when `gm` has a leaf function for `target`.
FX_API bool has_script_function(const GraphModule& gm, absl::string_view target);
// The model's compilation unit, or null.
FX_API std::shared_ptr<torch::jit::CompilationUnit> script_unit(const GraphModule& gm);
// The functions of the model's compilation unit that a call_function target
// names: `__torch__.<target>` (TorchScript compiled torch.nn.functional's
// `embedding` as `__torch__.torch.nn.functional.embedding` when the model
// called it), or the target itself when it starts with `__torch__.`, and
// the versions TorchScript mangled (`...functional.___torch_mangle_475.interpolate`):
// overloads of one function. Empty when the unit has none.
FX_API std::vector<torch::jit::Function*> find_unit_functions(const GraphModule& gm,
                                                              absl::string_view target);
// All leaf functions by target (empty when there are none).
FX_API const absl::flat_hash_map<std::string, std::vector<torch::jit::StrongFunctionPtr>>&
script_functions_by_target(const GraphModule& gm);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCRIPT_FUNCTIONS_H_
