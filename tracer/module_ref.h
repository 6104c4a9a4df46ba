// Copyright 2026 The FX for C++ Authors.
//
// module_ref.h: a module of the hierarchy being traced, as tracer hooks see it.
//
// torch.fx hands its Tracer hooks the `nn.Module` being called; here that is a
// ModuleRef: the TorchScript module object, its qualified name in the root
// (`layer1.0.conv1`, "" for the root) and its Python class, recovered from the
// TorchScript type name (`__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d`
// is `torch.nn.modules.conv.Conv2d`).
//
// ModuleRefs are cheap handles; the tracer owns what they point at for the
// duration of a trace.
#ifndef FX_TRACER_MODULE_REF_H_
#define FX_TRACER_MODULE_REF_H_

#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// The Python name of a TorchScript qualified name: TorchScript prefixes user
// code with `__torch__` and renames a class or function it compiled twice to
// `___torch_mangle_<n>.<name>`, so `__torch__.torchvision.models.x.___torch_mangle_3.f`
// is `torchvision.models.x.f`.
FX_API std::string python_qualified_name(absl::string_view torchscript_name);

// The Python class of a TorchScript module type: `torch.nn.modules.conv.Conv2d`
// for `__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d`.
FX_API std::string python_type_name(const c10::ClassType& type);

// Facts about a module class, computed once per TorchScript type.
struct FX_API ModuleClass {
  std::string type_name;   // torch.nn.modules.conv.Conv2d
  std::string class_name;  // Conv2d
  // Defined in torch.nn (or torch.ao.nn): torch.fx's default leaf rule.
  bool is_torch_nn = false;
  // nn.Sequential, nn.ModuleList or nn.ModuleDict.
  bool is_container = false;
};

// The facts about `type`.
FX_API ModuleClass describe_module_class(const c10::ClassType& type);

// What the tracer knows of one module object.
struct FX_API ModuleInfo {
  torch::jit::Module module;
  std::string qualname;
  const ModuleClass* cls = nullptr;
  const c10::ClassType* type = nullptr;
};

// The facts about `type`, computed once per type for the life of the process
// (the cache keeps the type alive). Thread-safe.
FX_API const ModuleClass& module_class_of(const c10::ClassTypePtr& type);

class FX_API ModuleRef {
 public:
  explicit ModuleRef(const ModuleInfo* info) : info_(info) {}

  const torch::jit::Module& module() const { return info_->module; }
  // The path from the root: "" for the root, "layer1.0.conv1".
  const std::string& qualname() const { return info_->qualname; }
  // The Python class: "torch.nn.modules.activation.ReLU".
  const std::string& type_name() const { return info_->cls->type_name; }
  // The class name alone: "ReLU".
  const std::string& class_name() const { return info_->cls->class_name; }
  bool is_torch_nn() const { return info_->cls->is_torch_nn; }
  bool is_container() const { return info_->cls->is_container; }
  // The module's parameters, recursively, with names qualified from the root
  // (`layer1.0.conv1.weight`), in torch's named_parameters() order.
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() const;

  bool operator==(const ModuleRef& other) const {
    return info_->module._ivalue() == other.info_->module._ivalue();
  }

 private:
  const ModuleInfo* info_;
};

}  // namespace fx

#endif  // FX_TRACER_MODULE_REF_H_
