// Copyright 2026 The FX for C++ Authors.
//
// A generated elementwise kernel (codegen/elementwise_source.h) against
// fx::elementwise's interpreter and against aten's operators one by one, on
// chains of adds and of mixed operations, small and large tensors, alone and
// as a graph's call through the execution plan. One thread (the generated
// loop is serial, as the interpreter's fast path is).
//   bazel run --config=opt //benchmarks:codegen_benchmark -- --benchmark_repetitions=5
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/relu.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "codegen/elementwise_source.h"
#include "codegen/kernel_library.h"
#include "core/graph.h"
#include "runtime/graph_module.h"
#include "runtime/kernels/elementwise_kernels.h"

namespace fx {
namespace {

// t0 = i0 + i1, then `length` - 1 more: adds of i1 and, with `mixed`, a mul
// by 0.5 and a relu in turn.
std::string chain(int length, bool mixed) {
  std::string text = "t0=add(i0,i1)";
  for (int k = 1; k < length; ++k) {
    const int kind = mixed ? k % 3 : 0;
    absl::StrAppend(&text, ";t", k, "=",
                    kind == 0 ? absl::StrCat("add(t", k - 1, ",i1)")
                    : kind == 1 ? absl::StrCat("mul(t", k - 1, ",0.5)")
                                : absl::StrCat("relu(t", k - 1, ")"));
  }
  return text;
}

struct Case {
  ElementwiseProgram program;
  std::shared_ptr<const codegen::KernelLibrary> library;
  codegen::ElementwiseKernel* kernel = nullptr;
  at::Tensor x, y, out;
};

Case make(const benchmark::State& state) {
  at::set_num_threads(1);
  Case c;
  c.program = *ElementwiseProgram::parse(chain(static_cast<int>(state.range(0)), state.range(2) != 0));
  auto source = codegen::elementwise_source(c.program, {c10::kFloat, {false, false}});
  codegen::CompilerOptions options = codegen::CompilerOptions::from_environment();
  auto library = codegen::KernelLibrary::compile(*source, options);
  if (!library.ok()) std::abort();
  c.library = *library;
  c.kernel = *c.library->function<codegen::ElementwiseKernel>(codegen::kElementwiseKernelName);
  c.x = at::rand({state.range(1)});
  c.y = at::rand({state.range(1)});
  c.out = at::empty_like(c.x);
  return c;
}

// Args: chain length, elements, mixed operations (0/1).
void Args(benchmark::internal::Benchmark* b) {
  for (int mixed : {0, 1}) {
    for (int64_t n : {256, 1 << 20}) b->Args({30, n, mixed});
  }
}

void BM_Generated(benchmark::State& state) {
  Case c = make(state);
  const void* inputs[] = {c.x.data_ptr(), c.y.data_ptr()};
  for (auto _ : state) {
    c.kernel(inputs, c.out.data_ptr(), c.out.numel());
    benchmark::DoNotOptimize(c.out.data_ptr());
  }
}
BENCHMARK(BM_Generated)->Apply(Args);

void BM_Interpreter(benchmark::State& state) {
  Case c = make(state);
  for (auto _ : state) benchmark::DoNotOptimize(run_elementwise(c.program, {c.x, c.y}));
}
BENCHMARK(BM_Interpreter)->Apply(Args);

void BM_AtenOneByOne(benchmark::State& state) {
  Case c = make(state);
  for (auto _ : state) {
    at::Tensor t = c.x + c.y;
    for (size_t k = 1; k < c.program.instructions.size(); ++k) {
      switch (state.range(2) != 0 ? k % 3 : 0) {
        case 0: t = t + c.y; break;
        case 1: t = t * 0.5; break;
        default: t = at::relu(t); break;
      }
    }
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_AtenOneByOne)->Apply(Args);

// The program as a graph's one call, run by the execution plan as a model
// is (GraphModule's call: the plan's step, the operator's dispatch, the
// result's allocation): fx::elementwise (the interpreter) against
// fx::compiled_elementwise (the generated kernel, what the compile pass
// makes).
void run_graph(benchmark::State& state, const char* target) {
  Case c = make(state);
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  g->output(g->call_function(target, {Argument(c.program.to_string()), Argument::List({x, y})}));
  GraphModule gm(empty_module("Chain"), std::move(g));
  if (!gm({c.x, c.y}).ok()) std::abort();  // compiles the plan (and the kernel)
  for (auto _ : state) benchmark::DoNotOptimize(gm({c.x, c.y}));
}

void BM_GraphInterpreter(benchmark::State& state) { run_graph(state, kElementwise); }
BENCHMARK(BM_GraphInterpreter)->Apply(Args);

void BM_GraphGenerated(benchmark::State& state) { run_graph(state, kCompiledElementwise); }
BENCHMARK(BM_GraphGenerated)->Apply(Args);

}  // namespace
}  // namespace fx
