// Copyright 2026 The FX for C++ Authors.
#include "runtime/module.h"

#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/naming.h"

namespace fx {
namespace {

// Every change to any module, counted process-wide (Module::changes_anywhere).
std::atomic<uint64_t> changes_anywhere_count{0};

std::string where(absl::string_view seen) {
  return seen.empty() ? std::string("the root module") : absl::StrCat("'", seen, "'");
}

}  // namespace

ModuleCode::~ModuleCode() = default;

const char* slot_kind_name(SlotKind kind) {
  switch (kind) {
    case SlotKind::kParameter:
      return "parameter";
    case SlotKind::kBuffer:
      return "buffer";
    case SlotKind::kAttribute:
      return "attribute";
    case SlotKind::kModule:
      return "submodule";
  }
  return "slot";
}

Module::Module(std::string type_name, bool training)
    : type_name_(std::move(type_name)), training_(training) {
  // A new module may take the place (and address) of one a cache saw.
  changes_anywhere_count.fetch_add(1, std::memory_order_release);
}

uint64_t Module::changes_anywhere() {
  return changes_anywhere_count.load(std::memory_order_acquire);
}

void Module::changed() {
  ++generation_;
  changes_anywhere_count.fetch_add(1, std::memory_order_release);
}

void Module::set_training(bool training) {
  if (training != training_) changed();
  training_ = training;
}

uint64_t Module::tree_generation() const {
  uint64_t sum = generation_;
  for (const Slot& s : slots_) {
    if (s.kind == SlotKind::kModule) sum += s.module->tree_generation();
  }
  return sum;
}

Module::CodeObject Module::code_object() const {
  absl::MutexLock lock(&code_object_mu_);
  return code_object_;
}

void Module::set_code_object(CodeObject object) const {
  absl::MutexLock lock(&code_object_mu_);
  code_object_ = std::move(object);
}

std::string Module::class_name() const {
  const size_t dot = type_name_.rfind('.');
  return dot == std::string::npos ? type_name_ : type_name_.substr(dot + 1);
}

const Module::Slot* Module::find(absl::string_view name) const {
  for (const Slot& s : slots_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Module::Slot* Module::find_mutable(absl::string_view name) {
  for (Slot& s : slots_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

absl::Status Module::check_new_name(const std::string& name) const {
  if (name.empty() || name.find('.') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "' cannot name a slot of module ", type_name_,
        ": a slot's name is one atom, with no dots (register it on the submodule that owns it)"));
  }
  if (const Slot* s = find(name)) {
    return absl::AlreadyExistsError(absl::StrCat("module ", type_name_, " already has a ",
                                                 slot_kind_name(s->kind), " '", name, "'"));
  }
  return absl::OkStatus();
}

absl::Status Module::register_value(const std::string& name, SlotKind kind, c10::IValue value) {
  if (kind == SlotKind::kModule) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "': register a submodule with register_module"));
  }
  if ((kind == SlotKind::kParameter || kind == SlotKind::kBuffer) && !value.isTensor() &&
      !value.isNone()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", slot_kind_name(kind), " '", name,
                                                   "' must be a tensor (or None), not ",
                                                   value.tagKind()));
  }
  if (absl::Status s = check_new_name(name); !s.ok()) return s;
  slots_.push_back(Slot{name, kind, std::move(value), nullptr});
  changed();
  return absl::OkStatus();
}

absl::Status Module::register_parameter(const std::string& name, at::Tensor value) {
  return register_value(name, SlotKind::kParameter, std::move(value));
}

absl::Status Module::register_buffer(const std::string& name, at::Tensor value) {
  return register_value(name, SlotKind::kBuffer, std::move(value));
}

absl::Status Module::register_attribute(const std::string& name, c10::IValue value) {
  return register_value(name, SlotKind::kAttribute, std::move(value));
}

absl::Status Module::register_module(const std::string& name, std::shared_ptr<Module> module) {
  if (module == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("submodule '", name, "' is null"));
  }
  if (absl::Status s = check_new_name(name); !s.ok()) return s;
  slots_.push_back(Slot{name, SlotKind::kModule, c10::IValue(), std::move(module)});
  changed();
  return absl::OkStatus();
}

absl::Status Module::set_value(absl::string_view name, c10::IValue value) {
  Slot* s = find_mutable(name);
  if (s == nullptr || s->kind == SlotKind::kModule) {
    return absl::NotFoundError(absl::StrCat("module ", type_name_, " has no parameter, buffer or "
                                            "attribute '", name, "'"));
  }
  s->value = std::move(value);
  changed();
  return absl::OkStatus();
}

absl::Status Module::store_code_written(absl::string_view name, c10::IValue value) const {
  // The slot is this module's own, held in a tree of modules made non-const:
  // the code's state is kept as the code object is, by a const module.
  Slot* s = const_cast<Module*>(this)->find_mutable(name);
  if (s == nullptr || s->kind == SlotKind::kModule) {
    return absl::NotFoundError(absl::StrCat("module ", type_name_, " has no parameter, buffer or "
                                            "attribute '", name, "' for its code's new value"));
  }
  if ((s->kind == SlotKind::kParameter || s->kind == SlotKind::kBuffer) && !value.isTensor() &&
      !value.isNone()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the code of module ", type_name_, " assigned ", value.tagKind(), " to its ",
        slot_kind_name(s->kind), " '", name, "', which must be a tensor (or None)"));
  }
  absl::MutexLock lock(&code_written_mu_);
  s->value = std::move(value);
  return absl::OkStatus();
}

absl::StatusOr<c10::IValue> Module::read_code_written(absl::string_view name) const {
  const Slot* s = find(name);
  if (s == nullptr || s->kind == SlotKind::kModule) {
    return absl::NotFoundError(absl::StrCat("module ", type_name_, " has no parameter, buffer or "
                                            "attribute '", name, "'"));
  }
  absl::MutexLock lock(&code_written_mu_);
  return s->value;
}

absl::StatusOr<const Module::Slot*> Module::find_qualified(absl::string_view qualified_name) const {
  const std::vector<absl::string_view> atoms = qualified_name_atoms(qualified_name);
  if (atoms.empty()) return absl::InvalidArgumentError("empty attribute name");
  const Module* current = this;
  std::string seen;
  for (size_t i = 0; i < atoms.size(); ++i) {
    const Slot* s = current->find(atoms[i]);
    if (s == nullptr) {
      return absl::NotFoundError(absl::StrCat("'", qualified_name, "': ", where(seen),
                                              " has no attribute '", atoms[i], "'"));
    }
    seen = fx::qualified_name(seen, atoms[i]);
    if (i + 1 == atoms.size()) return s;
    if (s->kind != SlotKind::kModule) {
      return absl::NotFoundError(absl::StrCat("'", qualified_name, "': '", seen,
                                              "' is not a module, it has no attribute '",
                                              atoms[i + 1], "'"));
    }
    current = s->module.get();
  }
  return absl::InternalError("unreachable");
}

absl::StatusOr<c10::IValue> Module::get_attr(absl::string_view qualified_name) const {
  auto slot = find_qualified(qualified_name);
  if (!slot.ok()) return slot.status();
  if ((*slot)->kind == SlotKind::kModule) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", qualified_name, "' is a submodule, not an attribute"));
  }
  // The module holding the slot: its lock guards what its code stores.
  const size_t dot = qualified_name.rfind('.');
  const Module* owner = this;
  if (dot != absl::string_view::npos) {
    absl::StatusOr<std::shared_ptr<const Module>> m = get_submodule(qualified_name.substr(0, dot));
    if (!m.ok()) return m.status();
    owner = m->get();
  }
  absl::MutexLock lock(&owner->code_written_mu_);
  return (*slot)->value;
}

absl::StatusOr<std::shared_ptr<const Module>> Module::get_submodule(
    absl::string_view qualified_name) const {
  auto m = const_cast<Module*>(this)->get_submodule(qualified_name);
  if (!m.ok()) return m.status();
  return std::shared_ptr<const Module>(*std::move(m));
}

absl::StatusOr<std::shared_ptr<Module>> Module::get_submodule(absl::string_view qualified_name) {
  if (qualified_name.empty()) {
    // The root is not held by a slot: an aliasing pointer that owns nothing.
    return std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  }
  auto slot = find_qualified(qualified_name);
  if (!slot.ok()) return slot.status();
  if ((*slot)->kind != SlotKind::kModule) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", qualified_name, "' is an attribute, not a submodule"));
  }
  return (*slot)->module;
}

std::vector<std::pair<std::string, const Module*>> Module::named_modules() const {
  std::vector<std::pair<std::string, const Module*>> out;
  absl::flat_hash_set<const Module*> seen;
  std::function<void(const std::string&, const Module*)> visit = [&](const std::string& path,
                                                                    const Module* m) {
    if (!seen.insert(m).second) return;
    out.emplace_back(path, m);
    for (const Slot& s : m->slots_) {
      if (s.kind == SlotKind::kModule) visit(qualified_name(path, s.name), s.module.get());
    }
  };
  visit("", this);
  return out;
}

namespace {

std::vector<std::pair<std::string, at::Tensor>> tensors_of(const Module& root, bool parameters_only) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  absl::flat_hash_set<const c10::TensorImpl*> seen;
  for (const auto& [path, m] : root.named_modules()) {
    for (const Module::Slot& s : m->slots()) {
      if (s.kind == SlotKind::kModule) continue;
      if (parameters_only && s.kind != SlotKind::kParameter) continue;
      absl::StatusOr<c10::IValue> value = m->read_code_written(s.name);
      if (!value.ok() || !value->isTensor()) continue;
      const at::Tensor t = value->toTensor();
      if (!seen.insert(t.unsafeGetTensorImpl()).second) continue;
      out.emplace_back(qualified_name(path, s.name), t);
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, at::Tensor>> Module::named_parameters() const {
  return tensors_of(*this, /*parameters_only=*/true);
}

std::vector<std::pair<std::string, at::Tensor>> Module::named_tensors() const {
  return tensors_of(*this, /*parameters_only=*/false);
}

size_t Module::count_slots() const {
  size_t n = 0;
  for (const Slot& s : slots_) {
    ++n;
    if (s.kind == SlotKind::kModule) n += s.module->count_slots();
  }
  return n;
}

void Module::replace_values(const std::function<c10::IValue(const c10::IValue&)>& replace) {
  absl::flat_hash_set<const Module*> seen;
  std::function<void(Module*)> visit = [&](Module* m) {
    if (!seen.insert(m).second) return;
    for (Slot& s : m->slots_) {
      if (s.kind == SlotKind::kModule) {
        visit(s.module.get());
      } else {
        s.value = replace(s.value);
      }
    }
    m->changed();
  };
  visit(this);
}

void Module::replace_tensors(const std::function<at::Tensor(const at::Tensor&)>& replace) {
  replace_values([&](const c10::IValue& v) { return v.isTensor() ? replace(v.toTensor()) : v; });
}

std::shared_ptr<Module> Module::with_tensors(
    const std::function<at::Tensor(const at::Tensor&)>& replace) const {
  absl::flat_hash_map<const Module*, std::shared_ptr<Module>> copies;
  absl::flat_hash_map<const c10::TensorImpl*, at::Tensor> replaced;
  std::function<std::shared_ptr<Module>(const Module&)> copy = [&](const Module& m) {
    if (auto it = copies.find(&m); it != copies.end()) return it->second;
    auto out = std::make_shared<Module>(m.type_name_, m.training_);
    out->code_ = m.code_;
    copies.emplace(&m, out);
    for (const Slot& s : m.slots_) {
      Slot c;
      {
        absl::MutexLock lock(&m.code_written_mu_);
        c = s;
      }
      if (s.kind == SlotKind::kModule) {
        c.module = copy(*s.module);
      } else if (c.value.isTensor()) {
        const at::Tensor t = c.value.toTensor();
        auto it = replaced.find(t.unsafeGetTensorImpl());
        if (it == replaced.end()) it = replaced.emplace(t.unsafeGetTensorImpl(), replace(t)).first;
        c.value = it->second;
      }
      out->slots_.push_back(std::move(c));
    }
    return out;
  };
  return copy(*this);
}

}  // namespace fx
