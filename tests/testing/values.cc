// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/values.h"

#include <algorithm>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <fstream>
#include <iterator>

#include "gtest/gtest.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/value_conversion.h"
#include "tests/testing/fixtures.h"

namespace fx {
namespace testing {

bool all_close(const c10::IValue& a, const c10::IValue& b, std::string* why) {
  if (a.isTensor() && b.isTensor()) {
    if (a.toTensor().sizes() != b.toTensor().sizes()) {
      *why = "tensor shapes differ";
      return false;
    }
    if (a.toTensor().scalar_type() != b.toTensor().scalar_type()) {
      *why = std::string("tensor dtypes differ: ") + c10::toString(a.toTensor().scalar_type()) +
             " vs " + c10::toString(b.toTensor().scalar_type());
      return false;
    }
    const at::Tensor x = a.toTensor().to(at::kDouble), y = b.toTensor().to(at::kDouble);
    // Rounding is measured against the output's scale: a deep network whose
    // batch norms were folded (or fused by oneDNN) rounds its near-zero
    // elements by about 1e-6 of its largest ones (fpn_resnet18: 2.7e-5 where
    // values reach 11.4), past an absolute 1e-5.
    const double scale = y.numel() == 0 ? 1.0 : std::max(1.0, y.abs().max().item<double>());
    if (!at::allclose(x, y, 1e-4, 1e-5 * scale)) {
      const at::Tensor difference = (x - y).abs();
      *why = "tensor values differ (max abs difference " +
             std::to_string(difference.max().item<double>()) + " where |expected| is up to " +
             std::to_string(y.abs().max().item<double>()) + ")";
      return false;
    }
    return true;
  }
  if (a.isTuple() && b.isTuple()) {
    // A NamedTuple must stay one, of the same class and fields.
    auto named = [](const c10::IValue& v) {
      auto named_tuple = named_tuple_of(v.toTupleRef().type());
      if (!named_tuple) return std::string();
      std::string out = named_tuple->first + "(";
      for (const std::string& field : named_tuple->second) out += field + ",";
      return out + ")";
    };
    if (named(a) != named(b)) {
      *why = "tuple classes differ: '" + named(a) + "' vs '" + named(b) + "'";
      return false;
    }
  }
  if ((a.isTuple() || a.isList()) && (b.isTuple() || b.isList())) {
    const std::vector<c10::IValue> x = sequence_elements(a);
    const std::vector<c10::IValue> y = sequence_elements(b);
    if (x.size() != y.size()) {
      *why = "sequence lengths differ";
      return false;
    }
    for (size_t i = 0; i < x.size(); ++i) {
      if (!all_close(x[i], y[i], why)) {
        *why = "element " + std::to_string(i) + ": " + *why;
        return false;
      }
    }
    return true;
  }
  if (a.isGenericDict() && b.isGenericDict()) {
    const auto x = a.toGenericDict();
    const auto y = b.toGenericDict();
    if (x.size() != y.size()) {
      *why = "dict sizes differ";
      return false;
    }
    auto yi = y.begin();
    for (auto xi = x.begin(); xi != x.end(); ++xi, ++yi) {
      if (xi->key() != yi->key()) {
        *why = "dict keys differ";
        return false;
      }
      if (!all_close(xi->value(), yi->value(), why)) {
        *why = "dict value " + (xi->key().isString() ? "'" + xi->key().toStringRef() + "'"
                                                      : std::string(xi->key().tagKind())) +
               ": " + *why;
        return false;
      }
    }
    return true;
  }
  if (a == b) return true;
  *why = std::string(a.tagKind()) + " vs " + b.tagKind();
  return false;
}

std::vector<at::Tensor> tensors_of(const c10::IValue& v) {
  if (v.isTensor()) return {v.toTensor()};
  std::vector<at::Tensor> out;
  for (const c10::IValue& e : v.toTupleRef().elements()) out.push_back(e.toTensor());
  return out;
}

c10::IValue deep_clone(const c10::IValue& v) { return deep_copy(v); }

std::vector<c10::IValue> load_inputs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << "cannot read inputs " << path;
  if (bytes.empty()) return {};
  const c10::IValue inputs = torch::jit::pickle_load(bytes);
  return sequence_elements(inputs);
}

namespace {
std::vector<c10::IValue> clone(const std::vector<c10::IValue>& inputs) {
  std::vector<c10::IValue> out;
  for (const c10::IValue& v : inputs) out.push_back(deep_clone(v));
  return out;
}
}  // namespace

namespace {
// That one run of the graph (`run`: "plan run 2", "call 3 of 5") gave `want`
// and left its inputs as the module left its own.
void expect_same_run(const std::string& what, const std::string& run,
                     const absl::StatusOr<c10::IValue>& got, const c10::IValue& want,
                     const std::vector<c10::IValue>& run_inputs,
                     const std::vector<c10::IValue>& module_inputs) {
  ASSERT_TRUE(got.ok()) << what << " " << run << ": " << got.status();
  std::string why;
  EXPECT_TRUE(all_close(*got, want, &why)) << what << " " << run << ": outputs differ: " << why;
  for (size_t i = 0; i < run_inputs.size() && i < module_inputs.size(); ++i) {
    EXPECT_TRUE(all_close(run_inputs[i], module_inputs[i], &why))
        << what << " " << run << ": input " << i << " differs after the run: " << why;
  }
}
}  // namespace

void expect_runs_like_the_module(GraphModule& gm, torch::jit::Module module,
                                 const std::vector<c10::IValue>& inputs, const std::string& what) {
  std::vector<c10::IValue> module_inputs = clone(inputs);
  const c10::IValue want = module.forward(module_inputs);
  for (int run = 1; run <= 3; ++run) {
    std::vector<c10::IValue> run_inputs = clone(inputs);
    absl::StatusOr<c10::IValue> got = gm(run_inputs);
    expect_same_run(what, "plan run " + std::to_string(run), got, want, run_inputs, module_inputs);
  }
  std::vector<c10::IValue> run_inputs = clone(inputs);
  absl::StatusOr<c10::IValue> got = Interpreter(gm).run(run_inputs);
  expect_same_run(what, "Interpreter", got, want, run_inputs, module_inputs);
}

namespace {
// `v` with its floating-point tensors (in tuples, lists and dicts too)
// multiplied by `factor`; everything else as it is.
c10::IValue scaled(const c10::IValue& v, double factor) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() && t.is_floating_point() ? c10::IValue(t * factor) : c10::IValue(t.clone());
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& e : v.toTupleRef().elements()) items.push_back(scaled(e, factor));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  if (v.isList()) {
    c10::impl::GenericList list(v.toList().elementType());
    for (const c10::IValue& e : v.toListRef()) list.push_back(scaled(e, factor));
    return list;
  }
  if (v.isGenericDict()) {
    c10::impl::GenericDict dict(v.toGenericDict().keyType(), v.toGenericDict().valueType());
    for (const auto& entry : v.toGenericDict()) dict.insert(entry.key(), scaled(entry.value(), factor));
    return dict;
  }
  return deep_clone(v);
}
}  // namespace

void expect_serves_like_the_module(GraphModule& gm, torch::jit::Module module,
                                   const std::vector<c10::IValue>& inputs, const std::string& what,
                                   int calls) {
  for (int k = 0; k < calls; ++k) {
    std::vector<c10::IValue> call_inputs;
    for (const c10::IValue& v : inputs) call_inputs.push_back(scaled(v, 1.0 + k / 8.0));
    std::vector<c10::IValue> module_inputs = clone(call_inputs);
    const c10::IValue want = module.forward(module_inputs);
    std::vector<c10::IValue> run_inputs = clone(call_inputs);
    absl::StatusOr<c10::IValue> got = gm(run_inputs);
    expect_same_run(what, "call " + std::to_string(k + 1) + " of " + std::to_string(calls), got, want,
                    run_inputs, module_inputs);
  }
  std::vector<c10::IValue> module_inputs = clone(inputs);
  const c10::IValue want = module.forward(module_inputs);
  std::vector<c10::IValue> run_inputs = clone(inputs);
  absl::StatusOr<c10::IValue> got = Interpreter(gm).run(run_inputs);
  expect_same_run(what, "Interpreter", got, want, run_inputs, module_inputs);
}

void expect_runs_like_the_fixture(GraphModule& gm, const std::string& fixture,
                                  const std::vector<c10::IValue>& inputs, const std::string& what) {
  expect_runs_like_the_module(gm, load_fixture(fixture), inputs, what);
}

void expect_serves_like_the_fixture(GraphModule& gm, const std::string& fixture,
                                    const std::vector<c10::IValue>& inputs, const std::string& what,
                                    int calls) {
  expect_serves_like_the_module(gm, load_fixture(fixture), inputs, what, calls);
}

std::vector<c10::IValue> example_inputs(const std::string& fixture) {
  at::manual_seed(0);
  if (fixture == "m2") return {at::rand({3, 4}), at::rand({3, 4})};
  if (fixture == "my_module") return {at::rand({5, 4})};
  if (fixture == "simple_model") return {at::rand({2, 10})};
  if (fixture == "multi_io") return {at::rand({2, 4}), at::rand({2, 3})};
  if (fixture == "ops") return {at::rand({2, 4}), at::rand({2, 4})};
  if (fixture == "frozen_linear") return {at::rand({2, 4})};
  if (fixture == "m1" || fixture == "m_relu_add" || fixture == "exp_tan" ||
      fixture == "train_mode" || fixture == "inplace_input" || fixture == "uses_pair" ||
      fixture == "gated" || fixture == "leaf_function") {
    return {at::randn({3, 4})};
  }
  return {at::rand({1, 3, 224, 224})};
}

}  // namespace testing
}  // namespace fx
