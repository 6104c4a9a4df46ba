// Copyright 2026 The FX for C++ Authors.
//
// layout_operators.h: which operators of a graph can run in oneDNN's layout,
// and what each becomes (mkldnn_layout's candidates), read against their
// schemas and the tensor_meta shape_prop recorded. Internal to the pass.
#ifndef FX_PASSES_MKLDNN_LAYOUT_LAYOUT_OPERATORS_H_
#define FX_PASSES_MKLDNN_LAYOUT_LAYOUT_OPERATORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include "absl/container/flat_hash_set.h"
#include "core/graph.h"
#include "runtime/graph_module.h"

namespace fx {
namespace mkldnn_layout_internal {

// A node's arguments by schema parameter: the node's Argument, or the default.
struct BoundCall {
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
std::optional<BoundCall> bind_call(const Node& n);

// What shape_prop knows about a value.
struct TensorInfo {
  std::vector<int64_t> shape;
  bool float_cpu = false;
};
std::optional<TensorInfo> tensor_info(const Node& n);
bool is_float_cpu_of_rank(const Node& n, size_t rank);
bool has_any_tensor_meta(const Graph& g);

// The target without its overload (`aten::add` of `aten::add.Tensor`), in `storage`.
const std::string& base_of(const std::string& target, std::string& storage);

// Users that read only a value's rank or sizes, which an MKLDNN tensor has.
bool reads_sizes_only(const Node& user);

enum class Kind { kConvolution, kUnary, kAdd };

// An operator that can run in the layout, and what it becomes.
struct Candidate {
  Kind kind = Kind::kUnary;
  Node* node = nullptr;
  // The value operands that must be in the layout (a convolution's input, a
  // unary's input, an add's two).
  std::vector<Node*> operands;
  // Whether the node writes its first operand (relu_, hardtanh_, add_).
  bool in_place = false;
  // Whether its result is its first operand (in place, or eval dropout).
  bool returns_operand = false;
  // The call it becomes; empty target: unchanged.
  std::string target;
  Arguments args;
  // Convolutions: the weight's attribute and the reordered weight.
  std::string weight_name;
  at::Tensor weight;
};

// Why the convolution `n` cannot run in the layout; "" when it can (`out`
// filled in, its weight reordered).
std::string convolution_problem(const GraphModule& gm, Node& n, const BoundCall& call,
                                Candidate& out);

// The candidate `n` is when its operands are in the layout (`in_layout`), or
// nothing.
std::optional<Candidate> layout_operator(Node& n, const BoundCall& call,
                                         const absl::flat_hash_set<Node*>& in_layout);

// torch.nn.functional.adaptive_avg_pool2d with a literal output size (a leaf
// call function lowering leaves) as aten's, or nothing.
std::optional<Candidate> adaptive_avg_pool_function(Node& n,
                                                    const absl::flat_hash_set<Node*>& in_layout);

}  // namespace mkldnn_layout_internal
}  // namespace fx

#endif  // FX_PASSES_MKLDNN_LAYOUT_LAYOUT_OPERATORS_H_
