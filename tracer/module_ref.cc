// Copyright 2026 The FX for C++ Authors.
#include "tracer/module_ref.h"

#include <memory>

#include <torch/csrc/jit/api/module.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "core/naming.h"
#include "tracer/module_info.h"

namespace fx {

std::string python_type_name(const c10::ClassType& type) {
  return type.name() ? python_qualified_name(type.name()->qualifiedName()) : "";
}

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
torch::jit::Module ModuleRef::module() const { return torch::jit::Module(info_->object); }
const Module& ModuleRef::state() const { return *info_->state; }
const std::string& ModuleRef::qualname() const { return info_->qualname; }
const std::string& ModuleRef::type_name() const { return info_->cls->type_name; }
const std::string& ModuleRef::class_name() const { return info_->cls->class_name; }
bool ModuleRef::is_torch_nn() const { return info_->cls->is_torch_nn; }
bool ModuleRef::is_container() const { return info_->cls->is_container; }
bool ModuleRef::operator==(const ModuleRef& other) const {
  return info_->state == other.info_->state;
}

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
