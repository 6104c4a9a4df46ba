// Copyright 2026 The FX for C++ Authors.
//
// fxrun --run and --check on models that are hard to run twice (one that
// changes a buffer in every run, one that writes an input in place, which an
// expanded input does not allow), and runs on the meta device.
#include <sys/stat.h>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using Result = ::fx::testing::FxrunResult;

std::string temp_path(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, absl::string_view prefix) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) out.emplace_back(line);
  }
  return out;
}

torch::jit::Module new_module(const std::string& name) {
  torch::jit::Module m(c10::QualifiedName("__torch__." + name),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.register_attribute("training", c10::BoolType::get(), false);
  return m;
}

// A model that counts its calls in a buffer and adds the count.
std::string counter_model() {
  const std::string path = temp_path("counter.pt");
  torch::jit::Module m = new_module("Counter");
  m.register_buffer("count", at::zeros({1}));
  m.define("def forward(self, x):\n    self.count.add_(1)\n    return x + self.count\n");
  m.save(path);
  return path;
}

// Issue 20: `self.count.add_(1)` was reported as "a pass changed what the
// model computes" with no pass run: one side ran from the state the other
// left. Both start from the same state, and the outputs printed are what one
// run gives, however many runs are timed.
TEST(FxrunCheckTest, AModelThatUpdatesABufferIsCheckedFromTheSameState) {
  const std::string model = counter_model();
  Result once = fxrun("--model=" + model + " --print=none --run --input-shape=3");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  for (const char* runs : {"", " --repeat=3 --warmup=2"}) {
    Result checked = fxrun("--model=" + model + " --print=none --check --input-shape=3" + runs);
    ASSERT_EQ(checked.exit_code, 0) << runs << ": " << checked.err;
    EXPECT_THAT(checked.out, HasSubstr("check: max abs difference 0 "));
    EXPECT_EQ(lines_starting(checked.out, "output "), lines_starting(once.out, "output "));
  }
}

// Issue 25: inputs were cloned before --check, so an in-place add_ on an
// expanded input (stride 0, which the operator refuses) passed, though the
// TorchScript module raises. The inputs are used as given.
TEST(FxrunCheckTest, AnInputTheModelRejectsIsRejectedAsTheModelRejectsIt) {
  const std::string model = temp_path("add_in_place.pt");
  torch::jit::Module m = new_module("AddInPlace");
  m.define("def forward(self, x, y):\n    x.add_(y)\n    return x\n");
  m.save(model);
  const at::Tensor expanded = at::ones({4}).expand({3, 4});
  const at::Tensor y = at::ones({3, 4});
  EXPECT_THROW(m.forward({at::ones({4}).expand({3, 4}), y}), std::exception);  // TorchScript's verdict
  const std::string inputs = temp_path("expanded_inputs.pt");
  const std::vector<char> bytes =
      torch::jit::pickle_save(c10::ivalue::Tuple::create({expanded, y}));
  std::ofstream(inputs, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  Result r = fxrun("--model=" + model + " --input=" + inputs + " --print=none --check");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr("add_"));
  EXPECT_THAT(r.err, HasSubstr("single memory location"));
  // The same values laid out densely are fine.
  const std::string dense = temp_path("dense_inputs.pt");
  const std::vector<char> dense_bytes =
      torch::jit::pickle_save(c10::ivalue::Tuple::create({expanded.contiguous(), y}));
  std::ofstream(dense, std::ios::binary)
      .write(dense_bytes.data(), static_cast<std::streamsize>(dense_bytes.size()));
  Result ok = fxrun("--model=" + model + " --input=" + dense + " --print=none --check");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("check: max abs difference 0 "));
}

// Issue 35: a model that writes its own parameter in forward (weight
// clipping: PyTorch runs it under no_grad) and advances a step counter. The
// passes that run it (shape_prop, and split to weigh its cut) leave its state
// as it was, and --check's reference runs without autograd, as PyTorch does:
// the pipeline computes the model's first call, and what --save writes holds
// the state the model had.
TEST(FxrunCheckTest, AModelThatWritesItsStateRunsThroughPassesThatRunIt) {
  const std::string model = temp_path("writes_its_state.pt");
  torch::jit::Module m = new_module("WritesItsState");
  m.register_parameter("weight", (at::arange(4, at::kFloat) - 1.5).requires_grad_(true),
                       /*is_buffer=*/false);
  m.register_buffer("steps", at::zeros({1}));
  m.define(
      "def forward(self, x):\n"
      "    self.weight.clamp_(-0.5, 0.5)\n"
      "    self.steps.add_(1)\n"
      "    return x * self.weight + self.steps\n");
  m.save(model);
  ASSERT_TRUE(m.attr("weight").toTensor().requires_grad());
  const std::string saved = temp_path("writes_its_state_split.pt");
  Result r = fxrun("--model=" + model +
                   " --passes='shape_prop,split{stages=2 cost=time}' --input-shape=4 --print=none "
                   "--check --save=" + saved);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("check: max abs difference 0 "));
  // The first call's outputs, as a run without passes gives them.
  Result once = fxrun("--model=" + model + " --input-shape=4 --print=none --run");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  EXPECT_EQ(lines_starting(r.out, "output "), lines_starting(once.out, "output "));
  torch::jit::Module written = torch::jit::load(saved);
  for (const auto& buffer : written.named_buffers()) {
    EXPECT_TRUE(at::equal(buffer.value, at::zeros({1}))) << buffer.name << ": " << buffer.value;
  }
  for (const auto& parameter : written.named_parameters()) {
    EXPECT_TRUE(at::equal(parameter.value.detach(), at::arange(4, at::kFloat) - 1.5))
        << parameter.name << ": " << parameter.value;
  }
}

// Issue 35: a List[Tensor] input (saved by torch.save, read as a list of
// any) handed whole to a leaf module, as the tracer's refusal of a loop over
// it advises: the leaf and --check's reference take it as List[Tensor].
TEST(FxrunCheckTest, AListOfTensorsInputReachesALeafModule) {
  const std::string model = temp_path("list_to_leaf.pt");
  torch::jit::Module head = new_module("Head");
  head.define(
      "def forward(self, xs: List[Tensor]):\n"
      "    out = xs[0]\n"
      "    for x in xs[1:]:\n"
      "        out = out + x\n"
      "    return out\n");
  torch::jit::Module m = new_module("ListToLeaf");
  m.register_module("head", head);
  m.define("def forward(self, xs: List[Tensor]):\n    return self.head.forward(xs) * 2\n");
  m.save(model);
  const std::string inputs = temp_path("list_inputs.pt");
  c10::impl::GenericList list(c10::AnyType::get());
  list.push_back(at::ones({2}));
  list.push_back(at::full({2}, 2.0));
  const std::vector<char> bytes = torch::jit::pickle_save(c10::ivalue::Tuple::create({list}));
  std::ofstream(inputs, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  Result refused = fxrun("--model=" + model + " --input=" + inputs + " --print=none --check");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("leaf_policy{leaves=Head}"));
  Result r = fxrun("--model=" + model + " --tracer='leaf_policy{leaves=head}' --input=" + inputs +
                   " --print=none --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output 0: float[2] sum 12,"));
  EXPECT_THAT(r.out, HasSubstr("check: max abs difference 0 "));
}

// Issue 25: --device=meta failed for every model with parameters with
// libtorch's text. The bundled ResNet-18 runs there: shapes and dtypes, and
// no checksum (a meta tensor has no values).
TEST(FxrunCheckTest, ResNet18RunsOnTheMetaDeviceGivingShapesOnly) {
  Result r = fxrun("--print=none --run --device=meta");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run on meta: x float[1, 3, 224, 224]"));
  EXPECT_EQ(lines_starting(r.out, "output "), std::vector<std::string>{"output 0: float[1, 1000]"});
}

// What the meta device cannot run is an error naming the node, in a line.
TEST(FxrunCheckTest, ANodeTheMetaDeviceCannotRunIsNamed) {
  const std::string model = temp_path("roll.pt");
  torch::jit::Module m = new_module("Roll");
  m.define("def forward(self, x):\n    return torch.roll(x, 1, 0) * 2\n");
  m.save(model);
  Result r = fxrun("--model=" + model + " --input-shape=3,4 --print=none --run --device=meta");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("node 'roll' (torch.ops.aten.roll.default): libtorch has no kernel "
                               "of aten::roll for the Meta backend"));
  EXPECT_THAT(r.err, HasSubstr("run on cpu"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("registered at")));
}

}  // namespace
}  // namespace fx
