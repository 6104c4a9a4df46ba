// Copyright 2026 The FX for C++ Authors.
#include "runtime/operator_binding.h"

#include <stdexcept>

#include <ATen/ops/zeros.h>

#include "gmock/gmock.h"

#include "gtest/gtest.h"

namespace fx {
namespace {

// libtorch 1.13's dispatcher, for an operator with no kernel for a backend: a
// paragraph listing every backend the operator has, inside a TorchScript
// traceback when a function called it.
TEST(ExceptionMessageTest, TheDispatchersMissingKernelReportIsOneLine) {
  const std::runtime_error e(
      "The following operation failed in the TorchScript interpreter.\n"
      "RuntimeError: Could not run 'aten::roll' with arguments from the 'Meta' backend. This could "
      "be because the operator doesn't exist for this backend, or was omitted during the selective/"
      "custom build process (if using custom build). 'aten::roll' is only available for these "
      "backends: [CPU, BackendSelect, Python, Named].\n\nCPU: registered at /build/RegisterCPU.cpp\n");
  EXPECT_EQ(exception_message(e), "libtorch has no kernel of aten::roll for the Meta backend");
}

// libtorch 2.x runs the Meta backend's fallback instead, whose report advises
// on torch.compile; it is the same fact, said the same way.
TEST(ExceptionMessageTest, TheMetaFallbacksReportIsOneLine) {
  const std::runtime_error e(
      "aten::roll: attempted to run this operator with Meta tensors, but there was no fake impl or "
      "Meta kernel registered. You may have run into this message while using an operator with PT2 "
      "compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs "
      "you'll need to add a fake impl. Please see the following for next steps:  "
      "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html");
  EXPECT_EQ(exception_message(e), "libtorch has no kernel of aten::roll for the Meta backend");
  const std::runtime_error in_traceback(
      "The following operation failed in the TorchScript interpreter.\nNotImplementedError: "
      "aten::index_put.hacked_twin: attempted to run this operator with Meta tensors, but ...");
  EXPECT_EQ(exception_message(in_traceback),
            "libtorch has no kernel of aten::index_put.hacked_twin for the Meta backend");
}

TEST(ExceptionMessageTest, OtherMessagesAreKept) {
  const std::runtime_error e("shape '[2, 3]' is invalid for input of size 5");
  EXPECT_EQ(exception_message(e), "shape '[2, 3]' is invalid for input of size 5");
}

// is_random reads libtorch's tags: dropout draws random numbers (and takes
// no Generator that would say so), relu does not.
TEST(BoundOperatorTest, IsRandomWhenLibtorchTagsTheOperatorSeeded) {
  auto dropout = find_operator("aten::dropout");
  ASSERT_TRUE(dropout.ok()) << dropout.status();
  EXPECT_TRUE(dropout->is_random());
  auto relu = find_operator("aten::relu");
  ASSERT_TRUE(relu.ok()) << relu.status();
  EXPECT_FALSE(relu->is_random());
}

// Python packs trailing positional values into a trailing list parameter
// (x.permute(0, 2, 1)); values that make no such list are more arguments than
// the operator takes, and the error says so, not only that the list's type
// is wrong (issue 54: fx::elementwise(program, [x], x) blamed 'inputs').
TEST(BindArgumentsTest, PackedValuesThatMakeNoListAreTooManyPositionalArguments) {
  auto permute = find_operator("aten::permute");
  ASSERT_TRUE(permute.ok()) << permute.status();
  const at::Tensor x = at::zeros({2, 3, 4});
  auto packed = bind_arguments(*permute->schema, {x, int64_t{0}, int64_t{2}, int64_t{1}}, {});
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ((*packed)[1].toIntVector(), (std::vector<int64_t>{0, 2, 1}));

  auto too_many = bind_arguments(
      *permute->schema, {x, c10::List<int64_t>({0, 2}), int64_t{1}}, {});
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(std::string(too_many.status().message()),
              ::testing::HasSubstr("argument 'dims' of aten::permute: expected "));
  EXPECT_THAT(std::string(too_many.status().message()),
              ::testing::HasSubstr("(aten::permute takes 2 positional arguments but 3 were given; "
                                   "the last 2 were taken as the elements of 'dims'"));

  // A bad element of an intended packing is that element's error alone.
  auto bad_element = bind_arguments(*permute->schema, {x, int64_t{0}, 2.5, int64_t{1}}, {});
  ASSERT_FALSE(bad_element.ok());
  EXPECT_THAT(std::string(bad_element.status().message()),
              ::testing::HasSubstr("argument 'dims' of aten::permute: "));
  EXPECT_THAT(std::string(bad_element.status().message()),
              ::testing::Not(::testing::HasSubstr("positional argument")));
}

}  // namespace
}  // namespace fx
