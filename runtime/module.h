// Copyright 2026 The FX for C++ Authors.
//
// module.h: the state a GraphModule's graph refers to, as a tree of modules.
//
// torch.nn.Module keeps its state in `_parameters`, `_buffers`, `_modules` and
// plain attributes; a Module here keeps the same as one ordered list of named
// slots, so that `get_attr` and `call_module` targets ("layer1.0.conv1.weight")
// resolve as they do in PyTorch. It is FX for C++'s own type, as NativeRT keeps
// weights in its own: file formats fill it (a .pt2's weights by their fully
// qualified names, a TorchScript module's objects) and are written from it.
//
//   auto root = std::make_shared<fx::Module>("torch.nn.modules.linear.Linear");
//   absl::Status s = root->register_parameter("weight", torch::rand({4, 3}));
//   absl::StatusOr<c10::IValue> w = root->get_attr("weight");
//
// Contracts:
//   * Modules are shared, not copied: GraphModules made from one another hold
//     the same submodules, and tensors are handles (a tensor registered in two
//     places, as tied weights are, is one tensor). with_tensors() copies the
//     tree where tensors must differ (a plan's state on the GPU).
//   * A module the graph calls (call_module of a module the tracer did not
//     enter) runs code from the format it was read from: code() is that format's
//     (a TorchScript class for a module read from a .pt), and the runtime calls
//     it with the module's slots as they are at the call. A module without code
//     holds state only.
//   * Every change to a module's slots or flag advances its generation();
//     tree_generation() sums the tree's, so a GraphModule's version() (and
//     with it its plan) follows changes made anywhere below its root. One
//     change does not: what a module's own code assigns when the runtime
//     calls it (store_code_written), which its code object already holds.
//   * Names are one atom ("weight", "0"); qualified names join atoms with dots.
//     Errors name the qualified name and the module that lacks the atom.
#ifndef FX_RUNTIME_MODULE_H_
#define FX_RUNTIME_MODULE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/export.h"

namespace fx {

// How a module holds a slot, as torch.nn.Module sorts them.
enum class SlotKind {
  kParameter,  // _parameters: a tensor optimisers see
  kBuffer,     // _buffers: a tensor of the state (running_mean)
  kAttribute,  // any other value (a tensor constant, an int, a script object)
  kModule,     // _modules: a submodule
};

// The code a module's forward runs, in the format the module was read from.
// Formats subclass it (runtime/torchscript/script_module.h).
class FX_API ModuleCode {
 public:
  virtual ~ModuleCode();
  // The format, for messages: "TorchScript".
  virtual std::string format() const = 0;
};

class FX_API Module {
 public:
  struct Slot {
    std::string name;
    SlotKind kind = SlotKind::kAttribute;
    c10::IValue value;               // unless kModule
    std::shared_ptr<Module> module;  // kModule only
  };

  // `type_name` is the Python class: "torch.nn.modules.conv.Conv2d".
  explicit Module(std::string type_name, bool training = false);

  const std::string& type_name() const { return type_name_; }
  // The class name alone: "Conv2d".
  std::string class_name() const;
  bool training() const { return training_; }
  void set_training(bool training);
  const std::shared_ptr<const ModuleCode>& code() const { return code_; }
  void set_code(std::shared_ptr<const ModuleCode> code) { code_ = std::move(code); }

  // This module's own slots, in the order registered.
  const std::vector<Slot>& slots() const { return slots_; }
  // The slot `name` (one atom), or nullptr.
  const Slot* find(absl::string_view name) const;
  bool contains(absl::string_view name) const { return find(name) != nullptr; }

  // Each fails, naming the slot, when `name` is not one atom or is taken.
  absl::Status register_parameter(const std::string& name, at::Tensor value);
  absl::Status register_buffer(const std::string& name, at::Tensor value);
  absl::Status register_attribute(const std::string& name, c10::IValue value);
  absl::Status register_module(const std::string& name, std::shared_ptr<Module> module);
  // Registers `value` as a slot of `kind` (not kModule).
  absl::Status register_value(const std::string& name, SlotKind kind, c10::IValue value);
  // Replaces the value of the parameter, buffer or attribute `name`, keeping
  // its kind and place. Fails when there is none.
  absl::Status set_value(absl::string_view name, c10::IValue value);

  // Advances with every change to this module's slots or training flag.
  uint64_t generation() const { return generation_; }
  // The sum of generation() over the tree (a module held in two places
  // counts twice): it advances with any change below, and only grows, as
  // slots are never removed. Walks the tree.
  uint64_t tree_generation() const;
  // Advances with every change to any Module of the process (and with every
  // new one): while it stands still, no tree_generation() has moved, so a
  // caller caches tree_generation() under it (GraphModule::version).
  static uint64_t changes_anywhere();

  // The object the module's code runs on (a TorchScript object: script_module.cc),
  // made by the code's format from the slots when tree_generation() was
  // `generation`, kept so that every call of the module, from every plan,
  // runs on one object, as on one nn.Module. Thread-safe.
  struct CodeObject {
    uint64_t generation = 0;
    std::shared_ptr<void> object;  // null: none made yet
  };
  CodeObject code_object() const;
  void set_code_object(CodeObject object) const;

  // State the module's own code assigns anew when the runtime calls it (a
  // leaf's `self.prev = x * 1.0`, a streaming state; `self.count += 1`).
  // The runtime runs such code one call at a time (script_calls.cc), and
  // after each call stores the object's new values into the slots of the
  // modules that hold them, so that slots and object agree: a graph's
  // get_attr after the call, a pass, a copy to another device and an export
  // all see the new value. A store does not advance generation(): the code
  // object already holds the value, and a plan reads such slots at each run
  // (read_code_written), not once when compiled. get_attr(), named_tensors()
  // and with_tensors() read values under the same lock; slots() and find()
  // hand out the slots themselves, to read while no run stores (as a pass
  // does, which no run may overlap).
  // Replaces the value of the parameter, buffer or attribute `name` (one
  // atom) of this module by what its code assigned. Fails, naming it, when
  // there is none, and for a parameter or buffer given a value that is not a
  // tensor or None.
  absl::Status store_code_written(absl::string_view name, c10::IValue value) const;
  // The value of the parameter, buffer or attribute `name` (one atom) as the
  // last store, or registration, left it.
  absl::StatusOr<c10::IValue> read_code_written(absl::string_view name) const;

  // The slot at the qualified name `qualified_name` ("layer1.0.conv1.weight");
  // an error naming the module that lacks an atom, or the attribute that is
  // not a module.
  absl::StatusOr<const Slot*> find_qualified(absl::string_view qualified_name) const;
  // The value of the parameter, buffer or attribute at `qualified_name`.
  absl::StatusOr<c10::IValue> get_attr(absl::string_view qualified_name) const;
  // The submodule at `qualified_name` ("" is this module).
  absl::StatusOr<std::shared_ptr<Module>> get_submodule(absl::string_view qualified_name);
  absl::StatusOr<std::shared_ptr<const Module>> get_submodule(
      absl::string_view qualified_name) const;

  // This module ("") and every module below it, each once, depth first in
  // slot order, with qualified names (torch's named_modules()).
  std::vector<std::pair<std::string, const Module*>> named_modules() const;
  // The tensors of the tree (parameters, buffers and tensor attributes, or
  // parameters only), with qualified names, each tensor once, in
  // named_modules() order (torch's named_parameters() and the state).
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() const;
  std::vector<std::pair<std::string, at::Tensor>> named_tensors() const;
  // The number of slots in the tree, submodules' included.
  size_t count_slots() const;

  // Replaces, in place, every tensor of the tree by `replace(tensor)`: once
  // per place it is held (memoise in `replace` to keep sharing).
  void replace_tensors(const std::function<at::Tensor(const at::Tensor&)>& replace);
  // Replaces, in place, the value of every parameter, buffer and attribute
  // of the tree by `replace(value)`, once per place.
  void replace_values(const std::function<c10::IValue(const c10::IValue&)>& replace);
  // A copy of the tree whose tensors are `replace(tensor)`: modules shared in
  // the tree stay shared in the copy, a tensor held in several places is
  // replaced once, and code is shared. When `replace` returns every tensor as
  // it was, the copy still is one (a caller that wants no copy checks first).
  std::shared_ptr<Module> with_tensors(
      const std::function<at::Tensor(const at::Tensor&)>& replace) const;

 private:
  // Records a change: advances generation() and changes_anywhere().
  void changed();
  Slot* find_mutable(absl::string_view name);
  absl::Status check_new_name(const std::string& name) const;

  std::string type_name_;
  bool training_ = false;
  std::shared_ptr<const ModuleCode> code_;
  std::vector<Slot> slots_;
  uint64_t generation_ = 0;
  mutable absl::Mutex code_object_mu_;
  mutable CodeObject code_object_ ABSL_GUARDED_BY(code_object_mu_);
  // Held while store_code_written changes a slot's value, and by the readers
  // of values above.
  mutable absl::Mutex code_written_mu_;
};

// A one-line description of a slot's kind: "parameter", "buffer", ...
FX_API const char* slot_kind_name(SlotKind kind);

}  // namespace fx

#endif  // FX_RUNTIME_MODULE_H_
