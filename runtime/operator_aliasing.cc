// Copyright 2026 The FX for C++ Authors.
#include "runtime/operator_aliasing.h"

#include <algorithm>
#include <iterator>

namespace fx {

bool may_share_an_input(absl::string_view name) {
  // Sorted, for binary search. Returning an input itself: atleast_*d (input
  // already of that rank), sum_to_size (same size), type_as and the _cast_*
  // operators (same dtype), conj_physical (real input), dequantize (input not
  // quantized), dropout and its variants (eval mode or p == 0), lift, to_dense
  // and _to_dense (input already dense), broadcast_tensors (same shapes),
  // copy (the functional form of copy_), cumprod_backward and
  // to_mkldnn_backward. Returning a view of an input: einsum (one operand,
  // or a permutation), meshgrid and cartesian_prod (expand and view),
  // _unsafe_view, unsafe_chunk, unsafe_split, unsafe_split_with_sizes and
  // _reshape_from_tensor (views by design, without alias information),
  // align_as, data, and the functional set (storage of its source).
  static constexpr absl::string_view kNames[] = {
      "aten::_cast_Byte",
      "aten::_cast_Char",
      "aten::_cast_Double",
      "aten::_cast_Float",
      "aten::_cast_Half",
      "aten::_cast_Int",
      "aten::_cast_Long",
      "aten::_cast_Short",
      "aten::_reshape_from_tensor",
      "aten::_to_dense",
      "aten::_unsafe_view",
      "aten::align_as",
      "aten::alpha_dropout",
      "aten::atleast_1d",
      "aten::atleast_2d",
      "aten::atleast_3d",
      "aten::broadcast_tensors",
      "aten::cartesian_prod",
      "aten::conj_physical",
      "aten::copy",
      "aten::cumprod_backward",
      "aten::data",
      "aten::dequantize",
      "aten::dropout",
      "aten::einsum",
      "aten::feature_alpha_dropout",
      "aten::feature_dropout",
      "aten::lift",
      "aten::meshgrid",
      "aten::set",
      "aten::sum_to_size",
      "aten::to_dense",
      "aten::to_mkldnn_backward",
      "aten::type_as",
      "aten::unsafe_chunk",
      "aten::unsafe_split",
      "aten::unsafe_split_with_sizes",
  };
  return std::binary_search(std::begin(kNames), std::end(kNames), name);
}

}  // namespace fx
