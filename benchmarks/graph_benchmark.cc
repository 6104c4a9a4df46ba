// Copyright 2026 The FX for C++ Authors.
//
// Graph work on long chains: x -> add -> add_1 -> ... -> output, each node
// `operator.add(prev, 1)`. Python torch.fx 1.13 on this machine, 20,000 nodes:
// lint 78 ms, DCE 88 ms, copy 302 ms, code generation 158 ms.
//
//   bazel run --config=opt //benchmarks:graph_benchmark
#include <memory>

#include "benchmark/benchmark.h"
#include "core/graph.h"
#include "core/printer.h"

namespace fx {
namespace {

std::unique_ptr<Graph> build_chain(int64_t n) {
  auto g = std::make_unique<Graph>();
  Node* value = g->placeholder("x");
  for (int64_t i = 0; i < n; ++i) value = g->call_function("operator.add", {value, 1});
  g->output(value);
  return g;
}

void BM_BuildChain(benchmark::State& state) {
  for (auto _ : state) {
    auto g = build_chain(state.range(0));
    benchmark::DoNotOptimize(g.get());
    state.PauseTiming();
    g.reset();  // freeing is not building
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Lint(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(g->lint());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_EliminateDeadCode(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(g->eliminate_dead_code());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_PythonCode(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(python_code(*g));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The target: lint + DCE + the Python-code printer together.
void BM_LintDceCode(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(g->lint());
    benchmark::DoNotOptimize(g->eliminate_dead_code());
    benchmark::DoNotOptimize(python_code(*g));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Copy(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) {
    auto c = g->copy();
    benchmark::DoNotOptimize(c.get());
    state.PauseTiming();
    c.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_FormatGraph(benchmark::State& state) {
  auto g = build_chain(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(format_graph(*g));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Dead-code elimination that removes every node but the output's input.
void BM_EliminateDeadCodeRemovingAll(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* value = x;
    for (int64_t i = 0; i < state.range(0); ++i) value = g->call_function("operator.add", {value, 1});
    g->output(x);
    state.ResumeTiming();
    benchmark::DoNotOptimize(g->eliminate_dead_code());
    state.PauseTiming();
    g.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#define CHAIN_SIZES Arg(20000)->Arg(1000000)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_BuildChain)->CHAIN_SIZES;
BENCHMARK(BM_Lint)->CHAIN_SIZES;
BENCHMARK(BM_EliminateDeadCode)->CHAIN_SIZES;
BENCHMARK(BM_PythonCode)->CHAIN_SIZES;
BENCHMARK(BM_LintDceCode)->CHAIN_SIZES;
BENCHMARK(BM_Copy)->CHAIN_SIZES;
BENCHMARK(BM_FormatGraph)->CHAIN_SIZES;
BENCHMARK(BM_EliminateDeadCodeRemovingAll)->CHAIN_SIZES;

}  // namespace
}  // namespace fx
