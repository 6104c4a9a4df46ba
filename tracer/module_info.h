// Copyright 2026 The FX for C++ Authors.
//
// module_info.h: what the tracer knows of one module, behind the ModuleRef
// handles its hooks get (module_ref.h), and the class facts it recovers from
// TorchScript types. For the tracer and its tests; extensions see ModuleRef.
//
// The TorchScript object is held as libtorch's object handle (ATen), so that
// this header, module_ref.h and tracer.h include no TorchScript header.
#ifndef FX_TRACER_MODULE_INFO_H_
#define FX_TRACER_MODULE_INFO_H_

#include <string>

#include <ATen/core/ivalue.h>

#include "core/export.h"
#include "runtime/module.h"
#include "tracer/module_ref.h"

namespace fx {

struct FX_API ModuleInfo {
  // The TorchScript object being walked; null for a module of a torch.export
  // program.
  c10::intrusive_ptr<c10::ivalue::Object> object;
  // The object's TorchScript type; null for a module of a torch.export program.
  const c10::ClassType* type = nullptr;
  // The module in the GraphModule's module tree: set for every module.
  const Module* state = nullptr;
  std::string qualname;
  const ModuleClass* cls = nullptr;
};

// The Python class of a TorchScript module type: `torch.nn.modules.conv.Conv2d`
// for `__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d`.
FX_API std::string python_type_name(const c10::ClassType& type);
// The facts about a TorchScript module type (its python_type_name's).
FX_API ModuleClass describe_module_class(const c10::ClassType& type);
// The facts about `type`, computed once per type for the life of the process
// (the cache keeps the type alive). Thread-safe.
FX_API const ModuleClass& module_class_of(const c10::ClassTypePtr& type);

}  // namespace fx

#endif  // FX_TRACER_MODULE_INFO_H_
