// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/script_module.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// Scale(weight, shift) under Root.layer, with a Scale shared as Root.alias.
torch::jit::Module scripted() {
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module layer(c10::QualifiedName("__torch__.test.Scale"), cu);
  layer.register_parameter("weight", at::full({3}, 2.0), /*is_buffer=*/false);
  layer.register_buffer("shift", at::full({3}, 0.5));
  layer.register_attribute("training", c10::BoolType::get(), true);
  layer.register_attribute("factor", c10::IntType::get(), int64_t{3});
  layer.type()->addConstant("eps", 1e-5);  // as __constants__ = ["eps"]
  layer.define("def forward(self, x):\n    return x * self.weight * self.factor + self.shift\n");
  torch::jit::Module root(c10::QualifiedName("__torch__.test.Root"), cu);
  root.register_attribute("training", c10::BoolType::get(), false);
  root.register_module("layer", layer);
  root.register_module("alias", layer);
  return root;
}

TEST(ScriptModuleTest, KeepsEverySlotWithItsKindAndSharing) {
  std::shared_ptr<Module> root = module_from_torchscript(scripted()).value();
  EXPECT_EQ(root->type_name(), "test.Root");
  EXPECT_FALSE(root->training());
  auto layer = *root->get_submodule("layer");
  EXPECT_EQ(layer.get(), root->get_submodule("alias")->get());
  EXPECT_EQ(layer->type_name(), "test.Scale");
  EXPECT_TRUE(layer->training());
  EXPECT_FALSE(layer->contains("training"));  // the flag, not a slot
  EXPECT_EQ(layer->find("weight")->kind, SlotKind::kParameter);
  EXPECT_EQ(layer->find("shift")->kind, SlotKind::kBuffer);
  EXPECT_EQ(layer->find("factor")->kind, SlotKind::kAttribute);
  EXPECT_EQ(layer->get_attr("factor")->toInt(), 3);
  EXPECT_EQ(layer->get_attr("eps")->toDouble(), 1e-5);  // a constant reads as an attribute
  ASSERT_NE(torchscript_class(*layer), nullptr);
  EXPECT_EQ(torchscript_class(*layer)->format(), "TorchScript");
}

// The code runs on the tree's values as they are when the object is made.
TEST(ScriptModuleTest, ObjectsHoldTheTreesCurrentValues) {
  std::shared_ptr<Module> root = module_from_torchscript(scripted()).value();
  auto layer = *root->get_submodule("layer");
  ASSERT_TRUE(layer->set_value("weight", at::full({3}, 10.0)).ok());
  auto called = torchscript_object(*layer);
  ASSERT_TRUE(called.ok()) << called.status();
  const at::Tensor out = called->forward({at::ones({3})}).toTensor();
  EXPECT_TRUE(at::allclose(out, at::full({3}, 30.5)));
  auto object = torchscript_object(*root);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->attr("layer").toModule()._ivalue(), object->attr("alias").toModule()._ivalue());
  EXPECT_TRUE(object->attr("layer").toModule().attr("training").toBool());
}

// One object per module while its tree is unchanged; a change makes another.
TEST(ScriptModuleTest, OneObjectUntilTheTreeChanges) {
  std::shared_ptr<Module> root = module_from_torchscript(scripted()).value();
  auto layer = *root->get_submodule("layer");
  auto first = torchscript_object(*layer);
  auto again = torchscript_object(*layer);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->_ivalue(), again->_ivalue());
  ASSERT_TRUE(layer->set_value("factor", int64_t{4}).ok());
  auto changed = torchscript_object(*layer);
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->_ivalue(), first->_ivalue());
  EXPECT_EQ(changed->attr("factor").toInt(), 4);
  // The root's object holds the layer's current object.
  auto whole = torchscript_object(*root);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->attr("layer").toModule()._ivalue(), changed->_ivalue());
}

TEST(ScriptModuleTest, SaysWhatAModuleLacks) {
  std::shared_ptr<Module> root = module_from_torchscript(scripted()).value();
  auto plain = std::make_shared<Module>("torch.nn.modules.linear.Linear");
  ASSERT_TRUE(root->register_module("plain", plain).ok());
  auto object = torchscript_object(*plain);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("has no TorchScript code"));

  auto stripped = std::make_shared<Module>("test.Scale");
  stripped->set_code(root->get_submodule("layer").value()->code());
  object = torchscript_object(*stripped);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("no longer has 'weight'"));

  // With a unit, a module without code gets a class of its own.
  ASSERT_TRUE(plain->register_parameter("weight", at::ones({2, 2})).ok());
  object = torchscript_object(*plain, std::make_shared<torch::jit::CompilationUnit>());
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->named_parameters().size(), 1u);
  EXPECT_FALSE(object->attr("training").toBool());
}

// Python's setattr takes any string, so a scripted module can carry an
// attribute named with a dot, which no Module slot can: a status naming it.
TEST(ScriptModuleTest, RefusesAnAttributeNameAModuleCannotHold) {
  torch::jit::Module odd(c10::QualifiedName("__torch__.test.Odd"),
                         std::make_shared<torch::jit::CompilationUnit>());
  odd.register_attribute("a.b", c10::IntType::get(), int64_t{1});
  auto converted = module_from_torchscript(odd);
  ASSERT_FALSE(converted.ok());
  EXPECT_THAT(std::string(converted.status().message()),
              HasSubstr("class test.Odd has an attribute 'a.b'"));
}

}  // namespace
}  // namespace fx
