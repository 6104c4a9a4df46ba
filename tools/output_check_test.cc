// Copyright 2026 The FX for C++ Authors.
#include "tools/output_check.h"

#include <optional>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A reference that returns `expected`, and in float64 `exact` (when given).
CheckReference reference_of(at::Tensor expected, std::optional<at::Tensor> exact) {
  CheckReference r;
  r.name = "the model";
  r.run = [expected](std::vector<c10::IValue>&) -> absl::StatusOr<c10::IValue> { return expected; };
  if (exact) {
    r.run_exact = [t = *exact](std::vector<c10::IValue> inputs) -> absl::StatusOr<c10::IValue> {
      // The float64 run sees its inputs in float64.
      EXPECT_EQ(inputs.at(0).toTensor().scalar_type(), at::kDouble);
      return t;
    };
  }
  return r;
}

const std::vector<c10::IValue> kInputs = {at::ones({3})};

TEST(OutputCheckTest, WithinTheToleranceIsOk) {
  const at::Tensor want = at::tensor({1.0f, 20.0f, 0.0f});
  auto line = check_outputs(want + 5e-6, kInputs, reference_of(want, std::nullopt), {});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_THAT(*line, HasSubstr("check: max abs difference 5.7"));
  EXPECT_THAT(*line, HasSubstr("against the model (atol 1e-05, rtol 0.0001)"));
  EXPECT_THAT(*line, HasSubstr(": ok"));
}

// Folded weights round differently: an output near zero moves by more than
// atol, but the graph is as close to the exact result as the model is.
TEST(OutputCheckTest, RoundingIsToldApartByTheFloat64Run) {
  const at::Tensor exact = at::tensor({1.0, 20.0, 0.0}, at::kDouble);
  const at::Tensor model = at::tensor({1.0f, 20.00004f, 4e-5f});
  const at::Tensor graph = at::tensor({1.0f, 19.99996f, -4e-5f});
  auto line = check_outputs(graph, kInputs, reference_of(model, exact), {});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_THAT(*line, HasSubstr("beyond atol 1e-05, rtol 0.0001, but rounding"));
  EXPECT_THAT(*line, HasSubstr(": ok"));
}

TEST(OutputCheckTest, AChangeIsMoreThanRounding) {
  const at::Tensor exact = at::tensor({1.0, 20.0, 0.0}, at::kDouble);
  const at::Tensor model = at::tensor({1.0f, 20.0f, 1e-6f});
  const at::Tensor graph = at::tensor({1.0f, 20.0f, 1e-3f});
  auto line = check_outputs(graph, kInputs, reference_of(model, exact), {});
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(),
              HasSubstr("output 0 differs from the model: max abs difference 0.000999"));
  EXPECT_THAT(line.status().message(), HasSubstr("more than rounding"));
  EXPECT_THAT(line.status().message(), HasSubstr("a pass changed what the model computes"));
}

TEST(OutputCheckTest, WithoutAFloat64RunADifferenceFails) {
  const at::Tensor model = at::tensor({1.0f, 20.00004f, 4e-5f});
  const at::Tensor graph = at::tensor({1.0f, 19.99996f, -4e-5f});
  auto line = check_outputs(graph, kInputs, reference_of(model, std::nullopt), {});
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(), HasSubstr("beyond --atol=1e-05 --rtol=0.0001"));
  EXPECT_THAT(line.status().message(), HasSubstr("; a pass changed what the model computes"));
}

// Who ran the graph says what else may have changed it.
TEST(OutputCheckTest, TheErrorNamesTheCulpritTheCallerGives) {
  CheckReference reference = reference_of(at::zeros({2}), std::nullopt);
  reference.culprit = "the pipeline changed it";
  auto line = check_outputs(at::ones({2}), kInputs, reference, {});
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(), HasSubstr("max abs difference 1 (beyond --atol=1e-05 "
                                                 "--rtol=0.0001); the pipeline changed it"));
}

// Integers do not round: a difference is a change whatever the float64 run says.
TEST(OutputCheckTest, IntegerOutputsHaveNoRoundingExcuse) {
  const at::Tensor model = at::tensor({1, 2, 3}, at::kLong);
  auto line = check_outputs(at::tensor({1, 2, 4}, at::kLong), kInputs,
                            reference_of(model, model.to(at::kDouble)), {});
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(), HasSubstr("output 0 differs from the model"));
  EXPECT_THAT(line.status().message(), Not(HasSubstr("rounding")));
}

TEST(OutputCheckTest, ShapesAndCountsMustMatch) {
  const at::Tensor want = at::zeros({2, 3});
  auto shape = check_outputs(at::zeros({3, 2}), kInputs, reference_of(want, std::nullopt), {});
  EXPECT_THAT(shape.status().message(),
              HasSubstr("output 0 is float[3, 2] but in the model it is float[2, 3]"));
  auto count = check_outputs(c10::ivalue::Tuple::create({want, want}), kInputs,
                             reference_of(want, std::nullopt), {});
  EXPECT_THAT(count.status().message(), HasSubstr("the graph returns 2 tensor(s), the model 1"));
}

// A model that writes its input in place: the graph must write it alike
// (an in-place write lost through a view would otherwise pass when no output
// reads the input).
TEST(OutputCheckTest, InputsTheModelWritesAreCompared) {
  CheckReference reference;
  reference.name = "the model";
  reference.writes_inputs = true;
  reference.run = [](std::vector<c10::IValue>& inputs) -> absl::StatusOr<c10::IValue> {
    inputs.at(0).toTensor().add_(1.0);
    return at::zeros({2});
  };
  const std::vector<c10::IValue> inputs = {at::ones({3})};
  const std::vector<c10::IValue> written_alike = {at::full({3}, 2.0)};
  auto ok = check_outputs(at::zeros({2}), inputs, reference, {}, &written_alike);
  ASSERT_TRUE(ok.ok()) << ok.status();
  const std::vector<c10::IValue> unwritten = {at::ones({3})};
  auto lost = check_outputs(at::zeros({2}), inputs, reference, {}, &unwritten);
  ASSERT_FALSE(lost.ok());
  EXPECT_THAT(lost.status().message(),
              HasSubstr("input 0 after the run differs from the same input after the model's run: "
                        "max abs difference 1"));
  // A reference that does not write its inputs (a saved run) compares none.
  reference.writes_inputs = false;
  EXPECT_TRUE(check_outputs(at::zeros({2}), inputs, reference, {}, &unwritten).ok());
}

// A saved run of float64 outputs is not matched by float32 ones, however
// close the numbers.
TEST(OutputCheckTest, DtypesMustMatch) {
  const at::Tensor want = at::ones({2}, at::kDouble);
  auto line = check_outputs(at::ones({2}), kInputs, reference_of(want, std::nullopt), {});
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(),
              HasSubstr("output 0 is float[2] but in the model it is double[2]"));
}

}  // namespace
}  // namespace fx
