// Copyright 2026 The FX for C++ Authors.
#include "passes/compile/compile.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/scalar_tensor.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/fuse_elementwise/fuse_elementwise.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/graph_module.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/kernels/elementwise_kernels.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::count_targets;

// The cache of this test's kernels: its own folder, so that the first
// compile of a program starts the compiler.
std::string cache_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/compile_test_", name);
}

GraphModule module_of(const std::function<void(Graph&)>& build) {
  auto g = std::make_unique<Graph>();
  build(*g);
  return GraphModule(empty_module("M"), std::move(g), "M");
}

// x * 0.5 + y, relu, minus a 0-dim s: one fused chain.
void chain(Graph& g) {
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* s = g.placeholder("s");
  Node* half = g.call_function("aten::mul.Tensor", {x, 0.5});
  Node* sum = g.call_function("aten::add.Tensor", {half, y});
  Node* relu = g.call_function("aten::relu", {sum});
  g.output(g.call_function("aten::sub.Tensor", {relu, s}));
}

class CompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginRegistrar r({"compile_test", "1", ""});
    register_shape_prop(r);
    register_fuse_elementwise(r);
    register_compile(r);
    ASSERT_TRUE(registry_.commit(r).ok());
  }

  // Runs `pipeline` on `gm` with `inputs` as example inputs; the warnings.
  std::vector<std::string> run_passes(GraphModule& gm, const std::vector<c10::IValue>& inputs,
                                      absl::string_view pipeline) {
    auto pm = PassManager::create(pipeline, registry_);
    EXPECT_TRUE(pm.ok()) << pm.status();
    PassContext context(registry_);
    context.set_example_inputs(inputs);
    status_ = pm->run(gm, context);
    return context.warnings();
  }

  Registry registry_;
  absl::Status status_;
};

// The chain becomes one fx::compiled_elementwise call whose kernel is
// compiled by the pass (the cache holds it afterwards), and the graph
// computes what aten computes, bit for bit: through the plan (float and
// double, again after a change of shape, which compiles at the run) and the
// Interpreter; inputs the fast path does not take (broadcasting, another
// dtype) give aten's results too.
TEST_F(CompileTest, AFusedChainRunsAsOneGeneratedKernelBitForBit) {
  const std::string dir = cache_dir("chain");
  ASSERT_EQ(setenv("FX_CACHE_DIR", dir.c_str(), 1), 0);
  const at::Tensor x = at::randn({4, 33}), y = at::randn({4, 33});
  const at::Tensor s = at::scalar_tensor(0.25);
  auto reference = [](const at::Tensor& x, const at::Tensor& y, const at::Tensor& s) {
    return (x * 0.5 + y).relu() - s;
  };
  GraphModule gm = module_of(chain);
  EXPECT_THAT(run_passes(gm, {x, y, s}, "shape_prop,fuse_elementwise,compile"), IsEmpty());
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kCompiledElementwise), 1);
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 0);
  size_t libraries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    libraries += entry.path().extension() == ".so";
  }
  EXPECT_EQ(libraries, 1u) << "the pass compiles the kernel shape_prop's record asks for";

  for (int run = 0; run < 2; ++run) {
    auto got = gm({x, y, s});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(at::equal(got->toTensor(), reference(x, y, s))) << "run " << run;
  }
  auto interpreted = Interpreter(gm).run({x, y, s});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(at::equal(interpreted->toTensor(), reference(x, y, s)));
  const at::Tensor xd = at::randn({7}, at::kDouble), yd = at::randn({7}, at::kDouble);
  const at::Tensor sd = at::scalar_tensor(-1.5, at::kDouble);
  auto doubles = gm({xd, yd, sd});
  ASSERT_TRUE(doubles.ok()) << doubles.status();
  EXPECT_TRUE(at::equal(doubles->toTensor(), reference(xd, yd, sd)))
      << doubles->toTensor() << reference(xd, yd, sd);
  // Broadcasting y, and a double s beside float tensors: aten's operators.
  const at::Tensor row = at::randn({33});
  auto broadcast = gm({x, row, s});
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  EXPECT_TRUE(at::equal(broadcast->toTensor(), reference(x, row, s)));
  auto mixed = gm({x, y, sd});
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_TRUE(at::equal(mixed->toTensor(), reference(x, y, sd)));
}

// No compiler: the pass fails naming the compiler and the fix.
TEST_F(CompileTest, WithoutACompilerThePassFailsNamingIt) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("no_compiler").c_str(), 1), 0);
  ASSERT_EQ(setenv("FX_CXX", "/nonexistent/g++", 1), 0);
  const at::Tensor x = at::randn({8}), y = at::randn({8}), s = at::scalar_tensor(2.0);
  GraphModule gm = module_of(chain);
  run_passes(gm, {x, y, s}, "shape_prop,fuse_elementwise,compile");
  unsetenv("FX_CXX");
  ASSERT_FALSE(status_.ok());
  EXPECT_THAT(std::string(status_.message()), HasSubstr("/nonexistent/g++"));
  EXPECT_THAT(std::string(status_.message()), HasSubstr("leave compile out of the pipeline"));
}

// A graph with nothing to compile is left alone, with a warning saying what
// the pass needs before it.
TEST_F(CompileTest, NothingToCompileIsSaid) {
  GraphModule gm = module_of([](Graph& g) {
    Node* x = g.placeholder("x");
    g.output(g.call_function("aten::relu", {x}));
  });
  EXPECT_THAT(run_passes(gm, {at::randn({3})}, "compile"),
              ElementsAre(HasSubstr("run fuse_elementwise before it")));
  EXPECT_TRUE(status_.ok()) << status_;
}

}  // namespace
}  // namespace fx
