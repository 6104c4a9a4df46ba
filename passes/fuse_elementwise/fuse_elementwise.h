// Copyright 2026 The FX for C++ Authors.
//
// fuse_elementwise.h: chains of elementwise operators become one call of
// fx::elementwise (runtime/kernels/elementwise_kernels.h), which runs the chain in
// one pass over memory, with no intermediate tensors: one dispatch instead
// of one per operator, and nothing between them for the memory planner to
// place. What Inductor does with its generated loops, without generating
// code.
//
//   %add = call_function[target=aten::add.Tensor](args = (%x, 1.0))
//   %mul = call_function[target=aten::mul.Tensor](args = (%add, %y))
//   %relu = call_function[target=aten::relu](args = (%mul,))
// becomes
//   %relu = call_function[target=fx::elementwise](args = ('t0=add(i0,1.0);t1=mul(t0,i1);t2=relu(t1)', [%x, %y]))
//
// Fused (shapes and dtypes from shape_prop or the exported program):
//   * aten::add, aten::sub (Tensor or Scalar overloads, alpha 1), aten::mul,
//     aten::div (true division), aten::neg and aten::relu, each on float32 or
//     float64 CPU tensors of one dtype, every tensor operand of the call's
//     own shape or 0-dim, the other operand possibly a number;
//   * grouped through their values: an operator joins the group of an
//     operand that is fused and read by it alone (so the operand's value
//     disappears); a group of two or more operators becomes one call, at the
//     place of its last.
//
// Left as they were, with the reason in the report: a group that would read
// a value later than it did where the graph may write its storage
// (passes/support/value_writes.h's StorageWrites: through a view of it, a
// module call that updates the module tensor it views, or an in-place write
// to another graph input, which the caller may have passed the same tensor
// as). In-place operators are never fused.
//
// The fused call computes what the operators computed, bit for bit (the
// operations are IEEE-exact; the kernel runs aten's operators where its fast
// loop cannot: inputs of other dtypes, layouts or devices than shape_prop
// saw), and records gradients where they are wanted. Graphs that call it run
// where libfx is, not in PyTorch: save before the pass, fuse after loading.
#ifndef FX_PASSES_FUSE_ELEMENTWISE_FUSE_ELEMENTWISE_H_
#define FX_PASSES_FUSE_ELEMENTWISE_FUSE_ELEMENTWISE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What fuse_elementwise did.
struct FX_API ElementwiseFusionReport {
  // One line per fused call, in graph order: the names of its operators,
  // "add + mul + relu".
  std::vector<std::string> fused;
  // The operators fused away (every operator of a group but its last).
  int removed = 0;
  // One line per group left as it was: its last operator's name and why.
  std::vector<std::string> left_alone;
};

// Fuses the elementwise chains of `module` (see the file comment). Fails,
// saying to run shape_prop, when no node has tensor_meta.
FX_API absl::StatusOr<ElementwiseFusionReport> fuse_elementwise(GraphModule& module);

class FX_API FuseElementwise : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "fuse_elementwise".
FX_API void register_fuse_elementwise(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_FUSE_ELEMENTWISE_FUSE_ELEMENTWISE_H_
