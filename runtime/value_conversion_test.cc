// Copyright 2026 The FX for C++ Authors.
#include "runtime/value_conversion.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/zeros.h>

#include "gtest/gtest.h"

namespace fx {
namespace {

// A copy laid out as the original: an in-place operator refuses an expanded
// copy as it refuses the expanded original (a clone would be dense).
TEST(DeepCopyTest, KeepsSizesStridesAndOffsets) {
  const at::Tensor expanded = at::arange(4.0).expand({3, 4});
  const at::Tensor transposed = at::arange(6.0).view({2, 3}).t();
  const at::Tensor offset = at::arange(10.0).narrow(0, 3, 4);
  const std::vector<c10::IValue> copies = deep_copy(std::vector<c10::IValue>{
      expanded, c10::ivalue::Tuple::create({transposed, offset})});
  const at::Tensor e = copies[0].toTensor();
  EXPECT_EQ(e.strides(), expanded.strides());
  EXPECT_TRUE(at::equal(e, expanded));
  EXPECT_FALSE(e.is_alias_of(expanded));
  EXPECT_THROW(e.add_(1), std::exception);
  const auto items = copies[1].toTupleRef().elements();
  EXPECT_EQ(items[0].toTensor().strides(), transposed.strides());
  EXPECT_TRUE(at::equal(items[0].toTensor(), transposed));
  EXPECT_EQ(items[1].toTensor().storage_offset(), 3);
  EXPECT_TRUE(at::equal(items[1].toTensor(), offset));
}

// Inputs that share memory share it in the copy (a write through one is
// seen through the other, as in the original), and nothing with the original.
TEST(DeepCopyTest, TensorsSharingAStorageShareTheCopyOfIt) {
  const at::Tensor base = at::zeros({4});
  const std::vector<c10::IValue> copies =
      deep_copy(std::vector<c10::IValue>{base, base.narrow(0, 2, 2)});
  copies[1].toTensor().fill_(7);
  EXPECT_EQ(copies[0].toTensor()[3].item<float>(), 7);
  EXPECT_EQ(base[3].item<float>(), 0);
}

}  // namespace
}  // namespace fx
