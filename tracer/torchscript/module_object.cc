// Copyright 2026 The FX for C++ Authors.
//
// The TorchScript side of ModuleRef (module_ref.h): the TorchScript object a
// trace walks (ModuleRef::module, and named_parameters, in the object's
// order), and the class facts of TorchScript module types (module_info.h).
#include <torch/csrc/jit/api/module.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/naming.h"
#include "tracer/module_info.h"
#include "tracer/module_ref.h"

namespace fx {

std::string python_type_name(const c10::ClassType& type) {
  return type.name() ? python_qualified_name(type.name()->qualifiedName()) : "";
}

ModuleClass describe_module_class(const c10::ClassType& type) {
  return describe_module_class(python_type_name(type));
}

const ModuleClass& module_class_of(const c10::ClassTypePtr& type) {
  struct Cache {
    absl::Mutex mu;
    absl::flat_hash_map<const c10::ClassType*, std::pair<c10::ClassTypePtr, std::unique_ptr<ModuleClass>>>
        classes ABSL_GUARDED_BY(mu);
  };
  static Cache* cache = new Cache();
  absl::MutexLock lock(&cache->mu);
  auto& entry = cache->classes[type.get()];
  if (!entry.second) {
    entry.first = type;  // keeps the type, and so its address, alive
    entry.second = std::make_unique<ModuleClass>(describe_module_class(*type));
  }
  return *entry.second;
}

torch::jit::Module ModuleRef::module() const { return torch::jit::Module(info_->object); }

std::vector<std::pair<std::string, at::Tensor>> ModuleRef::named_parameters() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  if (!has_object()) {
    // A module of a torch.export program: its state is all there is.
    for (const auto& [name, tensor] : info_->state->named_parameters()) {
      out.emplace_back(qualified_name(qualname(), name), tensor);
    }
    return out;
  }
  for (const auto& p : module().named_parameters(/*recurse=*/true)) {
    out.emplace_back(qualified_name(qualname(), p.name), p.value);
  }
  return out;
}

}  // namespace fx
