// Copyright 2026 The FX for C++ Authors.
//
// ModuleRef and the class facts of a Python class name, for either format.
// What needs the TorchScript object (ModuleRef::module, named_parameters)
// and the class facts of TorchScript types are torchscript/module_object.cc.
#include "tracer/module_ref.h"

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "tracer/module_info.h"

namespace fx {

ModuleClass describe_module_class(absl::string_view type_name) {
  ModuleClass c;
  c.type_name = std::string(type_name);
  const size_t dot = c.type_name.rfind('.');
  c.class_name = dot == std::string::npos ? c.type_name : c.type_name.substr(dot + 1);
  c.is_torch_nn = absl::StartsWith(c.type_name, "torch.nn.") ||
                  absl::StartsWith(c.type_name, "torch.ao.nn.");
  c.is_container = c.is_torch_nn && (c.class_name == "Sequential" || c.class_name == "ModuleList" ||
                                     c.class_name == "ModuleDict");
  return c;
}

const ModuleClass& module_class_of(absl::string_view type_name) {
  struct Cache {
    absl::Mutex mu;
    // The values are boxed: their addresses outlive rehashing.
    absl::flat_hash_map<std::string, std::unique_ptr<ModuleClass>> classes ABSL_GUARDED_BY(mu);
  };
  static Cache* cache = new Cache();
  absl::MutexLock lock(&cache->mu);
  std::unique_ptr<ModuleClass>& entry = cache->classes[type_name];
  if (!entry) entry = std::make_unique<ModuleClass>(describe_module_class(type_name));
  return *entry;
}

bool ModuleRef::has_object() const { return info_->type != nullptr; }
const Module& ModuleRef::state() const { return *info_->state; }
const std::string& ModuleRef::qualname() const { return info_->qualname; }
const std::string& ModuleRef::type_name() const { return info_->cls->type_name; }
const std::string& ModuleRef::class_name() const { return info_->cls->class_name; }
bool ModuleRef::is_torch_nn() const { return info_->cls->is_torch_nn; }
bool ModuleRef::is_container() const { return info_->cls->is_container; }
bool ModuleRef::operator==(const ModuleRef& other) const {
  return info_->state == other.info_->state;
}

}  // namespace fx
