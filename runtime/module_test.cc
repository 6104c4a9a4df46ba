// Copyright 2026 The FX for C++ Authors.
#include "runtime/module.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// linear (weight, bias), bn (running_mean buffer), a tied weight and an int.
std::shared_ptr<Module> small_model() {
  auto root = std::make_shared<Module>("test.Net");
  auto linear = std::make_shared<Module>("torch.nn.modules.linear.Linear");
  EXPECT_TRUE(linear->register_parameter("weight", at::ones({2, 2})).ok());
  EXPECT_TRUE(linear->register_parameter("bias", at::zeros({2})).ok());
  auto bn = std::make_shared<Module>("torch.nn.modules.batchnorm.BatchNorm1d");
  EXPECT_TRUE(bn->register_buffer("running_mean", at::zeros({2})).ok());
  EXPECT_TRUE(root->register_module("linear", linear).ok());
  EXPECT_TRUE(root->register_module("bn", bn).ok());
  EXPECT_TRUE(root->register_parameter("tied", linear->find("weight")->value.toTensor()).ok());
  EXPECT_TRUE(root->register_attribute("steps", int64_t{3}).ok());
  return root;
}

TEST(ModuleTest, ResolvesQualifiedNamesAsPyTorchDoes) {
  auto root = small_model();
  EXPECT_EQ(root->get_attr("linear.bias")->toTensor().numel(), 2);
  EXPECT_EQ(root->get_attr("steps")->toInt(), 3);
  EXPECT_EQ((*root->get_submodule("bn"))->class_name(), "BatchNorm1d");
  EXPECT_EQ(root->get_submodule("").value().get(), root.get());
  EXPECT_EQ((*root->find_qualified("bn.running_mean"))->kind, SlotKind::kBuffer);

  EXPECT_THAT(std::string(root->get_attr("linear.scale").status().message()),
              HasSubstr("'linear.scale': 'linear' has no attribute 'scale'"));
  EXPECT_THAT(std::string(root->get_attr("conv.weight").status().message()),
              HasSubstr("the root module has no attribute 'conv'"));
  EXPECT_THAT(std::string(root->get_attr("steps.x").status().message()),
              HasSubstr("'steps' is not a module"));
  EXPECT_THAT(std::string(root->get_attr("linear").status().message()),
              HasSubstr("is a submodule, not an attribute"));
  EXPECT_THAT(std::string(root->get_submodule("steps").status().message()),
              HasSubstr("is an attribute, not a submodule"));
}

TEST(ModuleTest, RefusesNamesThatAreTakenOrDotted) {
  auto root = small_model();
  absl::Status taken = root->register_buffer("tied", at::ones({1}));
  EXPECT_EQ(taken.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(taken.message()), HasSubstr("already has a parameter 'tied'"));
  EXPECT_THAT(std::string(root->register_parameter("a.b", at::ones({1})).message()),
              HasSubstr("one atom"));
  EXPECT_THAT(std::string(root->register_value("q", SlotKind::kBuffer, int64_t{1}).message()),
              HasSubstr("must be a tensor"));
  EXPECT_FALSE(root->register_module("m", nullptr).ok());
  EXPECT_FALSE(root->set_value("linear", int64_t{1}).ok());
  EXPECT_TRUE(root->set_value("steps", int64_t{4}).ok());
  EXPECT_EQ(root->get_attr("steps")->toInt(), 4);
}

TEST(ModuleTest, ListsModulesAndTensorsOnceInSlotOrder) {
  auto root = small_model();
  // The same submodule under two names is listed once, under the first.
  ASSERT_TRUE(root->register_module("again", *root->get_submodule("linear")).ok());
  std::vector<std::string> modules;
  for (const auto& [path, m] : root->named_modules()) modules.push_back(path);
  EXPECT_THAT(modules, ElementsAre("", "linear", "bn"));
  std::vector<std::string> parameters;
  for (const auto& [name, t] : root->named_parameters()) parameters.push_back(name);
  // As torch's named_parameters(): module by module, a module's own first, and
  // a tensor held twice under the first name met (`tied` is linear.weight).
  EXPECT_THAT(parameters, ElementsAre("tied", "linear.bias"));
  std::vector<std::string> tensors;
  for (const auto& [name, t] : root->named_tensors()) tensors.push_back(name);
  EXPECT_THAT(tensors, ElementsAre("tied", "linear.bias", "bn.running_mean"));
  // Five slots of the root, and the submodules' (linear's twice: it is held twice).
  EXPECT_EQ(root->count_slots(), 5u + 2u + 1u + 2u);
}

TEST(ModuleTest, CopiesWithNewTensorsKeepSharing) {
  auto root = small_model();
  ASSERT_TRUE(root->register_module("again", *root->get_submodule("linear")).ok());
  int calls = 0;
  std::shared_ptr<Module> doubled = root->with_tensors([&](const at::Tensor& t) {
    ++calls;
    return t * 2;
  });
  EXPECT_EQ(calls, 3);  // linear.weight (= tied), linear.bias, bn.running_mean
  EXPECT_EQ((*doubled->get_submodule("linear")).get(), (*doubled->get_submodule("again")).get());
  EXPECT_NE((*doubled->get_submodule("linear")).get(), (*root->get_submodule("linear")).get());
  EXPECT_TRUE(doubled->get_attr("tied")->toTensor().is_same(
      doubled->get_attr("linear.weight")->toTensor()));
  EXPECT_TRUE(at::equal(doubled->get_attr("linear.weight")->toTensor(), at::full({2, 2}, 2.0)));
  EXPECT_TRUE(at::equal(root->get_attr("linear.weight")->toTensor(), at::ones({2, 2})));
  EXPECT_EQ(doubled->get_attr("steps")->toInt(), 3);

  root->replace_tensors([](const at::Tensor& t) { return t + 1; });
  EXPECT_TRUE(at::equal(root->get_attr("bn.running_mean")->toTensor(), at::ones({2})));
}

}  // namespace
}  // namespace fx
