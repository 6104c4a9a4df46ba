// Copyright 2026 The FX for C++ Authors.
//
// Tracing speed. Python torch.fx 1.13 on this machine: symbolic_trace takes
// about 3-4 ms for ResNet-18, 5-8 ms for ResNet-50, 158 ms for a chain of 2,000
// small ops and 14.7 s for 20,000.
//
//   bazel run --config=opt //benchmarks:tracer_benchmark
#include <string>

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/import.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "tests/testing/fixtures.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

torch::jit::Module load(const std::string& name) {
  static auto* cache = new std::map<std::string, torch::jit::Module>();
  auto it = cache->find(name);
  if (it == cache->end()) it = cache->emplace(name, testing::load_fixture(name)).first;
  return it->second;
}

void BM_Load(benchmark::State& state, const char* name) {
  const std::string path = testing::fixture_path(name);
  for (auto _ : state) benchmark::DoNotOptimize(torch::jit::load(path));
}

void BM_Trace(benchmark::State& state, const char* name) {
  torch::jit::Module m = load(name);
  for (auto _ : state) {
    auto gm = Tracer().trace(m);
    if (!gm.ok()) state.SkipWithError(std::string(gm.status().message()).c_str());
    benchmark::DoNotOptimize(gm);
  }
}

// A scripted module whose forward is a chain of `n` additions.
torch::jit::Module chain_module(int64_t n) {
  std::string source = "def forward(self, x):\n";
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&source, "    x = x + ", i % 7, "\n");
  source += "    return x\n";
  torch::jit::Module m(c10::QualifiedName(absl::StrCat("__torch__.Chain", n)),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.define(source);
  return m;
}

void BM_TraceChain(benchmark::State& state) {
  torch::jit::Module m = chain_module(state.range(0));
  for (auto _ : state) {
    auto gm = Tracer().trace(m);
    if (!gm.ok()) state.SkipWithError(std::string(gm.status().message()).c_str());
    benchmark::DoNotOptimize(gm);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(BM_Load, resnet18, "resnet18.pt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, resnet50, "resnet50.pt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, resnet18, "resnet18.pt")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Trace, resnet50, "resnet50.pt")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Trace, mobilenet_v2, "mobilenet_v2.pt")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TraceChain)->Arg(2000)->Arg(20000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fx
