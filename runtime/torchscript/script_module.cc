// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_module.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <torch/csrc/jit/api/function_impl.h>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/message_text.h"
#include "core/naming.h"

namespace fx {
namespace {

using Object = c10::ivalue::Object;

bool is_module_object(const c10::IValue& v) {
  return v.isObject() && v.toObjectRef().type()->is_module();
}

absl::StatusOr<std::shared_ptr<Module>> from_object(
    const c10::intrusive_ptr<Object>& object,
    absl::flat_hash_map<const Object*, std::shared_ptr<Module>>& made) {
  if (auto it = made.find(object.get()); it != made.end()) return it->second;
  const c10::ClassTypePtr type = object->type();
  auto out = std::make_shared<Module>(
      type->name() ? python_qualified_name(type->name()->qualifiedName()) : "torch.nn.Module");
  out->set_code(std::make_shared<TorchScriptClass>(type, object->compilation_unit()));
  made.emplace(object.get(), out);
  // A name Module refuses (an attribute named with a dot, which Python's
  // setattr allows) stops the conversion, naming it.
  auto refused = [&](const std::string& name, const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the TorchScript object of class ", out->type_name(), " has an attribute '", name,
        "' that FX for C++'s module state cannot hold: ", s.message()));
  };
  for (size_t i = 0; i < type->numAttributes(); ++i) {
    const std::string& name = type->getAttributeName(i);
    const c10::IValue& value = object->getSlot(i);
    absl::Status s;
    if (name == "training" && value.isBool()) {
      out->set_training(value.toBool());
      continue;
    }
    if (is_module_object(value)) {
      absl::StatusOr<std::shared_ptr<Module>> sub = from_object(value.toObject(), made);
      if (!sub.ok()) return sub.status();
      s = out->register_module(name, *std::move(sub));
    } else {
      const SlotKind kind = type->is_parameter(i) ? SlotKind::kParameter
                            : type->is_buffer(i)  ? SlotKind::kBuffer
                                                  : SlotKind::kAttribute;
      s = out->register_value(name, kind, value);
    }
    if (!s.ok()) return refused(name, s);
  }
  // The class's constants (`__constants__`: a BatchNorm's eps, a Conv2d's
  // stride) are plain attributes in Python, and passes read them as such.
  for (size_t i = 0; i < type->numConstants(); ++i) {
    const std::string& name = type->getConstantName(i);
    if (out->contains(name)) continue;
    if (absl::Status s = out->register_attribute(name, type->getConstant(i)); !s.ok()) {
      return refused(name, s);
    }
  }
  return out;
}

class ObjectMaker {
 public:
  explicit ObjectMaker(std::shared_ptr<torch::jit::CompilationUnit> unit) : unit_(std::move(unit)) {}

  absl::StatusOr<torch::jit::Module> make(const Module& module, const std::string& path) {
    if (auto it = made_.find(&module); it != made_.end()) return it->second;
    const TorchScriptClass* code = torchscript_class(module);
    absl::StatusOr<torch::jit::Module> object;
    if (code == nullptr) {
      object = of_new_class(module, path);
    } else {
      // One object per module while its tree is unchanged: every call, from
      // every plan, runs on it, and what its code assigns stays for the next.
      const uint64_t generation = module.tree_generation();
      const Module::CodeObject cached = module.code_object();
      if (cached.object != nullptr && cached.generation == generation) {
        object = *std::static_pointer_cast<torch::jit::Module>(cached.object);
      } else {
        object = of_class(module, *code, path);
        if (object.ok()) {
          module.set_code_object({generation, std::make_shared<torch::jit::Module>(*object)});
        }
      }
    }
    if (object.ok()) made_.emplace(&module, *object);
    return object;
  }

 private:
  static std::string shown(const std::string& path) {
    return path.empty() ? std::string("the root module") : absl::StrCat("module '", path, "'");
  }

  absl::StatusOr<torch::jit::Module> of_class(const Module& module, const TorchScriptClass& code,
                                              const std::string& path) {
    const c10::ClassTypePtr& type = code.type();
    auto object = Object::create(c10::StrongTypePtr(code.unit(), type), type->numAttributes());
    for (size_t i = 0; i < type->numAttributes(); ++i) {
      const std::string& name = type->getAttributeName(i);
      const Module::Slot* slot = module.find(name);
      if (slot == nullptr) {
        if (name == "training") {
          object->setSlot(i, module.training());
          continue;
        }
        return absl::FailedPreconditionError(absl::StrCat(
            shown(path), " (", module.type_name(), ") no longer has '", name,
            "', which its TorchScript class needs: a pass removed it from a module the graph "
            "calls"));
      }
      if (slot->kind == SlotKind::kModule) {
        auto sub = make(*slot->module, qualified_name(path, name));
        if (!sub.ok()) return sub.status();
        object->setSlot(i, sub->_ivalue());
      } else {
        // Read under the lock a call on another thread stores its code's values with.
        absl::StatusOr<c10::IValue> value = module.read_code_written(name);
        if (!value.ok()) return value.status();
        object->setSlot(i, *std::move(value));
      }
    }
    return torch::jit::Module(std::move(object));
  }

  absl::StatusOr<torch::jit::Module> of_new_class(const Module& module, const std::string& path) {
    if (unit_ == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          shown(path), " (", module.type_name(), ") has no TorchScript code (it was not read "
          "from a TorchScript file), so TorchScript cannot run it"));
    }
    torch::jit::Module out(c10::QualifiedName(absl::StrCat("__torch__.", module.type_name())),
                           unit_, /*shouldMangle=*/true);
    try {
      for (const Module::Slot& s : module.slots()) {
        switch (s.kind) {
          case SlotKind::kModule: {
            auto sub = make(*s.module, qualified_name(path, s.name));
            if (!sub.ok()) return sub.status();
            out.register_module(s.name, *sub);
            break;
          }
          case SlotKind::kParameter:
          case SlotKind::kBuffer:
            if (s.value.isTensor()) {
              out.register_parameter(s.name, s.value.toTensor(), s.kind == SlotKind::kBuffer);
              break;
            }
            [[fallthrough]];
          case SlotKind::kAttribute:
            out.register_attribute(s.name,
                                   s.value.isTensor() ? c10::TensorType::get() : s.value.type(),
                                   s.value);
            break;
        }
      }
      if (!module.contains("training")) {
        out.register_attribute("training", c10::BoolType::get(), module.training());
      }
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot make a TorchScript object of ", shown(path), ": ", first_line_of(e.what())));
    }
    return out;
  }

  std::shared_ptr<torch::jit::CompilationUnit> unit_;
  absl::flat_hash_map<const Module*, torch::jit::Module> made_;
};

// The attribute path from `self` to `v` ("" for self, "sub.inner" for
// self.sub.inner); nothing when `v` is not reached from self by attribute
// reads.
std::optional<std::string> path_from_self(const torch::jit::Value* v,
                                          const torch::jit::Value* self) {
  std::vector<std::string> parts;
  while (v != self) {
    const torch::jit::Node* n = v->node();
    if (n->kind() != c10::prim::GetAttr) return std::nullopt;
    parts.push_back(n->s(c10::attr::name));
    v = n->input(0);
  }
  std::reverse(parts.begin(), parts.end());
  return absl::StrJoin(parts, ".");
}

// The methods walked, by type and object path.
using VisitedMethods = absl::flat_hash_set<std::pair<const c10::ClassType*, std::string>>;

// Operators that change a list or dict in place (their first operand).
bool changes_container_in_place(c10::Symbol kind) {
  static const auto* kinds = new absl::flat_hash_set<c10::Symbol>{
      c10::Symbol::fromQualString("aten::append"),  c10::Symbol::fromQualString("aten::_set_item"),
      c10::Symbol::fromQualString("aten::insert"),  c10::Symbol::fromQualString("aten::pop"),
      c10::Symbol::fromQualString("aten::clear"),   c10::Symbol::fromQualString("aten::extend"),
      c10::Symbol::fromQualString("aten::remove"),  c10::Symbol::fromQualString("aten::update"),
      c10::Symbol::fromQualString("aten::setdefault"), c10::Symbol::fromQualString("aten::add_"),
      c10::Symbol::fromQualString("aten::sort"),    c10::Symbol::fromQualString("aten::reverse"),
      c10::Symbol::fromQualString("aten::popitem"), c10::Symbol::fromQualString("aten::Delete")};
  return kinds->contains(kind);
}

// What a call of `method` of `type` may change (TorchScriptClass::
// assigned_attributes), with `prefix` the path of its object from the
// called one; `visited` holds the (type, method) pairs walked.
void collect_assignments(const c10::ClassType& type, const std::string& method,
                         const std::string& prefix,
                         VisitedMethods& visited,
                         absl::btree_set<std::string>& out);

void collect_block(const torch::jit::Block* block, const torch::jit::Value* self,
                   const std::string& prefix,
                   VisitedMethods& visited,
                   absl::btree_set<std::string>& out) {
  for (const torch::jit::Node* n : block->nodes()) {
    for (const torch::jit::Block* b : n->blocks()) collect_block(b, self, prefix, visited, out);
    if (n->inputs().empty()) continue;
    // An object the code made (a context manager's state) is not reached from self.
    std::optional<std::string> object = path_from_self(n->input(0), self);
    if (!object) continue;
    if (n->kind() == c10::prim::SetAttr) {
      out.insert(qualified_name(prefix, qualified_name(*object, n->s(c10::attr::name))));
    } else if (changes_container_in_place(n->kind()) && !object->empty()) {
      const c10::TypeKind container = n->input(0)->type()->kind();
      if (container == c10::TypeKind::ListType || container == c10::TypeKind::DictType) {
        out.insert(qualified_name(prefix, *object));
      }
    } else if (n->kind() == c10::prim::CallMethod) {
      if (auto callee = n->input(0)->type()->cast<c10::ClassType>()) {
        collect_assignments(*callee, n->s(c10::attr::name), qualified_name(prefix, *object),
                            visited, out);
      }
    }
  }
}

void collect_assignments(const c10::ClassType& type, const std::string& method,
                         const std::string& prefix,
                         VisitedMethods& visited,
                         absl::btree_set<std::string>& out) {
  // Each method once per object path: a method that calls itself ends.
  if (!visited.emplace(&type, absl::StrCat(prefix, "|", method)).second) return;
  torch::jit::Function* function = type.findMethod(method);
  if (function == nullptr || !function->isGraphFunction()) return;
  torch::jit::GraphFunction& graph_function = torch::jit::toGraphFunction(*function);
  graph_function.ensure_defined();
  std::shared_ptr<torch::jit::Graph> graph = graph_function.graph();
  if (graph->inputs().empty()) return;
  collect_block(graph->block(), graph->inputs()[0], prefix, visited, out);
}

}  // namespace

const TorchScriptClass* torchscript_class(const Module& module) {
  return dynamic_cast<const TorchScriptClass*>(module.code().get());
}

const std::vector<std::string>& TorchScriptClass::assigned_attributes(
    const std::string& method) const {
  absl::MutexLock lock(&assigned_mu_);
  auto [it, inserted] = assigned_.try_emplace(method, nullptr);
  if (inserted) {
    absl::btree_set<std::string> found;
    VisitedMethods visited;
    if (method.empty()) {
      for (torch::jit::Function* m : type_->methods()) {
        if (m->name() != "__setstate__") collect_assignments(*type_, m->name(), "", visited, found);
      }
    } else {
      collect_assignments(*type_, method, "", visited, found);
    }
    it->second = std::make_unique<const std::vector<std::string>>(found.begin(), found.end());
  }
  return *it->second;
}

const std::vector<std::string>& TorchScriptClass::assigned_attributes() const {
  return assigned_attributes(std::string());
}

std::vector<std::string> attributes_code_assigns(const Module& module, const std::string& method) {
  const TorchScriptClass* code = torchscript_class(module);
  if (code == nullptr || method.empty()) return {};
  return code->assigned_attributes(method);
}

absl::StatusOr<std::shared_ptr<Module>> module_from_torchscript(
    const torch::jit::Module& module) {
  absl::flat_hash_map<const Object*, std::shared_ptr<Module>> made;
  return from_object(module._ivalue(), made);
}

absl::StatusOr<torch::jit::Module> torchscript_object(
    const Module& module, const std::shared_ptr<torch::jit::CompilationUnit>& unit) {
  // One maker at a time: two threads finding a module's object stale must
  // not make one each (each call would then change its own, and store into
  // the same slots). Objects are made when plans are compiled, not per call.
  static absl::Mutex* making = new absl::Mutex();
  absl::MutexLock lock(making);
  return ObjectMaker(unit).make(module, "");
}

}  // namespace fx
