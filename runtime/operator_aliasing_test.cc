// Copyright 2026 The FX for C++ Authors.
#include "runtime/operator_aliasing.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/atleast_2d.h>
#include <ATen/ops/atleast_3d.h>
#include <ATen/ops/broadcast_tensors.h>
#include <ATen/ops/conj_physical.h>
#include <ATen/ops/dropout.h>
#include <ATen/ops/einsum.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fx {
namespace {

// The operators whose results may be an input (or a view of one) although
// their schemas say nothing: each exists in libtorch, and no functional
// overload of it that returns a tensor has an alias annotation (which would
// make the entry needless).
TEST(MayShareAnInputTest, ListsOperatorsWithoutAliasAnnotations) {
  std::vector<std::string> listed;
  for (const auto& op : torch::jit::getAllOperators()) {
    const c10::FunctionSchema& schema = op->schema();
    if (!may_share_an_input(schema.name())) continue;
    listed.push_back(schema.name());
    if (schema.is_mutable()) continue;  // `out=` overloads: their annotation names `out`
    for (const c10::Argument& ret : schema.returns()) {
      if (ret.type()->kind() == c10::TypeKind::TensorType) {
        EXPECT_EQ(ret.alias_info(), nullptr) << schema;
      }
    }
  }
  for (const char* name : {"aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d",
                           "aten::sum_to_size", "aten::type_as", "aten::einsum",
                           "aten::broadcast_tensors", "aten::meshgrid", "aten::dropout",
                           "aten::_cast_Float", "aten::conj_physical", "aten::dequantize"}) {
    EXPECT_TRUE(may_share_an_input(name)) << name;
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end())
        << name << " is not an operator of this libtorch";
  }
  EXPECT_FALSE(may_share_an_input("aten::relu"));
  EXPECT_FALSE(may_share_an_input("aten::view"));  // its schema says Tensor(a)
}

// Why they are listed: what they return on inputs that need no change.
TEST(MayShareAnInputTest, TheyReturnTheirInputWhenNothingIsToBeDone) {
  const at::Tensor h = at::randn({2, 4});
  EXPECT_TRUE(at::atleast_2d(h).is_same(h));
  EXPECT_TRUE(h.type_as(h).is_same(h));
  EXPECT_TRUE(h.sum_to_size(h.sizes()).is_same(h));
  EXPECT_TRUE(at::dropout(h, 0.5, /*train=*/false).is_same(h));
  EXPECT_TRUE(at::conj_physical(h).is_same(h));
  EXPECT_TRUE(at::broadcast_tensors({h, h})[0].is_same(h));
  EXPECT_TRUE(at::einsum("ij->ji", {h}).is_alias_of(h));
  EXPECT_TRUE(at::atleast_3d(h).is_alias_of(h));
}

}  // namespace
}  // namespace fx
