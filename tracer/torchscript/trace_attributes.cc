// Copyright 2026 The FX for C++ Authors.
//
// Modules and their attributes: prim::GetAttr on a module yields a submodule
// (a Module value), a parameter or buffer (a get_attr node, made once per
// trace; an absent one, such as a convolution's bias=False, is the literal
// None, as torch.fx passes it), or a known value (flags, sizes, plain tensor
// attributes); tensor constants of the code become attributes of the
// GraphModule.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/naming.h"
#include "core/well_known.h"
#include "runtime/torchscript/script_calls.h"
#include "runtime/torchscript/script_module.h"
#include "tracer/torchscript/trace_engine.h"

namespace fx {
namespace tracer_internal {

const ModuleInfo* TraceEngine::module_info(const c10::intrusive_ptr<c10::ivalue::Object>& object,
                                           const std::string& qualname, const Module& state) {
  auto it = module_by_object_.find(object.get());
  if (it != module_by_object_.end()) return it->second;
  ModuleInfo& info = modules_.emplace_back();
  const c10::ClassTypePtr type = object->type();
  info.object = object;
  info.state = &state;
  info.qualname = qualname;
  const ModuleClass*& cls = classes_[type.get()];
  if (cls == nullptr) cls = &module_class_of(type);
  info.cls = cls;
  info.type = type.get();
  module_by_object_.emplace(object.get(), &info);
  return &info;
}

Node* TraceEngine::parameter_node(const std::string& qualname) {
  auto it = parameters_.find(qualname);
  if (it != parameters_.end()) return it->second;
  Node* n = tracer_.create_proxy(Op::kGetAttr, qualname, {}, {});
  parameters_.emplace(qualname, n);
  return n;
}

Node* TraceEngine::tensor_constant_node(const at::Tensor& t) {
  auto it = tensor_constants_.find(t.unsafeGetTensorImpl());
  if (it != tensor_constants_.end()) return it->second;
  const std::string name = gm_.add_tensor_constant(t);
  Node* n = tracer_.create_proxy(Op::kGetAttr, name, {}, {});
  tensor_constants_.emplace(t.unsafeGetTensorImpl(), n);
  return n;
}

absl::Status TraceEngine::run_get_attr(const jit::Node* n, Frame& frame) {
  Resolved& resolved = resolved_[n];
  if (resolved.name == nullptr) resolved.name = &n->s(c10::attr::name);
  const std::string& name = *resolved.name;
  const TraceValue& object = lookup(frame, n->input(0));
  if (object.is_known() && object.known_value().isObject()) {
    frame.values[n->output()] = TraceValue::known(object.known_value().toObjectRef().getAttr(name));
    return absl::OkStatus();
  }
  if (object.is_object()) {
    auto slot = object.object_type()->findAttributeSlot(name);
    if (!slot) return error(n, absl::StrCat("the object has no attribute '", name, "'"));
    TraceValue value = object.object_slots()[*slot];  // copied: inserting may move the table
    frame.values[n->output()] = std::move(value);
    return absl::OkStatus();
  }
  if (!object.is_module()) {
    return error(n, absl::StrCat("attribute '", name, "' is read from a value that is not a module"));
  }
  const ModuleInfo* owner = object.module_info();
  const c10::ivalue::Object& obj = *owner->object;
  const c10::ClassType& type = *owner->type;
  if (resolved.type != owner->type) {
    resolved.type = owner->type;
    resolved.slot = type.findAttributeSlot(name);
  }
  const c10::optional<size_t> slot = resolved.slot;
  if (!slot) {
    if (auto constant = type.findConstantSlot(name)) {
      frame.values[n->output()] = TraceValue::known(type.getConstant(*constant));
      return absl::OkStatus();
    }
    return error(n, absl::StrCat("module '", owner->qualname, "' has no attribute '", name, "'"));
  }
  auto qualname = [&] { return qualified_name(owner->qualname, name); };
  const c10::IValue& value = obj.getSlot(*slot);
  if (value.isObject()) {
    const auto& child = value.toObject();
    auto known = module_by_object_.find(child.get());
    if (known != module_by_object_.end()) {
      frame.values[n->output()] = TraceValue::module(known->second);
      return absl::OkStatus();
    }
    if (child->type()->is_module()) {
      // The object was made from the module tree (or the tree from it), slot
      // for slot: the submodule of the same name holds its state.
      const Module::Slot* held = owner->state->find(name);
      if (held == nullptr || held->kind != SlotKind::kModule) {
        return absl::InternalError(error(n, absl::StrCat("module '", qualname(), "' is not a "
                                                         "submodule in the GraphModule's module "
                                                         "tree")).message());
      }
      frame.values[n->output()] = TraceValue::module(module_info(child, qualname(), *held->module));
      return absl::OkStatus();
    }
  }
  const bool rebindable = may_be_rebound(owner, *slot);
  if (((type.is_parameter(*slot) || type.is_buffer(*slot)) && !value.isNone()) ||
      (rebindable && value.isTensor())) {
    auto [it, inserted] = attribute_nodes_.try_emplace(std::make_pair(owner, *slot), nullptr);
    if (inserted) it->second = parameter_node(qualname());
    // Its dtype, device and sizes are known now (TraceValue's `now`).
    frame.values[n->output()] = TraceValue::traced(it->second, value);
    return absl::OkStatus();
  }
  if (rebindable) fixed_rebindable_reads_.try_emplace(qualname(), n);
  if (value.isTensor()) {
    frame.values[n->output()] = TraceValue::known(value, &names_.emplace_back(qualname()));
  } else {
    frame.values[n->output()] = TraceValue::known(value);
  }
  return absl::OkStatus();
}

bool TraceEngine::may_be_rebound(const ModuleInfo* owner, size_t slot) {
  auto [it, inserted] = rebindable_.try_emplace(std::make_pair(owner, slot), false);
  if (inserted) {
    const std::string& name = owner->type->getAttributeName(slot);
    it->second = code_may_assign(gm_.root(), qualified_name(owner->qualname, name));
  }
  return it->second;
}

bool TraceEngine::forget_rebound_attributes(const ModuleInfo* module, const std::string& method) {
  const std::vector<std::string> assigned = attributes_code_assigns(*module->state, method);
  for (const std::string& attribute : assigned) {
    auto it = parameters_.find(qualified_name(module->qualname, attribute));
    if (it == parameters_.end()) continue;
    const Node* stale = it->second;
    parameters_.erase(it);
    absl::erase_if(attribute_nodes_, [stale](const auto& entry) { return entry.second == stale; });
  }
  return !assigned.empty();
}

absl::Status TraceEngine::check_fixed_reads_of_rebound_attributes(const Graph& graph) const {
  if (fixed_rebindable_reads_.empty()) return absl::OkStatus();
  absl::flat_hash_set<std::string> seen;
  for (const Node* call : graph.nodes()) {
    if (call->op() != Op::kCallModule) continue;
    const MetaValue* named = call->meta().find(kModuleMethodKey);
    const std::string method =
        named != nullptr && named->is_string() ? named->to_string() : std::string("forward");
    if (!seen.insert(absl::StrCat(call->target(), ".", method)).second) continue;
    auto module = gm_.get_submodule(call->target());
    if (!module.ok()) continue;
    for (const std::string& attribute : attributes_code_assigns(**module, method)) {
      auto read = fixed_rebindable_reads_.find(qualified_name(call->target(), attribute));
      if (read == fixed_rebindable_reads_.end()) continue;
      return error(read->second,
                   absl::StrCat("module '", call->target(), "' is called as a leaf (node '",
                                call->name(), "'), and its ", method, " changes attribute '",
                                read->first, "', which this code reads as a value that is not a "
                                "tensor: the graph would keep the value it had when traced"),
                   "return the value from the module's forward, or hold it in a tensor (a "
                   "buffer), which the graph reads at each run");
    }
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_set_attr(const jit::Node* n, Frame& frame) {
  const std::string& name = n->s(c10::attr::name);
  const TraceValue& object = lookup(frame, n->input(0));
  if (!object.is_object()) {
    return untraceable(n, absl::StrCat("forward assigns module attribute '", name,
                                       "', which cannot be traced"));
  }
  // An attribute of an object made in the code (a context manager's state).
  auto slot = object.object_type()->findAttributeSlot(name);
  if (!slot) return error(n, absl::StrCat("the object has no attribute '", name, "'"));
  object.object_slots()[*slot] = lookup(frame, n->input(1));
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
