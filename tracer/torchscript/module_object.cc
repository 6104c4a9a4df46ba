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
  // By type, for as long as the type lives (an entry does not keep it alive:
  // a process loading model after model holds the classes of the models it
  // still has); an entry whose type is gone is remade if a new type takes its
  // address, and every so often all such entries are dropped.
  struct Entry {
    std::weak_ptr<c10::ClassType> type;
    std::unique_ptr<ModuleClass> module_class;
  };
  struct Cache {
    absl::Mutex mu;
    absl::flat_hash_map<const c10::ClassType*, Entry> classes ABSL_GUARDED_BY(mu);
    size_t made_since_sweep ABSL_GUARDED_BY(mu) = 0;
  };
  static Cache* cache = new Cache();
  absl::MutexLock lock(&cache->mu);
  Entry& entry = cache->classes[type.get()];
  if (!entry.module_class || entry.type.expired()) {
    entry.type = type;
    entry.module_class = std::make_unique<ModuleClass>(describe_module_class(*type));
    if (++cache->made_since_sweep >= 256) {
      cache->made_since_sweep = 0;
      const ModuleClass* kept = entry.module_class.get();
      for (auto e = cache->classes.begin(); e != cache->classes.end();) {
        if (e->second.type.expired()) {
          cache->classes.erase(e++);
        } else {
          ++e;
        }
      }
      return *kept;
    }
  }
  return *entry.module_class;
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
