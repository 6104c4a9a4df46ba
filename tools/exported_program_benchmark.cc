// Copyright 2026 The FX for C++ Authors.
//
// torch.export programs (.pt2) through FX for C++, timed by stage, for the
// programs named on the command line, to compare with PyTorch's own Python
// run of the same files in the same lane (tools/exported_program_anchor.py
// prints those figures):
//
//   load        the file's bytes read into a LoadedProgram (exported_program/
//               archive.h): JSON, weights, example inputs; the anchor is
//               torch.export.load
//   read        load and Tracer::trace into a GraphModule (what fxrun does
//               before any pass)
//   plan_run    a run of the compiled execution plan on the program's example
//               inputs, after the first (compiling) run; the anchor is
//               ep.module()(*inputs). Inference mode, one intra-op thread, as
//               the anchor.
//
//   bazel run --config=opt //tools:exported_program_benchmark -- DIR/resnet50.pt2 DIR/resnet18.pt2
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "exported_program/archive.h"
#include "runtime/plan/execution_plan.h"
#include "tools/run_model.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

exported::LoadedProgram load(const std::string& path) {
  auto program = exported::load_program(read_bytes(path), path);
  if (!program.ok()) throw std::runtime_error(std::string(program.status().message()));
  return *std::move(program);
}

void BM_Load(benchmark::State& state, const std::string& path) {
  for (auto _ : state) benchmark::DoNotOptimize(load(path));
}

void BM_Read(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    auto gm = Tracer().trace(load(path));
    if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
    benchmark::DoNotOptimize(gm->graph().size());
  }
}

void BM_PlanRun(benchmark::State& state, const std::string& path) {
  const exported::LoadedProgram program = load(path);
  auto gm = Tracer().trace(program);
  if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
  auto inputs = program_example_inputs(program, gm->graph(), c10::Device(c10::kCPU));
  if (!inputs.ok()) throw std::runtime_error(std::string(inputs.status().message()));
  auto plan = ExecutionPlan::compile(*gm);
  if (!plan.ok()) throw std::runtime_error(std::string(plan.status().message()));
  auto run_state = (*plan)->make_state();
  auto first = (*plan)->run(*run_state, *inputs);  // compiles the steps
  if (!first.ok()) throw std::runtime_error(std::string(first.status().message()));
  for (auto _ : state) {
    auto result = (*plan)->run(*run_state, *inputs);
    benchmark::DoNotOptimize(result);
  }
}

}  // namespace
}  // namespace fx

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: exported_program_benchmark [--benchmark_...] PROGRAM.pt2...\n");
    return 2;
  }
  at::set_num_threads(1);
  c10::InferenceMode inference;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    std::string name = path.substr(path.rfind('/') + 1);
    name = name.substr(0, name.rfind('.'));
    for (const auto& [stage, fn] :
         std::vector<std::pair<const char*, void (*)(benchmark::State&, const std::string&)>>{
             {"load", fx::BM_Load}, {"read", fx::BM_Read}, {"plan_run", fx::BM_PlanRun}}) {
      benchmark::RegisterBenchmark(absl::StrCat(stage, "/", name).c_str(), fn, path)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(1.0);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
