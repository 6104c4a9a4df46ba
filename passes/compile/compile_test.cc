// Copyright 2026 The FX for C++ Authors.
#include "passes/compile/compile.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/all.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/printer.h"
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

// The kernel libraries in `dir`.
size_t libraries_in(const std::string& dir) {
  size_t libraries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    libraries += entry.path().extension() == ".so";
  }
  return libraries;
}

// Equal bit for bit, NaN where the other has NaN (of any sign and payload:
// elementwise_source.h).
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const auto bits = a.scalar_type() == c10::kFloat ? c10::kInt : c10::kLong;
  const at::Tensor equal_bits = a.contiguous().view(bits) == b.contiguous().view(bits);
  return (equal_bits | (a.isnan() & b.isnan())).all().item<bool>();
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
  EXPECT_EQ(libraries_in(dir), 1u) << "the pass compiles the kernel shape_prop's record asks for";

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
  EXPECT_EQ(libraries_in(dir), 2u) << "the operator has the double kernel made at its first run";
  // Broadcasting y, and a double s beside float tensors: aten's operators.
  const at::Tensor row = at::randn({33});
  auto broadcast = gm({x, row, s});
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  EXPECT_TRUE(at::equal(broadcast->toTensor(), reference(x, row, s)));
  auto mixed = gm({x, y, sd});
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_TRUE(at::equal(mixed->toTensor(), reference(x, y, sd)));
}

// Special values (NaN, infinities, signed zeros, denormals) through the
// graph: the compiled graph gives what fuse_elementwise's gives, bit for bit.
TEST_F(CompileTest, SpecialValuesGiveTheInterpretersBits) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("special").c_str(), 1), 0);
  const double specials[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e-40, -3e-39, 1e30};
  at::Tensor x = at::randn({64}), y = at::randn({64});
  for (int64_t i = 0; i < 9; ++i) {
    x[i] = specials[i];
    y[9 + i] = specials[i];
    x[18 + i] = specials[i];
    y[18 + i] = specials[(i + 4) % 9];
  }
  const at::Tensor s = at::scalar_tensor(-0.0);
  GraphModule interpreted = module_of(chain), compiled = module_of(chain);
  run_passes(interpreted, {x, y, s}, "shape_prop,fuse_elementwise");
  ASSERT_TRUE(status_.ok()) << status_;
  run_passes(compiled, {x, y, s}, "shape_prop,fuse_elementwise,compile");
  ASSERT_TRUE(status_.ok()) << status_;
  ASSERT_EQ(count_targets(compiled.graph(), kCompiledElementwise), 1);
  auto want = interpreted({x, y, s});
  auto got = compiled({x, y, s});
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_TRUE(same_bits(got->toTensor(), want->toTensor())) << got->toTensor() << want->toTensor();
}

// The pass run again finds its calls compiled: nothing to say, nothing
// changed, their kernels already loaded.
TEST_F(CompileTest, RunningThePassAgainChangesNothing) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("again").c_str(), 1), 0);
  const at::Tensor x = at::randn({5}), y = at::randn({5}), s = at::scalar_tensor(1.0);
  GraphModule gm = module_of(chain);
  EXPECT_THAT(run_passes(gm, {x, y, s}, "shape_prop,fuse_elementwise,compile"), IsEmpty());
  const std::string before = format_graph(gm.graph());
  EXPECT_THAT(run_passes(gm, {x, y, s}, "compile"), IsEmpty());
  EXPECT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(format_graph(gm.graph()), before);
  auto report = compile_kernels(gm);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->calls, 0);
  EXPECT_EQ(report->already_compiled, 1);
  EXPECT_EQ(report->already_loaded, 1);
}

// PyTorch has no fx::compiled_elementwise: files it loads cannot hold the
// compiled graph, and the refusal names both passes to run after loading.
TEST_F(CompileTest, CompiledGraphsAreNotSavedForPyTorch) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("save").c_str(), 1), 0);
  GraphModule gm = module_of(chain);
  run_passes(gm, {at::randn({3}), at::randn({3}), at::scalar_tensor(1.0)},
             "shape_prop,fuse_elementwise,compile");
  ASSERT_TRUE(status_.ok()) << status_;
  const absl::Status stored = gm.check_storable("TorchScript");
  ASSERT_FALSE(stored.ok());
  EXPECT_THAT(std::string(stored.message()), HasSubstr("fx::compiled_elementwise"));
  EXPECT_THAT(std::string(stored.message()),
              HasSubstr("save the graph before fuse_elementwise and compile"));
}

// A pass that fails leaves the graph as it was: the call before the one
// refused is not rewritten either.
TEST_F(CompileTest, AFailureLeavesTheGraphAsItWas) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("failure").c_str(), 1), 0);
  const at::Tensor x = at::randn({5}), y = at::randn({5}), s = at::scalar_tensor(1.0);
  GraphModule gm = module_of(chain);
  run_passes(gm, {x, y, s}, "shape_prop,fuse_elementwise");
  ASSERT_TRUE(status_.ok()) << status_;
  Node* bad = nullptr;
  {
    auto guard = gm.graph().inserting_before(gm.graph().output_node());
    bad = gm.graph().call_function(
        kElementwise,
        {"t0=frobnicate(i0)", Argument::List({Argument(gm.graph().placeholders()[0])})});
  }
  auto report = compile_kernels(gm);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr(bad->name()));
  EXPECT_EQ(count_targets(gm.graph(), kCompiledElementwise), 0);
  EXPECT_EQ(count_targets(gm.graph(), kElementwise), 2);
}

// A kernel that could not be made is made at the next ask once the cause
// is gone (a cache folder that could not be made, here), in the same
// process.
TEST_F(CompileTest, AFailureIsNotKeptForTheNextRun) {
  const std::string blocked = cache_dir("blocked");
  { std::ofstream file(blocked); }  // a file where the cache's parent folder should be
  const std::string dir = absl::StrCat(blocked, "/kernels");
  ASSERT_EQ(setenv("FX_CACHE_DIR", dir.c_str(), 1), 0);
  const at::Tensor x = at::randn({6}), y = at::randn({6}), s = at::scalar_tensor(1.0);
  GraphModule gm = module_of(chain);
  run_passes(gm, {x, y, s}, "shape_prop,fuse_elementwise,compile");
  ASSERT_FALSE(status_.ok());
  std::filesystem::remove(blocked);
  run_passes(gm, {x, y, s}, "compile");
  EXPECT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(count_targets(gm.graph(), kCompiledElementwise), 1);
  EXPECT_EQ(libraries_in(dir), 1u);
}

// Collects c10's warnings (the handler's interface changed in libtorch 2).
class Warnings : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning& warning) override { said.push_back(warning.msg()); }
#else
  void process(const c10::SourceLocation&, const std::string& message, bool) override {
    said.push_back(message);
  }
#endif
  std::vector<std::string> said;
};
#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

// The compiler gone when a signature the pass did not compile first runs
// (double inputs after a float record): the runs give the interpreter's
// results, and the cause is said once.
TEST_F(CompileTest, ACompilerGoneAtTheRunIsSaidOnceAndTheInterpreterRuns) {
  ASSERT_EQ(setenv("FX_CACHE_DIR", cache_dir("gone").c_str(), 1), 0);
  // (A program of its own: the operator keeps the kernels it made per program.)
  auto build = [](Graph& g) {
    Node* x = g.placeholder("x");
    Node* y = g.placeholder("y");
    Node* scaled = g.call_function("aten::mul.Tensor", {x, 0.375});
    g.output(g.call_function("aten::relu", {g.call_function("aten::sub.Tensor", {scaled, y})}));
  };
  auto reference = [](const at::Tensor& x, const at::Tensor& y) { return (x * 0.375 - y).relu(); };
  GraphModule gm = module_of(build);
  run_passes(gm, {at::randn({9}), at::randn({9})}, "shape_prop,fuse_elementwise,compile");
  ASSERT_TRUE(status_.ok()) << status_;
  ASSERT_EQ(setenv("FX_CXX", "/nonexistent/gone-g++", 1), 0);
  Warnings warnings;
  {
    WarningHandlerGuard guard(&warnings);
    for (int run = 0; run < 3; ++run) {
      const at::Tensor x = at::randn({11}, at::kDouble), y = at::randn({11}, at::kDouble);
      auto got = gm({x, y});
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(at::equal(got->toTensor(), reference(x, y))) << "run " << run;
    }
  }
  unsetenv("FX_CXX");
  EXPECT_THAT(warnings.said, ElementsAre(HasSubstr("/nonexistent/gone-g++")));
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
