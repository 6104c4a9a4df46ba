// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_functions.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include "runtime/torchscript/script_calls.h"

namespace fx {
namespace {

// What TorchScript puts in a qualified name it compiled twice (a function of
// several overloads): `...functional.___torch_mangle_475.interpolate`.
constexpr absl::string_view kMangleAtom = "___torch_mangle_";

// `gm`'s table, copied first when it is shared, made when absent.
ScriptFunctions& own_table(GraphModule& gm) {
  const std::shared_ptr<const ScriptFunctions>& held = gm.script_functions();
  // Held by `gm` alone: changed in place (every table is made non-const,
  // here, so the cast is sound), not copied at each function the tracer adds.
  if (held != nullptr && held.use_count() == 1) return const_cast<ScriptFunctions&>(*held);
  auto table = held != nullptr ? std::make_shared<ScriptFunctions>(*held)
                               : std::make_shared<ScriptFunctions>();
  ScriptFunctions& out = *table;
  gm.set_script_functions(std::move(table));
  return out;
}

}  // namespace

void add_script_function(GraphModule& gm, const std::string& target,
                         torch::jit::StrongFunctionPtr function) {
  if (const ScriptFunctions* t = gm.script_functions().get()) {
    if (auto it = t->by_target.find(target); it != t->by_target.end()) {
      for (const auto& f : it->second) {
        if (f.function_ == function.function_) return;
      }
    }
  }
  own_table(gm).by_target[target].push_back(std::move(function));
}

void set_script_unit(GraphModule& gm, std::shared_ptr<torch::jit::CompilationUnit> unit) {
  own_table(gm).unit = std::move(unit);
}

std::vector<torch::jit::Function*> find_script_functions(const GraphModule& gm,
                                                         absl::string_view target) {
  std::vector<torch::jit::Function*> out;
  if (const ScriptFunctions* t = gm.script_functions().get()) {
    if (auto it = t->by_target.find(target); it != t->by_target.end()) {
      for (const auto& f : it->second) out.push_back(f.function_);
    }
  }
  return out;
}

std::vector<const c10::FunctionSchema*> leaf_function_schemas(const GraphModule& gm,
                                                             absl::string_view target) {
  std::vector<const c10::FunctionSchema*> out;
  for (torch::jit::Function* f : find_script_functions(gm, target)) {
    out.push_back(&f->getSchema());
  }
  return out;
}

bool has_script_function(const GraphModule& gm, absl::string_view target) {
  const ScriptFunctions* t = gm.script_functions().get();
  return t != nullptr && t->by_target.contains(target);
}

std::shared_ptr<torch::jit::CompilationUnit> script_unit(const GraphModule& gm) {
  const ScriptFunctions* t = gm.script_functions().get();
  return t != nullptr ? t->unit : nullptr;
}

std::vector<torch::jit::Function*> find_unit_functions(const GraphModule& gm,
                                                       absl::string_view target) {
  std::vector<torch::jit::Function*> out;
  const std::shared_ptr<torch::jit::CompilationUnit> unit = script_unit(gm);
  if (unit == nullptr) return out;
  const std::string name = absl::StartsWith(target, "__torch__.")
                               ? std::string(target)
                               : absl::StrCat("__torch__.", target);
  for (torch::jit::Function* f : unit->get_functions()) {
    const std::string& qualified = f->qualname().qualifiedName();
    if (qualified == name) {
      out.push_back(f);
    } else if (absl::StrContains(qualified, kMangleAtom)) {
      std::vector<absl::string_view> atoms;
      for (absl::string_view atom : absl::StrSplit(qualified, '.')) {
        if (!absl::StartsWith(atom, kMangleAtom)) atoms.push_back(atom);
      }
      if (absl::StrJoin(atoms, ".") == name) out.push_back(f);
    }
  }
  return out;
}

const absl::flat_hash_map<std::string, std::vector<torch::jit::StrongFunctionPtr>>&
script_functions_by_target(const GraphModule& gm) {
  static const auto* none =
      new absl::flat_hash_map<std::string, std::vector<torch::jit::StrongFunctionPtr>>();
  const ScriptFunctions* t = gm.script_functions().get();
  return t != nullptr ? t->by_target : *none;
}

}  // namespace fx
