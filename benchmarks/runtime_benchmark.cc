// Copyright 2026 The FX for C++ Authors.
//
// The runtime against its anchor, in one process: TorchScript's own forward,
// the Interpreter and the execution plan (as it is by default; without
// InferenceMode; without its arena; without lowering leaf functions; without
// compiling contractions) on
//   * chain:          1,000 `x = x + y` on 1-element tensors (per-node overhead);
//   * tensor_product: seed 003's e3nn-like TensorProduct at batch 32
//                     (../shared/workloads/tensor_product.py, scripted at build time);
//   * resnet18:       torchvision's ResNet-18 at batch 1.
// Graphs are traced and run through `inline,dce`, as a deployment would.
//
// Folding (issue 23): ResNet-18, ResNet-50 and MobileNetV2 at batch 1 and 8,
// all under InferenceMode, against TorchScript's forward and against
// torch.jit.optimize_for_inference(torch.jit.freeze(m)) (libtorch's C++
// equivalents, run here: a module optimised for MKLDNN cannot be saved and
// loaded again in torch 1.13, "required keyword attribute 'value' is
// undefined"); our plans after `inline,dce`, after
// `inline,fold_bn,const_fold,dce` and after that with oneDNN's layout
// and the linear weights stored transposed
// (`...,cse,dce,shape_prop{device=meta},mkldnn_layout,transpose_linear,dce`):
//
//   bazel run --config=opt //benchmarks:runtime_benchmark -- --benchmark_filter=folding
// Compare times within one run: the machines are shared and noisy.
//
//   bazel run --config=opt //benchmarks:runtime_benchmark
//   bazel run --config=opt //benchmarks:runtime_benchmark -- --benchmark_filter=chain
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "passes/const_fold/const_fold.h"
#include "passes/cse/cse.h"
#include "passes/dce/dce.h"
#include "passes/fold_bn/fold_bn.h"
#include "passes/inline/inline.h"
#include "passes/mkldnn_layout/mkldnn_layout.h"
#include "passes/transpose_linear/transpose_linear.h"
#include "passes/pass_manager.h"
#include "passes/shape_prop/shape_prop.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/interpreter.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

constexpr int kChainLength = 1000;

struct Workload {
  torch::jit::Module module;
  std::vector<c10::IValue> inputs;
  std::unique_ptr<GraphModule> gm;
  // By variant: "plan" (the defaults), "plan_autograd" (no InferenceMode),
  // "plan_no_arena" (no memory planning), "plan_no_lowering" (leaf functions
  // run through their TorchScript bodies), "plan_no_contraction" (einsum and
  // tensordot run as aten's operators).
  std::map<std::string, std::shared_ptr<const ExecutionPlan>> plans;
};

torch::jit::Module chain_module() {
  std::string source = "def forward(self, x, y):\n";
  for (int i = 0; i < kChainLength; ++i) source += "    x = x + y\n";
  source += "    return x\n";
  torch::jit::Module m(c10::QualifiedName("__torch__.Chain"),
                       std::make_shared<torch::jit::CompilationUnit>());
  m.define(source);
  return m;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  auto w = std::make_unique<Workload>();
  if (name == "chain") {
    w->module = chain_module();
    w->inputs = {at::rand({1}), at::rand({1})};
  } else if (name == "tensor_product") {
    w->module = testing::load_fixture("tensor_product.pt");
    w->inputs = testing::load_inputs(testing::fixture_path("tensor_product.inputs.pt"));
  } else {
    w->module = testing::load_fixture("resnet18.pt");
    w->inputs = {at::rand({1, 3, 224, 224})};
  }
  w->module.eval();
  auto gm = Tracer().trace(w->module);
  if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
  Registry registry;
  PluginRegistrar r({"passes", "1", ""});
  register_inline(r);
  register_dce(r);
  if (!registry.commit(r).ok()) throw std::runtime_error("cannot register passes");
  auto pm = PassManager::create("inline,dce", registry);
  PassContext context(registry);
  if (!pm.ok() || !pm->run(*gm, context).ok()) throw std::runtime_error("inline,dce failed");
  w->gm = std::make_unique<GraphModule>(*std::move(gm));
  PlanOptions autograd, no_arena, no_lowering, no_contraction;
  autograd.inference_mode = false;
  no_arena.plan_memory = false;
  no_lowering.lower_functions = false;
  no_contraction.compile_contractions = false;
  for (const auto& [variant, options] :
       {std::pair<std::string, PlanOptions>{"plan", PlanOptions()},
        {"plan_autograd", autograd}, {"plan_no_arena", no_arena},
        {"plan_no_lowering", no_lowering}, {"plan_no_contraction", no_contraction}}) {
    auto plan = ExecutionPlan::compile(*w->gm, options);
    if (!plan.ok()) throw std::runtime_error(std::string(plan.status().message()));
    w->plans[variant] = *std::move(plan);
  }
  return w;
}

Workload& workload(const std::string& name) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Workload>>();
  auto it = cache->find(name);
  if (it == cache->end()) it = cache->emplace(name, make_workload(name)).first;
  return *it->second;
}

void BM_TorchScript(benchmark::State& state, const std::string& name) {
  at::set_num_threads(1);
  Workload& w = workload(name);
  // The advantage the plan takes by default, given to the anchor too.
  c10::InferenceMode guard;
  for (auto _ : state) benchmark::DoNotOptimize(w.module.forward(w.inputs));
  state.SetItemsProcessed(state.iterations());
}

void BM_Interpreter(benchmark::State& state, const std::string& name) {
  at::set_num_threads(1);
  Workload& w = workload(name);
  Interpreter interpreter(*w.gm);
  for (auto _ : state) benchmark::DoNotOptimize(interpreter.run(w.inputs));
  state.SetItemsProcessed(state.iterations());
}

// One plan shared by all benchmark threads, each with its own run state.
void BM_Plan(benchmark::State& state, const std::string& name, const std::string& variant) {
  at::set_num_threads(1);
  static std::mutex mutex;
  const ExecutionPlan* plan;
  {
    std::lock_guard<std::mutex> lock(mutex);
    plan = workload(name).plans.at(variant).get();
  }
  const std::vector<c10::IValue>& inputs = workload(name).inputs;
  auto run_state = plan->make_state();
  for (auto _ : state) {
    auto out = plan->run(*run_state, inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations());
  // What the plan compiled: steps, operator steps on the fast path, steps
  // writing into the arena, the arena against all intermediates, leaf calls
  // lowered, contractions compiled, and arguments converted at each run.
  if (!plan->stats().empty()) {
    const PlanStats stats = plan->stats().back();
    state.counters["steps"] = static_cast<double>(stats.steps);
    state.counters["op_steps"] = static_cast<double>(stats.operator_steps);
    state.counters["out_steps"] = static_cast<double>(stats.out_variant_steps);
    state.counters["arena_KiB"] = static_cast<double>(stats.arena_bytes) / 1024;
    state.counters["planned_KiB"] = static_cast<double>(stats.planned_bytes) / 1024;
    state.counters["intermediate_KiB"] = static_cast<double>(stats.intermediate_bytes) / 1024;
    state.counters["lowered_calls"] = static_cast<double>(plan->lowered_functions());
    state.counters["contractions"] = static_cast<double>(stats.contraction_steps);
    state.counters["converted"] = static_cast<double>(stats.converted_arguments);
  }
}

// The eager floor of the chain: the same adds called from C++.
void BM_EagerChain(benchmark::State& state, bool inference_mode) {
  at::set_num_threads(1);
  c10::optional<c10::InferenceMode> guard;
  if (inference_mode) guard.emplace();
  const at::Tensor y = at::rand({1});
  const at::Tensor x0 = at::rand({1});
  for (auto _ : state) {
    at::Tensor x = x0;
    for (int i = 0; i < kChainLength; ++i) x = at::add(x, y);
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations());
}

// ---- Folding: the plan after fold_bn,const_fold,dce against TorchScript ------

struct FoldingWorkload {
  torch::jit::Module module;
  torch::jit::Module frozen;  // optimize_for_inference(freeze(module))
  std::vector<c10::IValue> inputs;
  std::unique_ptr<GraphModule> unfolded, folded, mkldnn;
  std::shared_ptr<const ExecutionPlan> unfolded_plan, folded_plan, mkldnn_plan;
};

std::unique_ptr<GraphModule> traced_through(const torch::jit::Module& module,
                                            const std::string& pipeline,
                                            const std::vector<c10::IValue>& inputs = {}) {
  auto gm = Tracer().trace(module);
  if (!gm.ok()) throw std::runtime_error(std::string(gm.status().message()));
  Registry registry;
  PluginRegistrar r({"passes", "1", ""});
  register_inline(r);
  register_dce(r);
  register_fold_bn(r);
  register_const_fold(r);
  register_cse(r);
  register_shape_prop(r);
  register_mkldnn_layout(r);
  register_transpose_linear(r);
  if (!registry.commit(r).ok()) throw std::runtime_error("cannot register passes");
  auto pm = PassManager::create(pipeline, registry);
  PassContext context(registry);
  if (!inputs.empty()) context.set_example_inputs(inputs);
  if (!pm.ok() || !pm->run(*gm, context).ok()) throw std::runtime_error(pipeline + " failed");
  if (!context.warnings().empty()) throw std::runtime_error(context.warnings()[0]);
  return std::make_unique<GraphModule>(*std::move(gm));
}

FoldingWorkload& folding_workload(const std::string& model, int batch) {
  static auto* cache = new std::map<std::string, std::unique_ptr<FoldingWorkload>>();
  const std::string key = absl::StrCat(model, "/", batch);
  auto it = cache->find(key);
  if (it != cache->end()) return *it->second;
  auto w = std::make_unique<FoldingWorkload>();
  w->module = testing::load_fixture(model + ".pt");
  w->module.eval();
  w->frozen = torch::jit::freeze(w->module);
  w->frozen = torch::jit::optimize_for_inference(w->frozen);
  w->inputs = {at::rand({batch, 3, 224, 224})};
  w->unfolded = traced_through(w->module, "inline,dce");
  w->folded = traced_through(w->module, "inline,fold_bn,const_fold,dce");
  w->mkldnn = traced_through(
      w->module, "inline,fold_bn,const_fold,cse,dce,shape_prop{device=meta},mkldnn_layout,transpose_linear,dce",
      w->inputs);
  auto unfolded = ExecutionPlan::compile(*w->unfolded, PlanOptions());
  auto folded = ExecutionPlan::compile(*w->folded, PlanOptions());
  auto mkldnn = ExecutionPlan::compile(*w->mkldnn, PlanOptions());
  if (!unfolded.ok() || !folded.ok() || !mkldnn.ok()) {
    throw std::runtime_error("cannot compile the plans");
  }
  w->unfolded_plan = *std::move(unfolded);
  w->folded_plan = *std::move(folded);
  w->mkldnn_plan = *std::move(mkldnn);
  // Each side computes what the module computes.
  c10::InferenceMode guard;
  const at::Tensor expected = w->module.forward(w->inputs).toTensor();
  for (const at::Tensor& got :
       {w->frozen.forward(w->inputs).toTensor(),
        w->folded_plan->run(*w->folded_plan->make_state(), w->inputs)->toTensor(),
        w->mkldnn_plan->run(*w->mkldnn_plan->make_state(), w->inputs)->toTensor()}) {
    if (!at::allclose(got, expected, 1e-3, 1e-4)) throw std::runtime_error(key + ": outputs differ");
  }
  return *cache->emplace(key, std::move(w)).first->second;
}

// side: "torchscript", "frozen", "plan_unfolded", "plan_folded", "plan_mkldnn".
void BM_Folding(benchmark::State& state, const std::string& model, int batch,
                const std::string& side) {
  at::set_num_threads(1);
  FoldingWorkload& w = folding_workload(model, batch);
  c10::InferenceMode guard;
  if (side == "torchscript" || side == "frozen") {
    torch::jit::Module& m = side == "frozen" ? w.frozen : w.module;
    for (auto _ : state) benchmark::DoNotOptimize(m.forward(w.inputs));
  } else {
    const ExecutionPlan& plan = side == "plan_folded"   ? *w.folded_plan
                                : side == "plan_mkldnn" ? *w.mkldnn_plan
                                                        : *w.unfolded_plan;
    auto run_state = plan.make_state();
    for (auto _ : state) benchmark::DoNotOptimize(plan.run(*run_state, w.inputs));
    // Steps run, and arguments converted at each run (rather than prebuilt).
    const PlanStats stats = plan.stats().back();
    state.counters["steps"] = static_cast<double>(stats.steps);
    state.counters["converted"] = static_cast<double>(stats.converted_arguments);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void register_folding() {
  for (const std::string model : {"resnet18", "resnet50", "mobilenet_v2"}) {
    for (int batch : {1, 8}) {
      for (const std::string side : {"torchscript", "frozen", "plan_unfolded", "plan_folded", "plan_mkldnn"}) {
        benchmark::RegisterBenchmark(
            absl::StrCat("folding/", model, "_b", batch, "/", side).c_str(), BM_Folding, model,
            batch, side)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

void register_all() {
  register_folding();
  for (const std::string name : {"chain", "tensor_product", "resnet18"}) {
    benchmark::RegisterBenchmark(("torchscript/" + name).c_str(), BM_TorchScript, name)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("interpreter/" + name).c_str(), BM_Interpreter, name)
        ->Unit(benchmark::kMicrosecond);
    for (const std::string variant :
         {"plan_autograd", "plan_no_arena", "plan_no_lowering", "plan_no_contraction"}) {
      benchmark::RegisterBenchmark((variant + "/" + name).c_str(), BM_Plan, name, variant)
          ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark(("plan/" + name).c_str(), BM_Plan, name, "plan")
        ->Unit(benchmark::kMicrosecond)
        ->Threads(1)
        ->Threads(2)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("eager/chain", BM_EagerChain, false)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("eager_inference_mode/chain", BM_EagerChain, true)
      ->Unit(benchmark::kMicrosecond);
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
