// Copyright 2026 The FX for C++ Authors.
//
// module_ref.h: a module of the hierarchy being traced, as tracer hooks see it.
//
// torch.fx hands its Tracer hooks the `nn.Module` being called; here that is a
// ModuleRef: the module in the GraphModule's module tree (runtime/module.h),
// its qualified name in the root (`layer1.0.conv1`, "" for the root) and its
// Python class. A trace of a TorchScript module also gives the TorchScript
// object the tracer walks, whose class it recovers from the TorchScript type
// name (`__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d` is
// `torch.nn.modules.conv.Conv2d`); a torch.export program has no such object,
// its classes are the ones its nodes' nn_module_stack names. This header
// includes no TorchScript header: extensions that use module() include one.
//
// ModuleRefs are cheap handles; the tracer owns what they point at for the
// duration of a trace.
#ifndef FX_TRACER_MODULE_REF_H_
#define FX_TRACER_MODULE_REF_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/naming.h"
#include "runtime/module.h"

namespace torch {
namespace jit {
struct Module;
}  // namespace jit
}  // namespace torch

namespace fx {

// Facts about a module class, computed once per class name.
struct FX_API ModuleClass {
  std::string type_name;   // torch.nn.modules.conv.Conv2d
  std::string class_name;  // Conv2d
  // Defined in torch.nn (or torch.ao.nn): torch.fx's default leaf rule.
  bool is_torch_nn = false;
  // nn.Sequential, nn.ModuleList or nn.ModuleDict.
  bool is_container = false;
};

// The facts about the Python class `type_name` ("torch.nn.modules.conv.Conv2d").
FX_API ModuleClass describe_module_class(absl::string_view type_name);
// The facts about the Python class `type_name`, computed once per name for
// the life of the process. Thread-safe.
FX_API const ModuleClass& module_class_of(absl::string_view type_name);

// What the tracer knows of one module (tracer/module_info.h).
struct ModuleInfo;

class FX_API ModuleRef {
 public:
  explicit ModuleRef(const ModuleInfo* info) : info_(info) {}

  // Whether the trace walks a TorchScript object for this module: false for
  // a module of a torch.export program (Tracer::reading_program()).
  bool has_object() const;
  // The TorchScript object; only when has_object(). (Include TorchScript's
  // <torch/csrc/jit/api/module.h> to use it.)
  torch::jit::Module module() const;
  // The module in the GraphModule's module tree (runtime/module.h).
  const Module& state() const;
  // The path from the root: "" for the root, "layer1.0.conv1".
  const std::string& qualname() const;
  // The Python class: "torch.nn.modules.activation.ReLU".
  const std::string& type_name() const;
  // The class name alone: "ReLU".
  const std::string& class_name() const;
  bool is_torch_nn() const;
  bool is_container() const;
  // The module's parameters, recursively, with names qualified from the root
  // (`layer1.0.conv1.weight`), in the TorchScript object's named_parameters()
  // order; for a torch.export program's module, in torch.nn.Module's
  // (Module::named_parameters).
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() const;

  // The same module: one module of the tree (a module reached by two paths
  // is one module, as in torch).
  bool operator==(const ModuleRef& other) const;

 private:
  const ModuleInfo* info_;
};

}  // namespace fx

#endif  // FX_TRACER_MODULE_REF_H_
