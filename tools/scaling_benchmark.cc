// Copyright 2026 The FX for C++ Authors.
//
// How each stage of fxrun grows with the size of the program: a TorchScript
// loop of N `x = x + y` on 1-element tensors, which the tracer unrolls into
// N nodes, for N from 5,000 to 200,000. Every stage should be linear;
// Google Benchmark fits each curve (the `_BigO` and `_RMS` rows: the
// coefficient of the best-fitting complexity and how far the points are
// from it).
//
//   trace               Tracer::trace of the loaded module
//   passes              `dce` through the pass manager, lint after it
//   python_code         GraphModule::code (`--print=code`)
//   graph_file_write    the graph file (`--emit=json`)
//   graph_file_read     reading it back (`--graph`)
//   plan_compile        ExecutionPlan::compile
//   plan_first_run      the first run of a compiled plan: node by node, then
//                       compiled into steps and memory-planned
//   plan_run            a later run (the steps)
//   export              export_to_torchscript (source written and compiled)
//   save                the exported module serialised (`--save`, after export)
//   check               fxrun's --check: the plan compiled and run, the
//                       TorchScript module run, the outputs compared
//
//   bazel run --config=opt //tools:scaling_benchmark
//   bazel run --config=opt //tools:scaling_benchmark -- --benchmark_filter=save
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/rand.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "passes/dce/dce.h"
#include "passes/pass_manager.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/torchscript/torchscript_export.h"
#include "tools/graph_file.h"
#include "tools/run_model.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

struct Workload {
  torch::jit::Module module;
  std::shared_ptr<Module> state;  // module's, for reading the graph file over
  std::unique_ptr<GraphModule> gm;
  std::vector<c10::IValue> inputs;
  std::string graph_file;
};

torch::jit::Module loop_module(int64_t n) {
  torch::jit::Module m(c10::QualifiedName("__torch__.Loop"),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.define(absl::StrCat("def forward(self, x, y):\n    for i in range(", n,
                        "):\n        x = x + y\n    return x\n"));
  return m;
}

Workload& workload(int64_t n) {
  static auto* cache = new std::map<int64_t, std::unique_ptr<Workload>>();
  auto it = cache->find(n);
  if (it != cache->end()) return *it->second;
  auto w = std::make_unique<Workload>();
  w->module = loop_module(n);
  w->module.eval();
  w->state = module_from_torchscript(w->module).value();
  auto gm = Tracer().trace(w->module);
  if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
  w->gm = std::make_unique<GraphModule>(*std::move(gm));
  w->inputs = {at::rand({1}), at::rand({1})};
  auto text = graph_file_text(*w->gm);
  if (!text.ok()) throw std::runtime_error(std::string(text.status().message()));
  w->graph_file = *std::move(text);
  return *cache->emplace(n, std::move(w)).first->second;
}

std::shared_ptr<const ExecutionPlan> compiled(const Workload& w) {
  auto plan = ExecutionPlan::compile(*w.gm);
  if (!plan.ok()) throw std::runtime_error(std::string(plan.status().message()));
  return *std::move(plan);
}

torch::jit::Module exported(const Workload& w) {
  auto module = export_to_torchscript(*w.gm);
  if (!module.ok()) throw std::runtime_error(std::string(module.status().message()));
  return *std::move(module);
}

// The size for the fit, and the time per node (in seconds: 1.5u is 1.5 µs).
void finish(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Trace(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Tracer().trace(w.module));
  finish(state);
}

void BM_Passes(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  Registry registry;
  PluginRegistrar r({"passes", "1", ""});
  register_dce(r);
  if (!registry.commit(r).ok()) throw std::runtime_error("cannot register dce");
  for (auto _ : state) {
    state.PauseTiming();
    GraphModule gm(w.gm->shared_root(), w.gm->graph().copy(), w.gm->class_name());
    state.ResumeTiming();
    auto pm = PassManager::create("dce", registry);
    PassContext context(registry);
    if (!pm.ok() || !pm->run(gm, context).ok()) throw std::runtime_error("dce failed");
  }
  finish(state);
}

void BM_PythonCode(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(w.gm->code());
  finish(state);
}

void BM_GraphFileWrite(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(graph_file_text(*w.gm));
  finish(state);
}

void BM_GraphFileRead(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) {
    auto gm = read_graph_file(w.graph_file, w.state, "loop.json");
    if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
  }
  finish(state);
}

void BM_PlanCompile(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(compiled(w));
  finish(state);
}

void BM_PlanFirstRun(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    std::shared_ptr<const ExecutionPlan> plan = compiled(w);
    state.ResumeTiming();
    auto out = plan->run(w.inputs);
    if (!out.ok()) throw std::runtime_error(std::string(out.status().message()));
    state.PauseTiming();
    plan.reset();  // its steps and values freed outside the timing
    state.ResumeTiming();
  }
  finish(state);
}

void BM_PlanRun(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  std::shared_ptr<const ExecutionPlan> plan = compiled(w);
  auto run_state = plan->make_state();
  if (!plan->run(*run_state, w.inputs).ok()) throw std::runtime_error("plan failed");
  for (auto _ : state) benchmark::DoNotOptimize(plan->run(*run_state, w.inputs));
  finish(state);
}

void BM_Export(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(exported(w));
  finish(state);
}

void BM_Save(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  torch::jit::Module module = exported(w);
  for (auto _ : state) {
    std::ostringstream out;
    module.save(out);
    benchmark::DoNotOptimize(out.tellp());
  }
  finish(state);
}

void BM_Check(benchmark::State& state) {
  Workload& w = workload(state.range(0));
  RunOptions options;
  for (auto _ : state) {
    auto reference = module_reference(w.module, options.device);
    if (!reference.ok()) throw std::runtime_error(std::string(reference.status().message()));
    auto report = run_graph(*w.gm, w.inputs, options, &*reference);
    if (!report.ok()) throw std::runtime_error(std::string(report.status().message()));
  }
  finish(state);
}

void register_all() {
  at::set_num_threads(1);
  const std::vector<std::pair<const char*, void (*)(benchmark::State&)>> stages = {
      {"trace", BM_Trace},
      {"passes", BM_Passes},
      {"python_code", BM_PythonCode},
      {"graph_file_write", BM_GraphFileWrite},
      {"graph_file_read", BM_GraphFileRead},
      {"plan_compile", BM_PlanCompile},
      {"plan_first_run", BM_PlanFirstRun},
      {"plan_run", BM_PlanRun},
      {"export", BM_Export},
      {"save", BM_Save},
      {"check", BM_Check},
  };
  // Each program is traced once, at its first use, and kept.
  for (const auto& [name, fn] : stages) {
    benchmark::RegisterBenchmark(name, fn)
        ->Arg(5000)
        ->Arg(10000)
        ->Arg(20000)
        ->Arg(50000)
        ->Arg(100000)
        ->Arg(200000)
        ->Unit(benchmark::kMillisecond)
        ->Complexity();
  }
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
