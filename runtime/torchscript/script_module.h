// Copyright 2026 The FX for C++ Authors.
//
// script_module.h: TorchScript modules at the boundary of FX for C++'s own
// module state (runtime/module.h). Reading a .pt converts the TorchScript
// module's objects into a Module tree; calling a leaf module the tracer did
// not enter, and writing a .pt, make TorchScript objects from the tree again.
//
//   absl::StatusOr<std::shared_ptr<fx::Module>> state =
//       fx::module_from_torchscript(torch::jit::load("m.pt"));
//   absl::StatusOr<torch::jit::Module> conv =
//       fx::torchscript_object(**(*state)->get_submodule("conv"));
//
// Contracts:
//   * module_from_torchscript keeps every slot of every object: parameters
//     as parameters, buffers as buffers, other values (ints, lists, script
//     objects) and the class's constants (`__constants__`: eps, stride) as
//     attributes, submodules as modules, shared where the objects are;
//     `training` becomes the module's flag. Each module's code is its
//     TorchScript class (TorchScriptClass), so any of them can be called.
//   * torchscript_object gives an object of the module's class whose slots
//     are the module's as they are now (a pass's new weights, a plan's
//     tensors on the GPU), recursively. While the module's tree is unchanged
//     (Module::tree_generation) it is the same object each time, so every
//     call of a leaf module, from every plan and the exporter, runs on one
//     object, as on one nn.Module. A module without TorchScript code
//     becomes an object of a new class in `unit` (named after its type,
//     holding its slots and a `training` flag) when `unit` is given, and is an
//     error naming the module otherwise; so is a slot the class has and the
//     module lacks. Constants stay the class's: a new value given to one
//     reaches no TorchScript code. What a leaf's code assigns to an
//     attribute (`self.prev = x * 1.0`, a counter) the object holds for
//     later calls, and the runtime stores into the module's slots after each
//     call (script_calls.cc, Module::store_code_written), so that a change
//     to the tree (a pass, a copy on another device) starts the new object
//     from it. Tensors it changes in place are the tree's.
#ifndef FX_RUNTIME_TORCHSCRIPT_SCRIPT_MODULE_H_
#define FX_RUNTIME_TORCHSCRIPT_SCRIPT_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/export.h"
#include "runtime/module.h"

namespace fx {

// The code of a module read from TorchScript: its class, with the
// compilation unit that defines its methods.
class FX_API TorchScriptClass : public ModuleCode {
 public:
  TorchScriptClass(c10::ClassTypePtr type, std::shared_ptr<torch::jit::CompilationUnit> unit)
      : type_(std::move(type)), unit_(std::move(unit)) {}
  std::string format() const override { return "TorchScript"; }
  const c10::ClassTypePtr& type() const { return type_; }
  const std::shared_ptr<torch::jit::CompilationUnit>& unit() const { return unit_; }
  // The attributes a call of `method` may change, through `self`: assigned
  // anew ("prev" for `self.prev = ...`, "cell.count" for `self.cell.count =
  // ...`) or changed in place as a list or dict (`self.hist.append(x)`,
  // `self.cache[k] = v`), by the method or by the methods it calls, of this
  // class or of its submodules (`self.cell.step(x)`). Sorted, each once;
  // empty for a method the class lacks. Found once per method.
  const std::vector<std::string>& assigned_attributes(const std::string& method) const;
  // The same for every method but `__setstate__` (which loading runs): what
  // any call may change.
  const std::vector<std::string>& assigned_attributes() const;

 private:
  c10::ClassTypePtr type_;
  std::shared_ptr<torch::jit::CompilationUnit> unit_;
  mutable absl::Mutex assigned_mu_;
  mutable absl::flat_hash_map<std::string, std::unique_ptr<const std::vector<std::string>>>
      assigned_ ABSL_GUARDED_BY(assigned_mu_);
};

// The TorchScript class of `module`'s code, or null.
FX_API const TorchScriptClass* torchscript_class(const Module& module);

// `module`'s state as a Module tree (above). Fails, naming the class and the
// attribute, on an attribute name a Module cannot hold (one with a dot).
FX_API absl::StatusOr<std::shared_ptr<Module>> module_from_torchscript(
    const torch::jit::Module& module);

// A TorchScript object holding `module`'s slots (above).
FX_API absl::StatusOr<torch::jit::Module> torchscript_object(
    const Module& module, const std::shared_ptr<torch::jit::CompilationUnit>& unit = nullptr);

// The attributes below `module`, by qualified name from it ("prev",
// "cell.count"), that a call of its TorchScript `method` may change
// (TorchScriptClass::assigned_attributes). Sorted, each once; empty for a
// module without TorchScript code.
FX_API std::vector<std::string> attributes_code_assigns(const Module& module,
                                                        const std::string& method = "forward");

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCRIPT_MODULE_H_
