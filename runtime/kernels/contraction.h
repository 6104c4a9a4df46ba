// Copyright 2026 The FX for C++ Authors.
//
// contraction.h (internal to runtime/): a two-operand tensor contraction
// (`aten::einsum`, `aten::tensordot`) compiled, for the operand layouts one
// run saw, into a single batched matrix product over strided views.
//
// aten's einsum and tensordot are composite: every call parses its equation
// or dims again, then permutes, reshapes (often copying) and multiplies, each
// step a dispatch and an allocation. On the small tensors of an equivariant
// network's tensor product that costs 6-9 µs a call, where the product itself
// takes under 1 µs. With the sizes and strides known, the work reduces to
//
//   out[bt, l, r] = sum_k a[bt, l, k] * b[bt, k, r]        (one aten::bmm.out)
//
// where every index stands for a group of labels:
//   bt  labels of both operands kept in the output (batch), and possibly
//       labels of one operand kept in the output, broadcast in the other;
//   l   labels of `a` only, kept;     r   labels of `b` only, kept;
//   k   labels summed: in both, or in one only (broadcast in the other).
// A group becomes one dimension of a view without copying when its labels
// nest in the operand's strides (stride[i] == stride[i+1] * size[i+1]); the
// grouping and the order of labels in each group are chosen, by a small
// search at plan time, to need as few copies as possible. An operand or
// result whose layout does not allow it goes through a contiguous scratch
// tensor (one copy), as aten itself would.
//
// Small contractions on the CPU (at most kDirectMultiplyAdds products, as
// in a tensor product) skip all that: loops over the groups' offsets into
// the operands and the result, which read them in place whatever their
// strides, with no copy, no view and no aten call. The summed labels are
// the outer loop, so that each result adds its products in the order of
// aten's own loops for small matrices (the values are the same bit for bit
// where aten takes those, and within rounding elsewhere: a label summed from
// one operand only is summed with the products, where aten sums it first);
// with no label summed, each result is its product, as aten's einsum
// multiplies then; the innermost loop
// runs along one kept label, the longest, vectorised where it is contiguous
// in the result and contiguous or broadcast in the operands.
//
//   absl::StatusOr<Contraction> c = Contraction::plan(schema, args, result);
//   if (c.ok() && c->matches(a, b)) c->run(a, b, out, scratch);
//
// Contracts:
//   * `plan` accepts only what it reproduces exactly: two float or double
//     operands on one CPU or CUDA device (requiring grad only under
//     InferenceMode), einsum equations of letters (no `...`, no label
//     repeated within an operand), tensordot dims naming distinct dimensions;
//     the result's sizes and strides are aten's own (`result`), and it is
//     dense; and running the plan on those operands gives aten's `result`.
//     Anything else is an error saying why (the caller then keeps the
//     operator).
//   * The plan is for the equation or dims it was given: a caller whose
//     equation or dims may change from run to run must not use it.
//   * `run` requires operands for which `matches` holds, an `out` of
//     out_sizes()/out_strides() and the scratch of scratch_numel(); the values
//     equal aten's up to the order of the sums.
//   * Immutable after `plan`: any number of threads may run it at once.
#ifndef FX_RUNTIME_KERNELS_CONTRACTION_H_
#define FX_RUNTIME_KERNELS_CONTRACTION_H_

#include <array>
#include <cstdint>
#include <vector>

#include <ATen/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"

namespace fx {

class Contraction {
 public:
  // The scratch tensors a run may need: a contiguous copy of either operand,
  // and the product before it is copied into a result it cannot be written
  // into directly.
  enum Scratch { kScratchA = 0, kScratchB = 1, kScratchProduct = 2 };
  // The largest contraction (in multiply-adds) run as direct loops.
  static constexpr int64_t kDirectMultiplyAdds = 1 << 16;
  using ScratchTensors = std::array<at::Tensor, 3>;

  // Compiles the call of `schema` (aten::einsum or aten::tensordot) on `args`
  // (its whole stack, in schema order), whose value was `result`.
  static absl::StatusOr<Contraction> plan(const c10::FunctionSchema& schema,
                                          const std::vector<c10::IValue>& args,
                                          const at::Tensor& result);

  // Whether `schema` is one `plan` knows: aten::einsum (operands: the two
  // elements of argument 1) or aten::tensordot (operands: arguments 0 and 1).
  static bool is_contraction(const c10::FunctionSchema& schema);

  // Whether `a` and `b` have the dtype, device, sizes and strides (of
  // dimensions other than size 1) the plan was made for.
  bool matches(const at::Tensor& a, const at::Tensor& b) const;

  // Writes the contraction of `a` and `b` into `out`.
  void run(const at::Tensor& a, const at::Tensor& b, at::Tensor& out,
           ScratchTensors& scratch) const;

  const std::vector<int64_t>& out_sizes() const { return out_sizes_; }
  const std::vector<int64_t>& out_strides() const { return out_strides_; }
  c10::ScalarType dtype() const { return dtype_; }
  // Elements of scratch tensor `which` (contiguous, of dtype()); 0: not needed.
  int64_t scratch_numel(Scratch which) const { return scratch_numel_[which]; }

 private:
  // out[bt][i][j] = sum_k a[bt][i][k] * b[bt][k][j] as loops: the summed
  // labels, the other kept labels but one, and that one, innermost. Each
  // loop's indices have their offsets (in elements) in a, b and out (0 where
  // the tensor lacks the label).
  struct Axis {
    std::vector<int64_t> a, b, out;
  };
  struct Direct {
    bool used = false;
    Axis sum;                // outermost: the order of the sums
    bool summed = false;     // some label is summed (else each result is one product)
    Axis outer;              // every kept label but the inner one
    int64_t inner_size = 1;  // the inner label, and its strides
    int64_t inner_a = 0, inner_b = 0, inner_out = 0;
  };
  template <typename T>
  void run_direct(const T* a, const T* b, T* out) const;

  // A tensor as the product sees it: a 3-d view [batch, rows, cols] of an
  // operand, of the result, or of the scratch copy standing in for it.
  struct View3 {
    std::array<int64_t, 3> sizes{1, 1, 1};
    std::array<int64_t, 3> strides{1, 1, 1};
  };
  // How a tensor is copied into (operands) or out of (the product) its
  // scratch: the labels' sizes in the scratch's order and the tensor's
  // strides for them.
  struct Copy {
    bool needed = false;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
  };

  c10::ScalarType dtype_ = c10::ScalarType::Float;
  c10::Device device_ = c10::Device(c10::kCPU);
  std::vector<int64_t> a_sizes_, a_strides_, b_sizes_, b_strides_;
  std::vector<int64_t> out_sizes_, out_strides_;
  View3 a3_, b3_, out3_;
  Direct direct_;
  Copy copy_a_, copy_b_, copy_out_;
  std::array<int64_t, 3> scratch_numel_{0, 0, 0};
};

}  // namespace fx

#endif  // FX_RUNTIME_KERNELS_CONTRACTION_H_
