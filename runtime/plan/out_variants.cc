// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/out_variants.h"

#include <mutex>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>

#include "absl/container/flat_hash_map.h"

namespace fx {
namespace {

bool is_plain_tensor(const c10::TypePtr& type) { return type->kind() == c10::TypeKind::TensorType; }

}  // namespace

bool is_functional_schema(const c10::FunctionSchema& s) {
  if (s.is_mutable() || s.is_vararg() || s.returns().size() != 1) return false;
  const c10::Argument& ret = s.returns()[0];
  if (!is_plain_tensor(ret.type()) || ret.alias_info() != nullptr) return false;
  for (const c10::Argument& a : s.arguments()) {
    if (a.alias_info() != nullptr) return false;
  }
  return true;
}

namespace {

bool is_out_of(const c10::FunctionSchema& out, const c10::FunctionSchema& functional) {
  const auto& f = functional.arguments();
  const auto& o = out.arguments();
  if (o.size() != f.size() + 1 || out.returns().size() != 1) return false;
  for (size_t i = 0; i < f.size(); ++i) {
    if (o[i].name() != f[i].name() || *o[i].type() != *f[i].type() ||
        o[i].kwarg_only() != f[i].kwarg_only()) {
      return false;
    }
  }
  const c10::Argument& extra = o.back();
  return extra.kwarg_only() && is_plain_tensor(extra.type()) && extra.alias_info() != nullptr &&
         extra.alias_info()->isWrite() && is_plain_tensor(out.returns()[0].type());
}

// A composite operator (one with no kernel of its own, defined by the ops it
// calls) allocates through those ops whatever its caller passes; its `.out`
// overload at best copies the result into `out` (aten::tensordot.out
// computes, then copies), which costs more than it saves.
bool is_composite(const c10::FunctionSchema& schema) {
  auto handle = c10::Dispatcher::singleton().findOp(
      c10::OperatorName(schema.name(), schema.overload_name()));
  return handle && handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd);
}

}  // namespace

std::optional<BoundOperator> find_out_variant(const c10::FunctionSchema& functional) {
  static std::mutex mutex;
  static auto* cache = new absl::flat_hash_map<std::string, std::optional<BoundOperator>>();
  const std::string key = operator_name(functional);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  std::optional<BoundOperator> found;
  if (is_functional_schema(functional) && !is_composite(functional)) {
    for (const BoundOperator& candidate : find_overloads(functional.name())) {
      if (is_out_of(*candidate.schema, functional)) {
        found = candidate;
        break;
      }
    }
  }
  cache->emplace(key, found);
  return found;
}

}  // namespace fx
