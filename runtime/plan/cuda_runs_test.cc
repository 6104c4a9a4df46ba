// Copyright 2026 The FX for C++ Authors.
//
// Plans on a CUDA device: stream order, host synchronisations named, CUDA
// graphs captured and replayed (cuda_runs.h). Every test but the first needs
// a GPU and skips, saying so, without one; tools/gpu_check.sh builds and runs
// this test where a GPU is lent.
#include <functional>
#include <thread>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/devices.h"
#include "runtime/plan/execution_plan.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

const c10::Device kGpu(c10::kCUDA, 0);

// Skips the test unless a GPU is here.
#define REQUIRE_GPU()                                                                       \
  if (!libtorch_has_cuda() || !at::hasCUDA()) {                                             \
    GTEST_SKIP() << "needs a CUDA device: " << (libtorch_has_cuda()                         \
                                                    ? "this machine has none visible"       \
                                                    : "this libtorch is built without CUDA"); \
  }

// (n + 1) * x through n adds: launch-bound, as seed 003's graphs are.
GraphModule chain_of_adds(int n) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* v = g->call_function("aten::add.Tensor", {x, x});
  for (int i = 1; i < n; ++i) v = g->call_function("aten::add.Tensor", {v, x});
  g->output(v);
  return GraphModule(empty_module("Chain"), std::move(g));
}

std::shared_ptr<const ExecutionPlan> compile(const GraphModule& gm, bool graphs) {
  PlanOptions options;
  options.device = kGpu;
  options.cuda_graphs = graphs;
  auto plan = ExecutionPlan::compile(gm, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : nullptr;
}

at::Tensor run(const ExecutionPlan& plan, ExecutionPlan::RunState& state, const at::Tensor& x) {
  auto out = plan.run(state, {x});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->toTensor() : at::Tensor();
}

// Compiles `g` (one input: 16 floats) for the GPU with graphs, runs it four
// times on fresh inputs, checking each output against `expected(x)`, and
// returns what the run state knows.
CudaRunStatus run_four_times(std::unique_ptr<Graph> g,
                             const std::function<at::Tensor(const at::Tensor&)>& expected) {
  GraphModule gm(empty_module("Graph"), std::move(g));
  auto plan = compile(gm, true);
  auto state = plan->make_state();
  for (int i = 0; i < 4; ++i) {
    const at::Tensor x = at::randn({16}, at::device(kGpu));
    EXPECT_TRUE(at::allclose(run(*plan, *state, x).cpu(), expected(x).cpu())) << "run " << i;
  }
  return plan->cuda_status(*state);
}

TEST(CudaRunsTest, GraphsOffCudaAreRefused) {
  PlanOptions options;
  options.cuda_graphs = true;  // on the CPU
  auto plan = ExecutionPlan::compile(chain_of_adds(2), options);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("CUDA graphs run on a CUDA device"));
}

TEST(CudaRunsTest, ReplaysComputeWhatRunsWithoutGraphsDo) {
  REQUIRE_GPU();
  GraphModule gm = chain_of_adds(100);
  auto captured = compile(gm, true);
  auto state = captured->make_state();
  for (int i = 0; i < 6; ++i) {
    // Fresh values each run: a replay must read this run's input.
    const at::Tensor x = at::randn({32, 64}, at::device(kGpu));
    const at::Tensor out = run(*captured, *state, x);
    EXPECT_TRUE(at::allclose(out, x * 101, 1e-5, 1e-5)) << "run " << i;
  }
  const CudaRunStatus status = captured->cuda_status(*state);
  EXPECT_TRUE(status.observed);
  EXPECT_TRUE(status.host_syncs.empty());
  EXPECT_TRUE(status.captured) << status.not_captured;
  EXPECT_EQ(status.replays, 4u);  // runs 3 to 6
}

TEST(CudaRunsTest, ReplayOutputsStayAfterLaterReplays) {
  REQUIRE_GPU();
  auto plan = compile(chain_of_adds(3), true);
  auto state = plan->make_state();
  std::vector<at::Tensor> inputs, outputs;
  for (int i = 0; i < 5; ++i) {
    inputs.push_back(at::randn({8}, at::device(kGpu)));
    outputs.push_back(run(*plan, *state, inputs.back()));
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(at::allclose(outputs[i], inputs[i] * 4)) << i;
}

TEST(CudaRunsTest, NodeReadOnTheHostIsNamedAndPreventsCapture) {
  REQUIRE_GPU();
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* nz = g->call_function("aten::nonzero", {x});
  g->output(nz);
  GraphModule gm(empty_module("NonZero"), std::move(g));
  auto plan = compile(gm, true);
  auto state = plan->make_state();
  for (int i = 0; i < 4; ++i) {
    const at::Tensor x_in = at::randint(0, 2, {64}, at::device(kGpu));
    EXPECT_TRUE(at::equal(run(*plan, *state, x_in).cpu(), at::nonzero(x_in.cpu()))) << i;
  }
  const CudaRunStatus status = plan->cuda_status(*state);
  ASSERT_EQ(status.host_syncs.size(), 1u);
  EXPECT_THAT(status.host_syncs[0], HasSubstr("%nonzero (aten::nonzero)"));
  EXPECT_FALSE(status.captured);
  EXPECT_THAT(status.not_captured, HasSubstr("%nonzero"));
}

TEST(CudaRunsTest, CpuOperatorInTheMiddlePreventsCapture) {
  REQUIRE_GPU();
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* on_cpu = g->call_function("aten::_to_copy", {x}, {{"device", c10::Device(c10::kCPU)}});
  Node* y = g->call_function("aten::mul.Scalar", {on_cpu, 2.0});
  g->output(y);
  const CudaRunStatus status =
      run_four_times(std::move(g), [](const at::Tensor& x) { return x.cpu() * 2; });
  EXPECT_FALSE(status.captured);
  EXPECT_THAT(status.not_captured, HasSubstr("%_to_copy"));
}

// seed 003's workload (e3nn's code) makes `torch.empty((), device="cpu")`
// for broadcasting shapes only: the graph is captured all the same.
TEST(CudaRunsTest, HostTensorsUsedForShapesOnlyAllowCapture) {
  REQUIRE_GPU();
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* empty = g->call_function("aten::empty.memory_format", {Argument::List({})},
                                 {{"device", c10::Device(c10::kCPU)}});
  g->call_function("aten::expand", {empty, Argument::List({16})});  // (dead)
  Node* y = g->call_function("aten::mul.Scalar", {x, 2.0});
  g->output(y);
  const CudaRunStatus status =
      run_four_times(std::move(g), [](const at::Tensor& x) { return x * 2; });
  EXPECT_TRUE(status.captured) << status.not_captured;
}

// Host data that a device computation reads is not captured: the node is
// named. (A 0-dim host tensor is an operand CUDA kernels take, read on the
// host at launch, with no synchronisation: a replay would keep its value.
// Copying host data to the device, by contrast, synchronises, and is named
// as such: CpuOperatorInTheMiddlePreventsCapture's kind of message.)
TEST(CudaRunsTest, HostDataFeedingTheDevicePreventsCapture) {
  REQUIRE_GPU();
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* three = g->call_function("aten::full", {Argument::List({}), 3.0},
                                 {{"device", c10::Device(c10::kCPU)}});
  Node* y = g->call_function("aten::mul.Tensor", {x, three});
  g->output(y);
  const CudaRunStatus status =
      run_four_times(std::move(g), [](const at::Tensor& x) { return x * 3; });
  EXPECT_TRUE(status.host_syncs.empty());
  EXPECT_FALSE(status.captured);
  EXPECT_THAT(status.not_captured, HasSubstr("%full (aten::full), computed on the host, feeds "
                                             "%mul (aten::mul.Tensor) on cuda:0"));
}

// A graph that writes its input (x.add_(1)) writes the caller's tensor on
// every replay too, not only the graph's static copy.
TEST(CudaRunsTest, InputsTheGraphWritesAreWrittenByReplays) {
  REQUIRE_GPU();
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* added = g->call_function("aten::add_.Scalar", {x, 1.0});
  Node* y = g->call_function("aten::mul.Scalar", {added, 3.0});
  g->output(y);
  GraphModule gm(empty_module("WritesInput"), std::move(g));
  auto plan = compile(gm, true);
  auto state = plan->make_state();
  for (int i = 0; i < 5; ++i) {
    at::Tensor x_in = at::randn({16}, at::device(kGpu));
    const at::Tensor before = x_in.clone();
    const at::Tensor out = run(*plan, *state, x_in);
    EXPECT_TRUE(at::allclose(x_in, before + 1)) << "run " << i;
    EXPECT_TRUE(at::allclose(out, (before + 1) * 3)) << "run " << i;
  }
  EXPECT_TRUE(plan->cuda_status(*state).captured);
}

// A state that alternates between two input shapes keeps one graph each,
// each with the arena it was captured with.
TEST(CudaRunsTest, AlternatingSignaturesReplayTheirOwnGraphs) {
  REQUIRE_GPU();
  auto plan = compile(chain_of_adds(20), true);
  auto state = plan->make_state();
  for (int i = 0; i < 12; ++i) {
    const at::Tensor x = at::randn({i % 2 == 0 ? 8 : 1024}, at::device(kGpu));
    EXPECT_TRUE(at::allclose(run(*plan, *state, x), x * 21, 1e-5, 1e-5)) << "run " << i;
  }
  EXPECT_TRUE(plan->cuda_status(*state).captured);
}

// Threads with a stream and a state each share one plan; each result is
// its own input's, with graphs and without.
TEST(CudaRunsTest, ThreadsWithStreamsOfTheirOwnShareOnePlan) {
  REQUIRE_GPU();
  for (bool graphs : {false, true}) {
    auto plan = compile(chain_of_adds(50), graphs);
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        const c10::impl::VirtualGuardImpl cuda(c10::kCUDA);
        const c10::Stream stream = cuda.getStreamFromGlobalPool(kGpu);
        // The inputs are made, and the results read, on the thread's stream.
        const c10::StreamGuard on_stream(stream);
        auto state = plan->make_state();
        for (int i = 0; i < 20; ++i) {
          const at::Tensor x = at::randn({256, 256}, at::device(kGpu));
          auto out = plan->run(*state, {x}, stream);
          if (!out.ok()) {
            ++failures[t];
            continue;
          }
          if (!at::allclose(out->toTensor(), x * 51, 1e-4, 1e-4)) ++failures[t];
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t << " graphs " << graphs;
  }
}

TEST(CudaRunsTest, StreamOfAnotherDeviceIsRefused) {
  REQUIRE_GPU();
  auto plan = compile(chain_of_adds(2), false);
  auto state = plan->make_state();
  auto out = plan->run(*state, {at::randn({2}, at::device(kGpu))},
                       c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("a stream of cpu was given"));
}

}  // namespace
}  // namespace fx
