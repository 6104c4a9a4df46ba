// Copyright 2026 The FX for C++ Authors.
#include "core/naming.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

TEST(NamespaceTest, FirstUseKeepsTheBareNameLaterUsesGetSuffixes) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("add"), "add");
  EXPECT_EQ(ns.create_name("add"), "add_1");
  EXPECT_EQ(ns.create_name("add"), "add_2");
  EXPECT_EQ(ns.create_name("mul"), "mul");
}

TEST(NamespaceTest, KeywordsBuiltinsAndFxReservedNamesAlwaysGetASuffix) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("sum"), "sum_1");
  EXPECT_EQ(ns.create_name("input"), "input_1");
  EXPECT_EQ(ns.create_name("torch"), "torch_1");
  EXPECT_EQ(ns.create_name("device"), "device_1");
  EXPECT_EQ(ns.create_name("for"), "for_1");
  EXPECT_EQ(ns.create_name("None"), "None_1");
  EXPECT_EQ(ns.create_name("sum"), "sum_2");
}

TEST(NamespaceTest, IllegalCharactersBecomeOneUnderscore) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("layer1.0.conv1"), "layer1_0_conv1");
  EXPECT_EQ(ns.create_name("linear.weight"), "linear_weight");
  EXPECT_EQ(ns.create_name("a..b"), "a_b");
  EXPECT_EQ(ns.create_name("x.1"), "x_1");
  EXPECT_EQ(ns.create_name("0weird"), "_0weird");
  EXPECT_EQ(ns.create_name(""), "_");
}

TEST(NamespaceTest, ACandidateWithANumericSuffixContinuesFromIt) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("layer1_0_relu"), "layer1_0_relu");
  EXPECT_EQ(ns.create_name("layer1_0_relu"), "layer1_0_relu_1");
  // torch.fx splits `layer1_0` into base `layer1` and 0.
  EXPECT_EQ(ns.create_name("layer1_0"), "layer1_0");
  EXPECT_EQ(ns.create_name("layer1_0"), "layer1_1");
  EXPECT_EQ(ns.create_name("add_05"), "add_5");
  EXPECT_EQ(ns.create_name("add_5"), "add_6");
}

TEST(NamespaceTest, MatchesTorchFxWhenExplicitSuffixesComeFirst) {
  // torch.fx 1.13 scans from 1 for each new name; the cached scan agrees.
  Namespace ns;
  EXPECT_EQ(ns.create_name("add_3"), "add_3");
  EXPECT_EQ(ns.create_name("add"), "add");
  EXPECT_EQ(ns.create_name("add"), "add_1");
  EXPECT_EQ(ns.create_name("add"), "add_2");
  EXPECT_EQ(ns.create_name("add"), "add_4");
}

TEST(NamespaceTest, ManyNamesStayUnique) {
  Namespace ns;
  absl::flat_hash_set<std::string> names;
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(names.insert(ns.create_name(i % 3 == 0 ? "add_7" : "add")).second);
  }
  EXPECT_EQ(ns.size(), 20000u);
}

TEST(NamespaceTest, ReserveTakesANameExactly) {
  Namespace ns;
  EXPECT_TRUE(ns.reserve("x"));
  EXPECT_FALSE(ns.reserve("x"));
  EXPECT_EQ(ns.create_name("x"), "x_1");
}

TEST(NamingTest, SnakeCaseAsTorchFx) {
  EXPECT_EQ(snake_case("MyOp"), "my_op");
  EXPECT_EQ(snake_case("mod.pascalCase"), "mod.pascal_case");
  EXPECT_EQ(snake_case("mod.ALL_CAPS"), "mod.all_caps");
  EXPECT_EQ(snake_case("snake_case"), "snake_case");
}

TEST(NamingTest, FunctionBaseNames) {
  EXPECT_EQ(function_base_name("aten::add.Tensor"), "add");
  EXPECT_EQ(function_base_name("aten::relu"), "relu");
  EXPECT_EQ(function_base_name("torch.nn.functional.relu"), "relu");
  EXPECT_EQ(function_base_name("operator.add"), "add");
  EXPECT_EQ(function_base_name("torch.ops.aten.add.Tensor"), "add");
  EXPECT_EQ(function_base_name("len"), "len");
}

TEST(NamingTest, CandidatesFromTargets) {
  EXPECT_EQ(candidate_name_for_target("aten::add_.Tensor", true), "add_");
  EXPECT_EQ(candidate_name_for_target("torch.sum", true), "sum");
  EXPECT_EQ(candidate_name_for_target("__add__", false), "add");
  EXPECT_EQ(candidate_name_for_target("layer1.0.conv1", false), "layer1_0_conv1");
  EXPECT_EQ(candidate_name_for_target("MyModule.Sub", false), "my_module_sub");
  EXPECT_EQ(candidate_name_for_target("mod.pascalCase", false), "mod_pascal_case");
  EXPECT_EQ(candidate_name_for_target("aten::__and__.Tensor", true), "and");
}

TEST(NamingTest, PythonIdentifiers) {
  EXPECT_TRUE(is_python_identifier("conv1"));
  EXPECT_TRUE(is_python_identifier("_x"));
  EXPECT_FALSE(is_python_identifier("0"));
  EXPECT_FALSE(is_python_identifier("a-b"));
  EXPECT_FALSE(is_python_identifier(""));
  EXPECT_TRUE(is_reserved_python_name("print"));
  EXPECT_FALSE(is_reserved_python_name("relu"));
}

}  // namespace
}  // namespace fx
