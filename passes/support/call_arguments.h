// Copyright 2026 The FX for C++ Authors.
//
// call_arguments.h: a call's arguments by schema position or keyword, for
// passes that read the operands of calls written either way
// (`aten::linear(x, w, b)`, `F.linear(x, weight=w)`).
//
//   const fx::Argument* weight = fx::argument_at(node, 1, "weight");
//   std::optional<fx::BoundCall> call = fx::bind_call(node);   // by its operator's schema
//   call->ints("stride", 2);
//
// Contracts: read the node only. argument_at: nullptr when the argument is
// neither given at `index` nor as the keyword `name` (its default applies).
// bind_call: nothing for a call that is not an ATen operator this libtorch
// has, or whose arguments do not bind to its schema.
#ifndef FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_
#define FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include "absl/strings/string_view.h"
#include "core/export.h"
#include "core/node.h"

namespace fx {

inline const Argument* argument_at(const Node& n, size_t index, absl::string_view name) {
  if (index < n.args().size()) return &n.args()[index];
  return n.kwarg(name);
}

// A node's arguments by schema parameter: the node's Argument, or the default.
struct FX_API BoundCall {
  const c10::FunctionSchema* schema = nullptr;
  std::vector<const Argument*> given;     // nullptr where the default applies
  std::vector<c10::IValue> defaults;

  size_t index_of(const char* name) const {
    const auto& params = schema->arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name() == name) return i;
    }
    return params.size();
  }
  const Argument* arg(const char* name) const {
    const size_t i = index_of(name);
    return i < given.size() ? given[i] : nullptr;
  }
  const c10::IValue* default_of(const char* name) const {
    const size_t i = index_of(name);
    return i < defaults.size() && given[i] == nullptr ? &defaults[i] : nullptr;
  }
  bool is_none(const char* name) const {
    const Argument* a = arg(name);
    if (a != nullptr) return a->is_none();
    const c10::IValue* d = default_of(name);
    return d == nullptr || d->isNone();
  }
  std::optional<std::vector<int64_t>> ints(const char* name, size_t length) const {
    std::vector<int64_t> out;
    if (const Argument* a = arg(name)) {
      if (a->is_int()) {
        out.assign(length, a->to_int());
      } else if (a->is_sequence()) {
        for (const Argument& e : a->elements()) {
          if (!e.is_int()) return std::nullopt;
          out.push_back(e.to_int());
        }
      } else {
        return std::nullopt;
      }
    } else if (const c10::IValue* d = default_of(name)) {
      if (d->isInt()) {
        out.assign(length, d->toInt());
      } else if (d->isIntList()) {
        out = d->toIntVector();
      } else {
        return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
    if (out.size() == 1 && length > 1) out.assign(length, out[0]);
    return out;
  }
  std::optional<double> number(const char* name) const {
    if (const Argument* a = arg(name)) {
      if (a->is_int()) return static_cast<double>(a->to_int());
      if (a->is_double()) return a->to_double();
      return std::nullopt;
    }
    const c10::IValue* d = default_of(name);
    if (d != nullptr && (d->isInt() || d->isDouble())) return d->toScalar().toDouble();
    return std::nullopt;
  }
  std::optional<bool> boolean(const char* name) const {
    if (const Argument* a = arg(name)) {
      return a->is_bool() ? std::optional<bool>(a->to_bool()) : std::nullopt;
    }
    const c10::IValue* d = default_of(name);
    return d != nullptr && d->isBool() ? std::optional<bool>(d->toBool()) : std::nullopt;
  }
  Node* node_arg(const char* name) const {
    const Argument* a = arg(name);
    return a != nullptr && a->is_node() ? a->to_node() : nullptr;
  }
};

// `n`'s arguments by its operator's schema; nothing for a call without one.
FX_API std::optional<BoundCall> bind_call(const Node& n);

}  // namespace fx

#endif  // FX_PASSES_SUPPORT_CALL_ARGUMENTS_H_
