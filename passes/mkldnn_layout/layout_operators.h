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

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include "absl/container/flat_hash_set.h"
#include "core/graph.h"
#include "passes/support/call_arguments.h"
#include "passes/support/convolution_call.h"
#include "passes/support/value_writes.h"
#include "runtime/graph_module.h"

namespace fx {
namespace mkldnn_layout_internal {

// What shape_prop knows about a value (passes/support/convolution_call.h).
using ::fx::has_any_tensor_meta;
using ::fx::is_float_cpu_of_rank;
using ::fx::tensor_info;
using ::fx::TensorInfo;

// The target without its overload (`aten::add` of `aten::add.Tensor`), in `storage`.
const std::string& base_of(const std::string& target, std::string& storage);


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
