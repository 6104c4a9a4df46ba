// Copyright 2026 The FX for C++ Authors.
#include "tracer/torchscript/call_effects.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <memory>
#include <sstream>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "tracer/torchscript/alias_tracker.h"

namespace fx {
namespace tracer_internal {
namespace {

namespace jit = torch::jit;

// Values TorchScript can fold as constants.
bool is_primitive(const c10::IValue& v) {
  return v.isNone() || v.isBool() || v.isInt() || v.isDouble() || v.isString() || v.isDevice();
}


template <typename Fn>
void for_each_node(jit::Block* block, const Fn& fn) {
  for (jit::Node* n : block->nodes()) {
    fn(n);
    for (jit::Block* b : n->blocks()) for_each_node(b, fn);
  }
}

// Replaces reads of `self`'s primitive attributes (through submodules too)
// with constants.
void fold_attributes(jit::Graph& graph, const c10::intrusive_ptr<c10::ivalue::Object>& self) {
  absl::flat_hash_map<const jit::Value*, c10::intrusive_ptr<c10::ivalue::Object>> objects;
  objects.emplace(graph.inputs()[0], self);
  std::vector<jit::Node*> attribute_reads;
  for_each_node(graph.block(), [&](jit::Node* n) {
    if (n->kind() != c10::prim::GetAttr) return;
    auto owner = objects.find(n->input(0));
    if (owner == objects.end()) return;
    const c10::IValue value = owner->second->getAttr(n->s(c10::attr::name));
    if (value.isObject()) {
      objects.emplace(n->output(), value.toObject());
    } else if (is_primitive(value)) {
      attribute_reads.push_back(n);
    }
  });
  for (jit::Node* n : attribute_reads) {
    auto owner = objects.find(n->input(0));
    const c10::IValue value = owner->second->getAttr(n->s(c10::attr::name));
    jit::WithInsertPoint guard(n);
    n->output()->replaceAllUsesWith(graph.insertConstant(value));
  }
}

// The ScalarType, Layout or MemoryFormat type of the operator parameters
// that `v` (an int, or an Optional of one) is passed to, through the casts
// TorchScript's Optional refinement inserts; nullptr when it reaches none.
c10::TypePtr literal_type_of(const jit::Value* v, int depth = 0) {
  if (depth > 8) return nullptr;
  for (const jit::Use& use : v->uses()) {
    const jit::Node* user = use.user;
    if (user->kind() == c10::prim::unchecked_cast ||
        user->kind() == c10::prim::unchecked_unwrap_optional ||
        user->kind() == c10::aten::_unwrap_optional) {
      if (c10::TypePtr t = literal_type_of(user->output(), depth + 1)) return t;
      continue;
    }
    const c10::FunctionSchema* schema = user->maybeSchema();
    if (schema == nullptr || use.offset >= schema->arguments().size()) continue;
    c10::TypePtr t = schema->arguments()[use.offset].real_type();
    if (t->kind() == c10::TypeKind::OptionalType) t = t->expectRef<c10::OptionalType>().getElementType();
    if (t->kind() == c10::TypeKind::ScalarTypeType || t->kind() == c10::TypeKind::LayoutType ||
        t->kind() == c10::TypeKind::MemoryFormatType) {
      return t;
    }
  }
  return nullptr;
}

CallEffects analyze(std::shared_ptr<jit::Graph> graph,
                    const c10::intrusive_ptr<c10::ivalue::Object>& self,
                    const std::vector<c10::optional<c10::IValue>>& known) {
  jit::Inline(*graph);
  const size_t first = self ? 1 : 0;
  // Before known values replace the inputs: what an int input stands for.
  std::vector<c10::TypePtr> literal_types;
  for (size_t i = first; i < graph->inputs().size(); ++i) {
    const c10::TypePtr& type = graph->inputs()[i]->type();
    const bool int_like = type->kind() == c10::TypeKind::IntType ||
                          (type->kind() == c10::TypeKind::OptionalType &&
                           type->expectRef<c10::OptionalType>().getElementType()->kind() ==
                               c10::TypeKind::IntType);
    literal_types.push_back(int_like ? literal_type_of(graph->inputs()[i]) : nullptr);
  }
  if (self) fold_attributes(*graph, self);
  for (size_t i = 0; i < known.size() && first + i < graph->inputs().size(); ++i) {
    if (!known[i] || !is_primitive(*known[i])) continue;
    jit::WithInsertPoint guard(graph->block()->nodes().front());
    graph->inputs()[first + i]->replaceAllUsesWith(graph->insertConstant(*known[i]));
  }
  jit::ConstantPropagation(graph);
  jit::EliminateDeadCode(graph);

  jit::AliasDb db(graph);
  const size_t count = graph->inputs().size() - first;
  CallEffects effects;
  effects.writes.assign(count, false);
  effects.aliased.assign(count, false);
  effects.literal_types = std::move(literal_types);
  for (size_t i = 0; i < count; ++i) {
    jit::Value* input = graph->inputs()[first + i];
    jit::ValueSet inputs = {input};
    for_each_node(graph->block(), [&](jit::Node* n) {
      if (db.writesToAlias(n, inputs)) effects.writes[i] = true;
      // An operator whose result may be its input although its schema does
      // not say so (alias_tracker.h), between the input and the result.
      if (n->maybeSchema() == nullptr || !may_share_an_input(n->schema().name())) return;
      bool from_input = false;
      for (jit::Value* operand : n->inputs()) {
        from_input = from_input || db.mayContainAlias(operand, input);
      }
      bool to_result = false;
      for (jit::Value* result : n->outputs()) {
        to_result = to_result || db.mayContainAlias(result, graph->outputs());
      }
      if (from_input && to_result) effects.aliased[i] = true;
    });
    if (db.mayContainAlias(input, graph->outputs())) effects.aliased[i] = true;
  }
  return effects;
}

// A key for the known values (primitive ones; anything else as its kind).
std::string known_key(const std::vector<c10::optional<c10::IValue>>& known) {
  std::ostringstream key;
  for (const auto& v : known) {
    if (!v) {
      key << "?|";
    } else if (is_primitive(*v)) {
      key << v->tagKind() << ":" << *v << "|";
    } else {
      key << v->tagKind() << "|";
    }
  }
  return key.str();
}

// The primitive attributes of a module tree, in slot order.
void attribute_key(const c10::ivalue::Object& object, std::ostringstream& key) {
  for (size_t i = 0; i < object.slots().size(); ++i) {
    const c10::IValue& v = object.getSlot(i);
    if (is_primitive(v)) {
      key << i << "=" << v << ";";
    } else if (v.isObject()) {
      key << i << "{";
      attribute_key(v.toObjectRef(), key);
      key << "}";
    }
  }
}

// The analyses, by callee (a type or a function) and known values, for as
// long as the callee's owner (the class type, or the compilation unit that
// holds the function) lives: an entry does not keep its owner alive, so a
// process that loads models one after another holds the analyses of the
// models it still has, not of every model it ever loaded. An entry whose
// owner is gone is recomputed if its address comes back (a new type at the
// old one's address), and every so often all such entries are dropped.
struct Cache {
  struct Entry {
    std::weak_ptr<const void> owner;
    std::unique_ptr<CallEffects> effects;
  };
  absl::Mutex mu;
  absl::flat_hash_map<std::pair<const void*, std::string>, Entry> entries ABSL_GUARDED_BY(mu);
  size_t inserted_since_sweep ABSL_GUARDED_BY(mu) = 0;

  // The entry for `key`, owned by `owner`, computed by `compute` when it is
  // missing or stale.
  template <typename Compute>
  const CallEffects& find_or_compute(std::pair<const void*, std::string> key,
                                     std::shared_ptr<const void> owner, Compute compute)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    auto [it, inserted] = entries.try_emplace(std::move(key));
    if (!inserted && it->second.owner.expired()) inserted = true;
    if (inserted) {
      it->second.owner = owner;
      it->second.effects = std::make_unique<CallEffects>(compute());
      if (++inserted_since_sweep >= 256) {
        inserted_since_sweep = 0;
        const CallEffects* kept = it->second.effects.get();  // its owner is alive
        for (auto e = entries.begin(); e != entries.end();) {
          if (e->second.owner.expired()) {
            entries.erase(e++);
          } else {
            ++e;
          }
        }
        return *kept;
      }
    }
    return *it->second.effects;
  }
};

Cache& cache() {
  static Cache* c = new Cache();
  return *c;
}

}  // namespace

const CallEffects& module_call_effects(const torch::jit::Module& module, const std::string& method) {
  const c10::ClassTypePtr type = module.type();
  std::ostringstream key;
  key << method << ":";
  attribute_key(*module._ivalue(), key);
  Cache& c = cache();
  absl::MutexLock lock(&c.mu);
  return c.find_or_compute(std::make_pair(type.get(), key.str()), type, [&]() -> CallEffects {
    jit::Function* forward = type->findMethod(method);
    if (forward == nullptr) return CallEffects();
    return analyze(jit::toGraphFunction(*forward).graph()->copy(), module._ivalue(), {});
  });
}

const CallEffects& function_call_effects(const std::shared_ptr<torch::jit::CompilationUnit>& unit,
                                         torch::jit::Function& function,
                                         const std::vector<c10::optional<c10::IValue>>& known) {
  Cache& c = cache();
  absl::MutexLock lock(&c.mu);
  return c.find_or_compute(std::make_pair(&function, known_key(known)), unit, [&] {
    return analyze(jit::toGraphFunction(function).graph()->copy(), {}, known);
  });
}

}  // namespace tracer_internal
}  // namespace fx
