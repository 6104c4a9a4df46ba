// Copyright 2026 The FX for C++ Authors.
#include "passes/support/operator_targets.h"

#include "gtest/gtest.h"

namespace fx {
namespace {

TEST(OperatorTargetsTest, EverySpellingOfAnOperatorNamesIt) {
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "aten::relu"), "aten::relu");
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "aten::add.Tensor"), "aten::add");
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "torch.relu"), "aten::relu");
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "torch.Tensor.relu"), "aten::relu");
  EXPECT_EQ(operator_base_name(Op::kCallMethod, "relu"), "aten::relu");
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "operator.add"), "aten::add");
  EXPECT_EQ(operator_overload(Op::kCallFunction, "aten::add.Tensor"), "Tensor");
  EXPECT_EQ(operator_overload(Op::kCallFunction, "aten::relu"), "");
  EXPECT_EQ(operator_overload(Op::kCallMethod, "add"), "");
}

TEST(OperatorTargetsTest, PythonFunctionsAndNativeOperatorsNameNoOperator) {
  // F.batch_norm's parameters are not aten::batch_norm's.
  EXPECT_EQ(operator_base_name(Op::kCallFunction, "torch.nn.functional.batch_norm"),
            "torch.nn.functional.batch_norm");
  EXPECT_FALSE(names_aten_operator(Op::kCallFunction, "torch.nn.functional.batch_norm"));
  EXPECT_FALSE(names_aten_operator(Op::kCallFunction, "operator.getitem"));
  EXPECT_FALSE(names_aten_operator(Op::kCallFunction, "torch._assert"));
  EXPECT_FALSE(names_aten_operator(Op::kCallFunction, "__torch__.clip"));
  EXPECT_FALSE(names_aten_operator(Op::kCallModule, "relu"));
  EXPECT_TRUE(names_aten_operator(Op::kCallFunction, "mylib::op.default"));
}

}  // namespace
}  // namespace fx
