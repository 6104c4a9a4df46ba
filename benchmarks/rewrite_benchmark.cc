// Copyright 2026 The FX for C++ Authors.
//
// How replace_pattern and cse grow with the graph: chains of N nodes, for N
// from 10,000 to 100,000 (rewrite) and to 200,000 (cse). Every curve should
// be linear; Google Benchmark fits each (the `_BigO` and `_RMS` rows) and
// `per_node` is the time per node (in seconds: 1.5u is 1.5 µs). The graph is
// rebuilt outside the timed region before each iteration.
//
//   rewrite_no_match     neg/sin chain; pattern relu(neg(x)) never matches
//                        (the matcher's scan alone)
//   rewrite_back_to_back relu(neg(...)) repeated: N/2 matches, each reading
//                        the replacement of the one before (10,000 at N=20,000)
//   cse                  every pure node computed twice: N/2 merges
//
//   bazel run --config=opt //benchmarks:rewrite_benchmark
#include <memory>
#include <stdexcept>

#include "benchmark/benchmark.h"
#include "passes/cse/cse.h"
#include "passes/rewrite/replace_pattern.h"
#include "tracer/symbolic_trace.h"

namespace fx {
namespace {

// x -> f0 -> f1 -> f0 -> ... : N nodes between input and output.
std::unique_ptr<Graph> chain(int64_t n, const char* f0, const char* f1) {
  auto g = std::make_unique<Graph>();
  Node* v = g->placeholder("x");
  for (int64_t i = 0; i < n; ++i) v = g->call_function(i % 2 == 0 ? f0 : f1, {v});
  g->output(v);
  return g;
}

void finish(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void rewrite(benchmark::State& state, const char* f0, const char* f1, size_t expected) {
  GraphModule pattern = symbolic_trace([](Proxy x) { return x.neg().relu(); }, "x");
  GraphModule replacement =
      symbolic_trace([](Proxy x) { return x.call_method("clamp_max", {0}).neg(); }, "x");
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Graph> g = chain(state.range(0), f0, f1);
    state.ResumeTiming();
    auto done = replace_pattern(*g, pattern.graph(), replacement.graph());
    if (!done.ok() || done->size() != expected) throw std::runtime_error("unexpected matches");
    state.PauseTiming();
    g.reset();
    state.ResumeTiming();
  }
  finish(state);
}

void BM_RewriteNoMatch(benchmark::State& state) { rewrite(state, "aten::neg", "aten::sin", 0); }

void BM_RewriteBackToBack(benchmark::State& state) {
  rewrite(state, "aten::neg", "aten::relu", static_cast<size_t>(state.range(0) / 2));
}

void BM_Cse(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    // Two identical chains from x: the second merges into the first.
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    Node* a = x;
    Node* b = x;
    for (int64_t i = 0; i < state.range(0) / 2; ++i) {
      const char* f = i % 2 == 0 ? "aten::neg" : "aten::sin";
      a = g->call_function(f, {a});
      b = g->call_function(f, {b});
    }
    g->output(g->call_function("aten::add.Tensor", {a, b}));
    state.ResumeTiming();
    if (eliminate_common_subexpressions(*g) != static_cast<size_t>(state.range(0) / 2)) {
      throw std::runtime_error("unexpected merges");
    }
    state.PauseTiming();
    g.reset();
    state.ResumeTiming();
  }
  finish(state);
}

void register_all() {
  for (auto [name, fn] : {std::make_pair("rewrite_no_match", BM_RewriteNoMatch),
                          std::make_pair("rewrite_back_to_back", BM_RewriteBackToBack)}) {
    benchmark::RegisterBenchmark(name, fn)
        ->Arg(10000)
        ->Arg(20000)
        ->Arg(50000)
        ->Arg(100000)
        ->Unit(benchmark::kMillisecond)
        ->Complexity();
  }
  benchmark::RegisterBenchmark("cse", BM_Cse)
      ->Arg(10000)
      ->Arg(50000)
      ->Arg(100000)
      ->Arg(200000)
      ->Unit(benchmark::kMillisecond)
      ->Complexity();
}

}  // namespace
}  // namespace fx

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  fx::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
