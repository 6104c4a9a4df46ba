// Copyright 2026 The FX for C++ Authors.
#include "runtime/graph_module.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/mutex.h"
#include "core/naming.h"
#include "core/printer.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/torchscript/script_calls.h"

namespace fx {
namespace {

}  // namespace

struct GraphModule::TreeGenerationCache {
  absl::Mutex mu;
  const Module* root ABSL_GUARDED_BY(mu) = nullptr;  // none walked yet
  uint64_t changes ABSL_GUARDED_BY(mu) = 0;
  uint64_t generation ABSL_GUARDED_BY(mu) = 0;
};

struct GraphModule::PlanSlot {
  absl::Mutex mu;
  std::shared_ptr<const ExecutionPlan> plan ABSL_GUARDED_BY(mu);
  uint64_t version ABSL_GUARDED_BY(mu) = 0;
};

std::shared_ptr<Module> empty_module(const std::string& class_name) {
  return std::make_shared<Module>(absl::StrCat("fx.", class_name));
}

GraphModule::GraphModule(std::shared_ptr<Module> root, std::unique_ptr<Graph> graph,
                         std::string class_name)
    : root_(std::move(root)),
      graph_(std::move(graph)),
      class_name_(std::move(class_name)),
      tree_generation_cache_(std::make_unique<TreeGenerationCache>()),
      plan_slot_(std::make_unique<PlanSlot>()) {}

GraphModule::GraphModule(GraphModule&&) noexcept = default;
GraphModule& GraphModule::operator=(GraphModule&&) noexcept = default;
GraphModule::~GraphModule() = default;

uint64_t GraphModule::version() const {
  return state_version_ + graph_->version() + root_tree_generation();
}

uint64_t GraphModule::root_tree_generation() const {
  // Read before the walk: a change during it moves the count again, and the
  // next call walks anew.
  const uint64_t changes = Module::changes_anywhere();
  TreeGenerationCache& cache = *tree_generation_cache_;
  absl::MutexLock lock(&cache.mu);
  if (cache.root != root_.get() || cache.changes != changes) {
    cache.generation = root_->tree_generation();
    cache.root = root_.get();
    cache.changes = changes;
  }
  return cache.generation;
}

void GraphModule::replace_state_tensors(const std::function<at::Tensor(const at::Tensor&)>& replace) {
  state_version_ = version() + 1;
  drop_plan();
  for (auto& [name, value] : own_attributes_) {
    if (value.isTensor()) value = replace(value.toTensor());
  }
  root_->replace_tensors(replace);
  for (auto& [name, submodule] : graph_submodules_) submodule->replace_state_tensors(replace);
}

void GraphModule::set_graph(std::unique_ptr<Graph> graph) {
  state_version_ = version() + 1;
  graph_ = std::move(graph);
  drop_plan();
}

absl::StatusOr<c10::IValue> GraphModule::get_attr(absl::string_view qualified_name) const {
  if (auto it = own_attributes_.find(qualified_name); it != own_attributes_.end()) {
    return it->second;
  }
  return root_->get_attr(qualified_name);
}

absl::StatusOr<std::shared_ptr<Module>> GraphModule::get_submodule(
    absl::string_view qualified_name) const {
  if (qualified_name.empty()) return root_;
  return root_->get_submodule(qualified_name);
}

void GraphModule::touch() {
  ++state_version_;
  drop_plan();
}

bool GraphModule::has_submodule(absl::string_view qualified_name) const {
  return get_submodule(qualified_name).ok();
}

absl::Status GraphModule::add_graph_submodule(const std::string& name,
                                              std::shared_ptr<GraphModule> module) {
  if (!is_python_identifier(name) || is_python_keyword(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "graph submodule name '", name, "' is not an identifier; use a name like submod_0"));
  }
  if (module == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("graph submodule '", name, "' is null"));
  }
  if (graph_submodule(name) != nullptr || name_taken_by_state(name)) {
    return absl::AlreadyExistsError(absl::StrCat("submodule '", name, "' already exists"));
  }
  graph_submodules_.emplace_back(name, std::move(module));
  ++state_version_;
  return absl::OkStatus();
}

const GraphModule* GraphModule::graph_submodule(absl::string_view name) const {
  for (const auto& [n, m] : graph_submodules_) {
    if (n == name) return m.get();
  }
  return nullptr;
}

GraphModule* GraphModule::graph_submodule(absl::string_view name) {
  for (auto& [n, m] : graph_submodules_) {
    if (n == name) return m.get();
  }
  return nullptr;
}

bool GraphModule::name_taken_by_state(absl::string_view name) const {
  // `training` is every module's flag, and a slot of TorchScript classes.
  return own_attributes_.contains(name) || root_->contains(name) || name == "training";
}

absl::Status GraphModule::add_attribute(const std::string& name, c10::IValue value) {
  if (name_taken_by_state(name)) {
    return absl::AlreadyExistsError(absl::StrCat("attribute '", name, "' already exists"));
  }
  own_attributes_.emplace(name, std::move(value));
  ++state_version_;
  return absl::OkStatus();
}

std::string GraphModule::add_tensor_constant(at::Tensor value) {
  std::string name;
  do {
    name = absl::StrCat("_tensor_constant", next_tensor_constant_++);
  } while (name_taken_by_state(name));
  own_attributes_.emplace(name, std::move(value));
  ++state_version_;
  return name;
}

absl::Status GraphModule::lint() const {
  if (absl::Status s = graph_->lint(); !s.ok()) return s;
  for (const Node* n : graph_->nodes()) {
    if (n->op() == Op::kGetAttr) {
      auto v = get_attr(n->target());
      if (!v.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("lint: get_attr node '", n->name(), "' refers to a missing attribute ",
                         v.status().message()));
      }
    } else if (n->op() == Op::kCallModule) {
      if (const GraphModule* sub = graph_submodule(n->target())) {
        if (absl::Status s = sub->lint(); !s.ok()) {
          return absl::FailedPreconditionError(absl::StrCat(
              "lint: graph submodule '", n->target(), "' (called by node '", n->name(),
              "'): ", s.message()));
        }
        continue;
      }
      auto m = get_submodule(n->target());
      if (!m.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("lint: call_module node '", n->name(), "' refers to a missing submodule ",
                         m.status().message()));
      }
    }
  }
  return absl::OkStatus();
}

std::string GraphModule::code() const { return python_code(*graph_); }

void GraphModule::drop_plan() {
  if (!plan_slot_) return;  // moved from
  absl::MutexLock lock(&plan_slot_->mu);
  plan_slot_->plan.reset();
}

absl::StatusOr<c10::IValue> GraphModule::forward(std::vector<c10::IValue> inputs) {
  if (!plan_slot_) {
    return absl::FailedPreconditionError("this GraphModule was moved from: call the one it was moved to");
  }
  std::shared_ptr<const ExecutionPlan> plan;
  {
    // Compiled under the lock: one compilation per version, the other
    // callers waiting for it rather than compiling their own.
    absl::MutexLock lock(&plan_slot_->mu);
    const uint64_t now = version();
    if (!plan_slot_->plan || plan_slot_->version != now) {
      auto compiled = ExecutionPlan::compile(*this);
      if (!compiled.ok()) return compiled.status();
      plan_slot_->plan = *std::move(compiled);
      plan_slot_->version = now;
    }
    plan = plan_slot_->plan;
  }
  return plan->run(std::move(inputs));
}

absl::StatusOr<GraphModule> GraphModule::from_referenced(const GraphModule& source,
                                                         std::unique_ptr<Graph> graph,
                                                         std::string class_name,
    std::vector<std::pair<std::string, std::shared_ptr<GraphModule>>> graph_submodules) {
  GraphModule result(empty_module(class_name), std::move(graph), class_name);
  result.root_->set_training(source.root_->training());
  for (auto& [name, sub] : graph_submodules) {
    if (absl::Status s = result.add_graph_submodule(name, std::move(sub)); !s.ok()) return s;
  }
  if (absl::Status s = result.adopt_referenced(source); !s.ok()) return s;
  result.script_functions_ = source.script_functions_;
  return result;
}

absl::Status GraphModule::delete_unused_attributes() {
  // The pruned root keeps its class name, not its code: the code may need
  // what was dropped.
  GraphModule fresh(std::make_shared<Module>(root_->type_name(), root_->training()), nullptr,
                    class_name_);
  fresh.graph_.reset(graph_.release());
  absl::Status s = fresh.adopt_referenced(*this);
  graph_.reset(fresh.graph_.release());
  if (!s.ok()) return s;
  // The new root holds a subset of the old one: equal sizes mean nothing was
  // unused, and the module stays as it is (and its version with it).
  if (fresh.root_->count_slots() == root_->count_slots() &&
      fresh.own_attributes_.size() == own_attributes_.size() &&
      fresh.graph_submodules_.size() == graph_submodules_.size()) {
    return absl::OkStatus();
  }
  const uint64_t old_version = version();
  root_ = fresh.root_;
  own_attributes_ = std::move(fresh.own_attributes_);
  graph_submodules_ = std::move(fresh.graph_submodules_);
  drop_plan();
  // The new root's tree sums less than the old one's; unsigned arithmetic
  // wraps, and version() comes out one past the old.
  state_version_ = old_version + 1 - graph_->version() - root_tree_generation();
  return absl::OkStatus();
}

absl::Status GraphModule::adopt_referenced(const GraphModule& source) {
  // Intermediate modules created so far, by qualified name; their classes
  // are named after the path, made identifiers (`block1-0` -> `block1_0`) and
  // unique, below the root's.
  absl::flat_hash_map<std::string, Module*> made;
  made.emplace("", root_.get());
  Namespace class_names;
  auto parent_of = [&](const std::vector<absl::string_view>& atoms) -> Module* {
    std::string path;
    Module* current = root_.get();
    for (size_t i = 0; i + 1 < atoms.size(); ++i) {
      const std::string next = qualified_name(path, atoms[i]);
      auto it = made.find(next);
      if (it == made.end()) {
        auto child = std::make_shared<Module>(
            absl::StrCat(root_->type_name(), ".", class_names.create_name(next)),
            root_->training());
        if (absl::Status s = current->register_module(std::string(atoms[i]), child); !s.ok()) {
          return nullptr;
        }
        it = made.emplace(next, child.get()).first;
      }
      current = it->second;
      path = next;
    }
    return current;
  };

  // What each node needs: its target, or, for an attribute a module's code
  // may rebind (`self.prev = x`), the module holding it, shared whole, so
  // that the graph reads what the code stores there, not a copy of one value.
  struct Reference {
    const Node* node;
    std::string target;
  };
  std::vector<Reference> referencing;
  for (const Node* n : graph_->nodes()) {
    if (n->op() != Op::kGetAttr && n->op() != Op::kCallModule) continue;
    const std::string& target = n->target();
    const size_t dot = target.rfind('.');
    const bool held_whole = n->op() == Op::kGetAttr && dot != std::string::npos &&
                            !source.own_attributes_.contains(target) &&
                            code_may_assign(*source.root_, target);
    referencing.push_back({n, held_whole ? target.substr(0, dot) : target});
  }
  // Shallow targets first, so that a referenced module is in place before
  // anything below it; targets inside a referenced module come with it.
  std::stable_sort(referencing.begin(), referencing.end(),
                   [](const Reference& a, const Reference& b) {
                     return std::count(a.target.begin(), a.target.end(), '.') <
                            std::count(b.target.begin(), b.target.end(), '.');
                   });
  absl::flat_hash_set<std::string> taken_whole;
  auto inside_taken = [&](const std::vector<absl::string_view>& atoms) {
    std::string path;
    for (absl::string_view atom : atoms) {
      path = qualified_name(path, atom);
      if (taken_whole.contains(path)) return true;
    }
    return false;
  };
  for (const auto& [n, target] : referencing) {
    const std::vector<absl::string_view> atoms = qualified_name_atoms(target);
    if (atoms.empty() || inside_taken(atoms) || own_attributes_.contains(target)) continue;
    if (n->op() == Op::kCallModule) {
      if (graph_submodule(target) != nullptr) continue;
      if (const auto it = std::find_if(
              source.graph_submodules_.begin(), source.graph_submodules_.end(),
              [&](const auto& entry) { return entry.first == target; });
          it != source.graph_submodules_.end()) {
        graph_submodules_.push_back(*it);
        continue;
      }
    }
    if (auto own = source.own_attributes_.find(target); own != source.own_attributes_.end()) {
      own_attributes_.emplace(target, own->second);
      continue;
    }
    auto slot = source.root_->find_qualified(target);
    if (!slot.ok()) {
      return absl::NotFoundError(absl::StrCat("node '", n->name(), "' refers to ", target,
                                              ", which the source module lacks: ",
                                              slot.status().message()));
    }
    Module* parent = parent_of(atoms);
    if (parent == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", n->name(), "' refers to ", target, ", below an attribute that is not a module"));
    }
    const std::string leaf(atoms.back());
    if (parent->contains(leaf)) continue;
    taken_whole.insert(target);
    // Parameters stay parameters, buffers buffers; modules are shared whole.
    const Module::Slot& s = **slot;
    absl::Status added = s.kind == SlotKind::kModule ? parent->register_module(leaf, s.module)
                                                     : parent->register_value(leaf, s.kind, s.value);
    if (!added.ok()) return added;
  }
  return absl::OkStatus();
}

absl::Status GraphModule::check_storable(absl::string_view format, bool for_pytorch) const {
  for (const Node* n : graph_->nodes()) {
    if (for_pytorch && n->op() == Op::kCallFunction &&
        (absl::StartsWith(n->target(), "fx::") || absl::StartsWith(n->target(), "fx_mkldnn::"))) {
      const absl::string_view pass = absl::StartsWith(n->target(), "fx_mkldnn::")
                                         ? "mkldnn_layout"
                                     : absl::StartsWith(n->target(), "fx::compiled_")
                                         ? "fuse_elementwise and compile"
                                         : "fuse_elementwise";
      return absl::FailedPreconditionError(absl::StrCat(
          "node '", n->name(), "' calls ", n->target(), ", an operator of FX for C++'s runtime "
          "(made by ", pass, ") that PyTorch does not have, so ", format,
          " cannot hold it: save the graph before ", pass, ", and run ", pass,
          " after loading it"));
    }
    if (n->op() != Op::kGetAttr) continue;
    auto value = get_attr(n->target());
    if (!value.ok() || !value->isTensor() || !value->toTensor().is_mkldnn()) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "attribute '", n->target(), "' is an MKLDNN tensor (oneDNN's opaque layout, made by the "
        "mkldnn_layout or mkldnn_fusion pass), which ", format, " cannot store: save the graph "
        "before mkldnn_layout or mkldnn_fusion and run the pass after loading it"));
  }
  return absl::OkStatus();
}

}  // namespace fx
