// Copyright 2026 The FX for C++ Authors.
#include "runtime/plan/execution_plan.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/einsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/csrc/jit/api/compilation_unit.h>

#include <atomic>
#include <thread>
#include <torch/csrc/jit/api/module.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/devices.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/torchscript/script_module.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// x + x, then n - 1 times `+ x` (so (n + 1) * x): every value but the last
// is an intermediate.
GraphModule chain_of_adds(int n) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* v = g->call_function("aten::add.Tensor", {x, x});
  for (int i = 1; i < n; ++i) v = g->call_function("operator.add", {v, x});
  g->output(v);
  return GraphModule(empty_module("Chain"), std::move(g));
}

std::shared_ptr<const ExecutionPlan> compile(const GraphModule& gm, PlanOptions options = {}) {
  auto plan = ExecutionPlan::compile(gm, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : nullptr;
}

at::Tensor run_tensor(const ExecutionPlan& plan, std::vector<c10::IValue> inputs) {
  auto out = plan.run(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->toTensor() : at::Tensor();
}

at::Tensor run_tensor(GraphModule& gm, std::vector<c10::IValue> inputs) {
  auto out = gm(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->toTensor() : at::Tensor();
}

TEST(ExecutionPlanTest, LaterRunsComputeWhatTheFirstAndTheInterpreterDo) {
  GraphModule gm = chain_of_adds(50);
  auto plan = compile(gm);
  const at::Tensor x = at::rand({4, 8});
  Interpreter interpreter(gm);
  const at::Tensor want = interpreter.run({x})->toTensor();
  for (int run = 0; run < 3; ++run) {
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {x}), want)) << "run " << run;
  }
}

TEST(ExecutionPlanTest, IntermediatesShareOneArenaThroughOutVariants) {
  GraphModule gm = chain_of_adds(50);
  auto plan = compile(gm);
  run_tensor(*plan, {at::rand({64, 64})});
  ASSERT_EQ(plan->stats().size(), 1u);
  const PlanStats stats = plan->stats()[0];
  // 49 intermediates (the last value is the output), each 16 KiB; a chain
  // needs two alive at a time.
  EXPECT_EQ(stats.out_variant_steps, 49u);
  EXPECT_EQ(stats.planned_bytes, 49u * 64 * 64 * 4);
  EXPECT_EQ(stats.arena_bytes, 2u * 64 * 64 * 4);
  EXPECT_EQ(stats.intermediate_bytes, 50u * 64 * 64 * 4);
}

TEST(ExecutionPlanTest, OutputsNeverLiveInTheArena) {
  GraphModule gm = chain_of_adds(10);
  auto plan = compile(gm);
  const at::Tensor first = run_tensor(*plan, {at::ones({8})});
  const at::Tensor second = run_tensor(*plan, {at::full({8}, 2.0)});
  const at::Tensor third = run_tensor(*plan, {at::full({8}, 3.0)});
  EXPECT_TRUE(at::equal(first, at::full({8}, 11.0)));
  EXPECT_TRUE(at::equal(second, at::full({8}, 22.0)));
  EXPECT_TRUE(at::equal(third, at::full({8}, 33.0)));
  EXPECT_FALSE(first.is_alias_of(second));
}

TEST(ExecutionPlanTest, ANewInputShapeSpecialisesAgain) {
  GraphModule gm = chain_of_adds(5);
  auto plan = compile(gm);
  EXPECT_TRUE(at::allclose(run_tensor(*plan, {at::ones({2})}), at::full({2}, 6.0)));
  EXPECT_TRUE(at::allclose(run_tensor(*plan, {at::ones({3, 3})}), at::full({3, 3}, 6.0)));
  EXPECT_TRUE(at::allclose(run_tensor(*plan, {at::ones({2})}), at::full({2}, 6.0)));
  EXPECT_EQ(plan->stats().size(), 2u);
}

// repeat(x, [n]) has an out variant; its size depends on an int input, which
// is not part of the signature: a larger n grows the planned tensors past
// their bytes, and they must move out of the arena rather than overwrite it.
TEST(ExecutionPlanTest, ATensorGrownPastItsPlanLeavesTheArena) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* n = g->placeholder("n");
  Node* y = g->placeholder("y");
  Node* repeated = g->call_function("aten::repeat", {x, Argument::List({n})});
  Node* doubled = g->call_function("operator.mul", {repeated, 2.0});
  Node* shifted = g->call_function("operator.add", {y, 1.0});
  Node* total = g->call_function("aten::sum", {doubled});
  g->output(Argument::Tuple({g->call_function("operator.add", {total, 0.0}),
                             g->call_function("operator.mul", {shifted, 3.0})}));
  GraphModule gm(empty_module("Grow"), std::move(g));
  auto plan = compile(gm);
  const at::Tensor x_value = at::arange(4, at::kFloat);
  const at::Tensor y_value = at::arange(4, at::kFloat);
  for (int64_t times : {2, 5, 1, 7, 2}) {
    auto out = plan->run({x_value, times, y_value});
    ASSERT_TRUE(out.ok()) << out.status();
    const auto elements = out->toTupleRef().elements();
    EXPECT_DOUBLE_EQ(elements[0].toTensor().item<double>(), 12.0 * times) << times;
    EXPECT_TRUE(at::equal(elements[1].toTensor(), (y_value + 1) * 3)) << times;
  }
  EXPECT_GT(plan->stats()[0].out_variant_steps, 0u);
}

// x[b, i, j] and w[j, k]: e = einsum(bij,jk->bik) (an intermediate),
// t = tensordot(e * 2, w, [2], [1]) (an intermediate), and the output
// einsum(bij,bil->jl) of t and x.
GraphModule contractions() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w = g->placeholder("w");
  Node* e = g->call_function("aten::einsum", {"bij,jk->bik", Argument::List({x, w})});
  Node* doubled = g->call_function("operator.mul", {e, 2.0});
  Node* t = g->call_function("aten::tensordot",
                             {doubled, w, Argument::List({2}), Argument::List({1})});
  g->output(g->call_function("aten::einsum", {"bij,bil->jl", Argument::List({t, x})}));
  return GraphModule(empty_module("Contractions"), std::move(g));
}

TEST(ExecutionPlanTest, ContractionsRunAsOneBatchedProductAndMatchTheInterpreter) {
  GraphModule gm = contractions();
  auto plan = compile(gm);
  Interpreter interpreter(gm);
  const at::Tensor w = at::randn({3, 3});
  std::vector<at::Tensor> results, inputs;
  for (int run = 0; run < 3; ++run) {
    // Rows of a wider tensor, as slices of a network's input are.
    inputs.push_back(at::randn({5, 2, 7}).narrow(2, 1, 3));
    results.push_back(run_tensor(*plan, {inputs.back(), w}));
  }
  for (int run = 0; run < 3; ++run) {
    const at::Tensor want = interpreter.run({inputs[run], w})->toTensor();
    EXPECT_TRUE(at::allclose(results[run], want, 1e-5, 1e-6)) << "run " << run;
  }
  ASSERT_EQ(plan->stats().size(), 1u);
  EXPECT_EQ(plan->stats()[0].contraction_steps, 3u);
  EXPECT_EQ(plan->stats()[0].contraction_fallbacks, 0u);  // the compiled path ran
  EXPECT_GT(plan->stats()[0].planned_bytes, 0u);
}

// Operands of one shape strided otherwise (a slice, a transpose) are two
// signatures, each with the product compiled for its layout.
TEST(ExecutionPlanTest, ContractionsOfAnotherLayoutAreCompiledForIt) {
  GraphModule gm = contractions();
  auto plan = compile(gm);
  Interpreter interpreter(gm);
  const at::Tensor w = at::randn({3, 3});
  const at::Tensor sliced = at::randn({5, 2, 7}).narrow(2, 1, 3);
  const at::Tensor transposed = at::randn({5, 3, 2}).transpose(1, 2);
  for (const at::Tensor& x : {sliced, transposed, sliced, transposed}) {
    const at::Tensor want = interpreter.run({x, w})->toTensor();
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {x, w}), want, 1e-5, 1e-6)) << x.strides();
  }
  ASSERT_EQ(plan->stats().size(), 2u);
  for (const PlanStats& stats : plan->stats()) {
    EXPECT_GT(stats.contraction_steps, 0u);
    EXPECT_EQ(stats.contraction_fallbacks, 0u);
  }
}

// The equation is an input: a step compiled for one equation would compute
// it for the next too, so such a call stays the operator.
TEST(ExecutionPlanTest, AContractionWhoseEquationVariesIsNotCompiled) {
  auto g = std::make_unique<Graph>();
  Node* equation = g->placeholder("equation");
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  g->output(g->call_function("aten::einsum", {equation, Argument::List({x, y})}));
  GraphModule gm(empty_module("Dynamic"), std::move(g));
  auto plan = compile(gm);
  const at::Tensor a = at::randn({3, 3}), b = at::randn({3, 3});
  for (const char* eq : {"ij,jk->ik", "ij,kj->ik", "ij,jk->ik"}) {
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {std::string(eq), a, b}), at::einsum(eq, {a, b})))
        << eq;
  }
  EXPECT_EQ(plan->stats()[0].contraction_steps, 0u);
}

// An in-place op changing the result's sizes and strides (t_) in one run
// must not carry into the next, though the result's bytes are planned.
TEST(ExecutionPlanTest, AContractionResultTransposedInPlaceStaysRightRunAfterRun) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w = g->placeholder("w");
  Node* z = g->call_function("aten::einsum", {"ij,jk->ik", Argument::List({x, w})});
  Node* transposed = g->call_function("aten::t_", {z});
  Node* unsqueezed = g->call_function("aten::unsqueeze_", {transposed, 0});
  g->output(g->call_function("aten::sum.dim_IntList", {unsqueezed, Argument::List({1})}));
  GraphModule gm(empty_module("InPlace"), std::move(g));
  auto plan = compile(gm);
  for (int run = 0; run < 4; ++run) {
    const at::Tensor a = at::randn({3, 3}), b = at::randn({3, 3});
    const at::Tensor want = at::mm(a, b).t().unsqueeze(0).sum({1});
    const at::Tensor got = run_tensor(*plan, {a, b});
    EXPECT_EQ(got.sizes(), want.sizes()) << "run " << run;
    EXPECT_TRUE(at::allclose(got, want, 1e-5, 1e-6)) << "run " << run;
  }
  EXPECT_EQ(plan->stats()[0].contraction_steps, 1u);
  EXPECT_GT(plan->stats()[0].planned_bytes, 0u);
}

// torch.einsum(eq, a, b) as Python FX records it (operands as varargs), and
// a parameter (requires_grad) as an operand: both compiled.
TEST(ExecutionPlanTest, VarargsEinsumOnAParameterIsCompiled) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* weight = g->get_attr("weight");
  Node* y = g->call_function("aten::einsum", {"bi,ij->bj", x, weight});
  g->output(g->call_function("operator.add", {y, 1.0}));
  GraphModule gm(empty_module("Linear"), std::move(g));
  const at::Tensor weight_value = at::randn({4, 5}).requires_grad_();
  ASSERT_TRUE(gm.add_attribute("weight", weight_value).ok());
  auto plan = compile(gm);
  for (int run = 0; run < 3; ++run) {
    const at::Tensor x_value = at::randn({2, 4});
    const at::Tensor got = run_tensor(*plan, {x_value});
    EXPECT_TRUE(at::allclose(got, at::mm(x_value, weight_value.detach()) + 1, 1e-5, 1e-6));
  }
  EXPECT_EQ(plan->stats()[0].contraction_steps, 1u);
  EXPECT_EQ(plan->stats()[0].contraction_fallbacks, 0u);
}

TEST(ExecutionPlanTest, FourThreadsShareOnePlanOfContractions) {
  GraphModule gm = contractions();
  auto plan = compile(gm);
  const at::Tensor w = at::randn({3, 3});
  std::vector<at::Tensor> inputs, want;
  for (int i = 0; i < 16; ++i) inputs.push_back(at::randn({5, 2, 7}).narrow(2, 1, 3));
  // The first run specialises the plan through aten's einsum; later runs
  // take the compiled contraction steps, whose products round differently
  // with an optimised BLAS (OpenBLAS: by 1e-8 relative). The reference is
  // the compiled path, as every thread's run is.
  run_tensor(*plan, {inputs[0], w});
  for (const at::Tensor& x : inputs) want.push_back(run_tensor(*plan, {x, w}));
  std::vector<std::vector<at::Tensor>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (const at::Tensor& x : inputs) got[t].push_back(run_tensor(*plan, {x, w}));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    for (size_t k = 0; k < got[t].size(); ++k) {
      EXPECT_TRUE(at::equal(got[t][k], want[k % want.size()])) << "thread " << t << " run " << k;
    }
  }
  EXPECT_EQ(plan->stats()[0].contraction_fallbacks, 0u);
}

TEST(ExecutionPlanTest, ContractionsCompileOnlyWhenAskedAndUnderInferenceMode) {
  GraphModule gm = contractions();
  const at::Tensor x = at::randn({5, 2, 3}), w = at::randn({3, 3});
  const at::Tensor want = Interpreter(gm).run({x, w})->toTensor();
  PlanOptions off, autograd, no_arena;
  off.compile_contractions = false;
  autograd.inference_mode = false;
  no_arena.plan_memory = false;
  for (const PlanOptions& options : {off, autograd, no_arena}) {
    auto plan = compile(gm, options);
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {x, w}), want, 1e-5, 1e-6));
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {x, w}), want, 1e-5, 1e-6));
    const size_t expected = options.compile_contractions && options.inference_mode ? 3 : 0;
    EXPECT_EQ(plan->stats()[0].contraction_steps, expected);
  }
}

TEST(ExecutionPlanTest, FourThreadsOnOnePlanGetWhatOneThreadGets) {
  GraphModule gm = chain_of_adds(30);
  auto plan = compile(gm);
  std::vector<at::Tensor> inputs, want;
  for (int i = 0; i < 16; ++i) {
    inputs.push_back(at::rand({16, 16}));
    want.push_back(run_tensor(*plan, {inputs.back()}));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto state = plan->make_state();
      for (int round = 0; round < 50; ++round) {
        const size_t i = (round * 5 + t) % inputs.size();
        // Half the threads share the pool, half keep their own state.
        auto out = t % 2 == 0 ? plan->run({inputs[i]}) : plan->run(*state, {inputs[i]});
        if (!out.ok() || !at::equal(out->toTensor(), want[i])) ++mismatches[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

// Calling one GraphModule from 16 threads at once, fresh (no plan yet: the
// threads race to compile it), after its graph changed (the plan is stale)
// and warm: every call gets what one thread gets, and one plan serves them.
TEST(ExecutionPlanTest, SixteenThreadsCallOneGraphModuleFreshStaleAndWarm) {
  GraphModule gm = chain_of_adds(20);
  std::vector<at::Tensor> inputs;
  for (int i = 0; i < 8; ++i) inputs.push_back(at::rand({8, 8}));
  const auto calls_agree = [&](int factor) {
    std::vector<int> mismatches(16, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round) {
          const at::Tensor& x = inputs[(round + t) % inputs.size()];
          auto out = gm({x});
          if (!out.ok() || !at::allclose(out->toTensor(), x * factor)) ++mismatches[t];
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_THAT(mismatches, ::testing::Each(0)) << "x * " << factor;
  };
  calls_agree(21);  // fresh
  calls_agree(21);  // warm
  // A new graph: the plan the threads find is stale.
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("aten::mul.Tensor", {x, 3.0}));
  gm.set_graph(std::move(g));
  calls_agree(3);
}

// Two inputs of one shape, neither contiguous, with other strides (a column
// slice, a transpose): aten lays a result out after its input's strides, and
// what reads the layout (as_strided, which walks memory in order) sees it. Each
// is a signature of its own, so the arena's tensor has the layout aten gives.
TEST(ExecutionPlanTest, InputsOfOtherStridesAreAnotherSignature) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* doubled = g->call_function("aten::mul.Tensor", {x, 2.0});
  Node* in_memory_order =
      g->call_function("aten::as_strided", {doubled, Argument::List({16}), Argument::List({1})});
  g->output(g->call_function("aten::add.Tensor", {in_memory_order, 1.0}));
  GraphModule gm(empty_module("Layout"), std::move(g));
  const at::Tensor sliced = at::arange(32, at::kFloat).view({4, 8}).slice(1, 0, 8, 2);  // strides 8, 2
  const at::Tensor transposed = at::arange(16, at::kFloat).view({4, 4}).t();            // strides 1, 4
  const at::Tensor column_major = at::arange(16, at::kFloat).view({4, 4}).t().contiguous().t();
  for (const at::Tensor& input : {sliced, transposed, sliced, column_major, transposed, sliced}) {
    const at::Tensor want = (input * 2).as_strided({16}, {1}) + 1;
    for (int call = 0; call < 2; ++call) {
      EXPECT_TRUE(at::equal(run_tensor(gm, {input}), want)) << "strides " << input.strides();
    }
  }
}

// Exact overloads (what exported programs and passes write) read tensors
// from their slots and weights as constants: only a number a node computes,
// which a tensor parameter takes wrapped, is converted at run time. A weight
// every reader took as a constant costs no step.
TEST(ExecutionPlanTest, ExactOverloadsConvertOnlyWrappedNumbers) {
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_parameter("w", at::rand({4, 8})).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* rows = g->call_function("aten::size.int", {x, 0});
  Node* scaled = g->call_function("aten::mul.Tensor", {x, g->get_attr("w")});
  g->output(g->call_function("aten::add.Tensor", {scaled, rows}));
  GraphModule gm(root, std::move(g));
  auto plan = compile(gm);
  Interpreter interpreter(gm);
  for (int run = 0; run < 3; ++run) {
    const at::Tensor x_value = at::rand({4, 8});
    const at::Tensor want = interpreter.run({x_value})->toTensor();
    EXPECT_TRUE(at::allclose(run_tensor(*plan, {x_value}), want)) << "run " << run;
    EXPECT_TRUE(at::allclose(want, x_value * root->get_attr("w")->toTensor() + 4));
  }
  ASSERT_EQ(plan->stats().size(), 1u);
  const PlanStats stats = plan->stats()[0];
  EXPECT_EQ(stats.converted_arguments, 1u);  // `rows`, wrapped for add's `other`
  EXPECT_EQ(stats.operator_steps, 3u);
  EXPECT_EQ(stats.steps, 5u);  // the placeholder, three operators, the output
}

// `x.dim() != 4` (every traced batch norm checks it) compares ints with
// `ne.int`: `ne.int_list` also binds, taking each int as a list of one, but
// would build two lists at every run.
TEST(ExecutionPlanTest, IntComparisonsTakeTheIntOverload) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* rank = g->call_method("dim", {x});
  g->output(g->call_function("operator.ne", {rank, 4}));
  GraphModule gm(empty_module("RankCheck"), std::move(g));
  auto plan = compile(gm);
  for (int run = 0; run < 3; ++run) {
    auto four = plan->run({at::rand({1, 2, 3, 4})});
    ASSERT_TRUE(four.ok()) << four.status();
    EXPECT_FALSE(four->toBool());
  }
  ASSERT_EQ(plan->stats().size(), 1u);
  EXPECT_EQ(plan->stats()[0].converted_arguments, 0u);
  auto three = plan->run({at::rand({1, 2, 3})});
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_TRUE(three->toBool());
}

// An int a node computes still goes to an int[] parameter where nothing
// takes it as an int: `x.view(n)` is `view(x, [n])`, not `view.dtype`.
TEST(ExecutionPlanTest, AnIntNodeStillFillsAnIntListWhereNothingElseTakesIt) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* n = g->call_method("numel", {x});
  g->output(g->call_method("view", {x, n}));
  GraphModule gm(empty_module("Flatten"), std::move(g));
  auto plan = compile(gm);
  const at::Tensor x_value = at::rand({2, 3});
  for (int run = 0; run < 3; ++run) {
    const at::Tensor out = run_tensor(*plan, {x_value});
    EXPECT_EQ(out.sizes().vec(), std::vector<int64_t>{6});
    EXPECT_TRUE(at::equal(out, x_value.reshape({6})));
  }
}

TEST(ExecutionPlanTest, InputErrorsNameThePlaceholder) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  x->meta().set("_torchscript_type", "Tensor");
  g->output(g->call_function("operator.mul", {x, 2.0}));
  GraphModule gm(empty_module("M"), std::move(g));
  auto plan = compile(gm);
  EXPECT_THAT(std::string(plan->run({at::ones({1}), 1.0}).status().message()),
              HasSubstr("forward takes 1 input(s) (x) but 2 were given"));
  EXPECT_THAT(std::string(plan->run({c10::IValue(int64_t{3})}).status().message()),
              HasSubstr("input 0 (placeholder 'x') must be Tensor but got int"));
  EXPECT_THAT(std::string(plan->run({}).status().message()),
              HasSubstr("missing input 0 (placeholder 'x')"));
}

// A failure that depends on values, not types, happens on the compiled path.
TEST(ExecutionPlanTest, FailingOperatorsNameTheNodeOnTheCompiledPath) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* index = g->placeholder("index");
  g->output(g->call_function("aten::index_select", {x, 0, index}));
  GraphModule gm(empty_module("M"), std::move(g));
  auto plan = compile(gm);
  const at::Tensor x_value = at::rand({3, 2});
  ASSERT_TRUE(plan->run({x_value, at::tensor({0, 2})}).ok());
  auto failed = plan->run({x_value, at::tensor({0, 7})});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()),
              HasSubstr("node 'index_select' (torch.ops.aten.index_select.default)"));
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("out of range"));
  // The plan is still usable.
  EXPECT_TRUE(plan->run({x_value, at::tensor({1})}).ok());
}

// torch.export records aten::_assert_tensor_metadata(x, dtype=..., device=...,
// layout=...) before each `.to(dtype)`. libtorch 1.13's schema has neither
// `device` nor `layout`: the plan and the Interpreter check it themselves,
// on every libtorch, as libtorch 2.x does.
TEST(ExecutionPlanTest, TensorMetadataAssertionsAreCheckedOnEveryLibtorch) {
  auto graph_asserting = [](c10::ScalarType dtype, c10::Device device) {
    auto g = std::make_unique<Graph>();
    Node* x = g->placeholder("x");
    g->call_function("aten::_assert_tensor_metadata", {x},
                     {{"dtype", dtype}, {"device", device}, {"layout", c10::kStrided}});
    g->output(g->call_function("aten::to.dtype", {x, c10::ScalarType::Double}));
    return GraphModule(empty_module("M"), std::move(g));
  };
  const at::Tensor x = at::rand({2, 3});
  GraphModule holds = graph_asserting(c10::ScalarType::Float, c10::Device("cpu"));
  EXPECT_TRUE(holds.graph().find_node("_assert_tensor_metadata")->is_impure());
  auto out = compile(holds)->run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Interpreter(holds).run({x}).ok());
  GraphModule fails = graph_asserting(c10::ScalarType::Half, c10::Device("cpu"));
  for (absl::StatusOr<c10::IValue> r : {compile(fails)->run({x}), Interpreter(fails).run({x})}) {
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr("assertion failed: tensor dtype mismatch: expected torch.float16, got torch.float32"));
  }
  // On the meta device the device is not checked (PyTorch's meta kernel does not).
  GraphModule on_meta = graph_asserting(c10::ScalarType::Float, c10::Device("cpu"));
  PlanOptions meta;
  meta.device = c10::Device(c10::kMeta);
  auto plan = ExecutionPlan::compile(on_meta, meta);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE((*plan)->run({x.to(c10::kMeta)}).ok());
}

TEST(ExecutionPlanTest, InferenceModeByDefaultAutogradOnRequest) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("operator.mul", {x, 3.0}));
  GraphModule gm(empty_module("M"), std::move(g));
  const at::Tensor x_value = at::ones({2}).requires_grad_();
  const at::Tensor fast = run_tensor(*compile(gm), {x_value});
  EXPECT_TRUE(fast.is_inference());
  PlanOptions autograd;
  autograd.inference_mode = false;
  const at::Tensor y = run_tensor(*compile(gm, autograd), {x_value});
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(at::equal(x_value.grad(), at::full({2}, 3.0)));
}

// Placement on a device other than the CPU, tested with the meta device
// (shapes without data) where no GPU is at hand.
TEST(ExecutionPlanTest, PlacesStateOnTheDeviceAndRefusesInputsElsewhere) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* w = g->get_attr("weight");
  g->output(g->call_function("aten::matmul", {x, w}));
  GraphModule gm(empty_module("M"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("weight", at::rand({4, 5})).ok());
  PlanOptions on_meta;
  on_meta.device = c10::Device(c10::kMeta);
  auto plan = compile(gm, on_meta);
  const at::Tensor out = run_tensor(*plan, {at::empty({3, 4}, at::device(c10::kMeta))});
  EXPECT_TRUE(out.is_meta());
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 5}));
  auto wrong = plan->run({at::rand({3, 4})});
  EXPECT_THAT(std::string(wrong.status().message()),
              HasSubstr("input 0 (placeholder 'x') is on cpu but the plan runs on meta"));
  // The GraphModule's own state stays where it was.
  EXPECT_TRUE(gm.get_attr("weight")->toTensor().is_cpu());
}

// Issue 35: a list of tensors a caller gives (read from a file, built by
// the graph: List[Any]) handed to a leaf module that declares List[Tensor]
// failed in TorchScript's type check. It is passed as the declared type.
TEST(ExecutionPlanTest, AListOfTensorsReachesALeafModuleAsItsDeclaredType) {
  torch::jit::Module head(c10::QualifiedName("__torch__.test.Head"),
                          std::make_shared<torch::jit::CompilationUnit>());
  head.define("def forward(self, xs: List[Tensor]):\n    return xs[0] + xs[1]\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("head", module_from_torchscript(head).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* xs = g->placeholder("xs");
  g->output(g->call_module("head", {xs}));
  GraphModule gm(root, std::move(g));
  c10::impl::GenericList untyped(c10::AnyType::get());
  untyped.push_back(at::ones({2}));
  untyped.push_back(at::full({2}, 2.0));
  EXPECT_TRUE(at::equal(run_tensor(*compile(gm), {untyped}), at::full({2}, 3.0)));
  auto interpreted = Interpreter(gm).run({untyped});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(at::equal(interpreted->toTensor(), at::full({2}, 3.0)));
}

// A leaf module whose forward assigns an attribute (a counter) runs on one
// object, as on one nn.Module: each call, from the plan or the Interpreter,
// sees the calls before it.
TEST(ExecutionPlanTest, ALeafModuleThatCountsItsCallsRunsOnOneObject) {
  torch::jit::Module counter(c10::QualifiedName("__torch__.test.Counter"),
                             std::make_shared<torch::jit::CompilationUnit>());
  counter.register_attribute("calls", c10::IntType::get(), int64_t{0});
  counter.define("def forward(self, x):\n    self.calls += 1\n    return x * self.calls\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("counter", module_from_torchscript(counter).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* first = g->call_module("counter", {x});
  Node* second = g->call_module("counter", {x});
  g->output(g->call_function("aten::add.Tensor", {first, second}));
  GraphModule gm(root, std::move(g));
  const at::Tensor ones = at::ones({2});
  EXPECT_TRUE(at::equal(run_tensor(gm, {ones}), at::full({2}, 3.0)));  // 1 + 2
  EXPECT_TRUE(at::equal(run_tensor(gm, {ones}), at::full({2}, 7.0)));  // 3 + 4
  auto interpreted = Interpreter(gm).run({ones});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(at::equal(interpreted->toTensor(), at::full({2}, 11.0)));  // 5 + 6
}

// A leaf module that keeps what it is given (`self.prev = x`, a streaming
// delay) holds it past the run: a value handed to it never lives in the
// arena, where the next run of the plan would overwrite it before the module
// reads it back. Five calls with other inputs each, against what the model
// computes: x_k * x_k + x_(k-1) * x_(k-1).
TEST(ExecutionPlanTest, AValueALeafModuleKeepsOutlivesTheRun) {
  torch::jit::Module delay(c10::QualifiedName("__torch__.test.Delay"),
                           std::make_shared<torch::jit::CompilationUnit>());
  delay.register_attribute("prev", c10::TensorType::get(), at::zeros({4}));
  delay.define("def forward(self, x):\n    out = self.prev\n    self.prev = x\n    return out\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("delay", module_from_torchscript(delay).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* square = g->call_function("aten::mul.Tensor", {x, x});
  Node* before = g->call_module("delay", {square});
  g->output(g->call_function("aten::add.Tensor", {before, square}));
  GraphModule gm(root, std::move(g));
  at::Tensor previous = at::zeros({4});
  for (int call = 0; call < 5; ++call) {
    const at::Tensor input = at::arange(4, at::kFloat) + 10 * call;
    const at::Tensor expected = input * input + previous;
    EXPECT_TRUE(at::equal(run_tensor(gm, {input}), expected)) << "call " << call;
    previous = input * input;
  }
}

// A leaf module whose code rebinds its state (`self.prev = x`) while the
// graph reads that attribute before and after the call: each read takes the
// value at its place in each run, not the one the plan saw when compiled;
// after each call the module tree holds what the code assigned (the slots
// and the leaf's object agree), without a change of version, so the plan is
// not compiled again. Threads calling at once run the leaf one at a time and
// see consistent state.
TEST(ExecutionPlanTest, AnAttributeALeafRebindsIsReadAtEachRun) {
  torch::jit::Module delay(c10::QualifiedName("__torch__.test.Delay"),
                           std::make_shared<torch::jit::CompilationUnit>());
  delay.register_attribute("prev", c10::TensorType::get(), at::zeros({4}));
  delay.register_attribute("calls", c10::IntType::get(), 0);
  delay.define(
      "def forward(self, x):\n"
      "    self.prev = x * 1.0\n"
      "    self.calls = self.calls + 1\n"
      "    return x\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("delay", module_from_torchscript(delay).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* before = g->get_attr("delay.prev");
  Node* y = g->call_module("delay", {x});
  Node* after = g->get_attr("delay.prev");
  Node* ten_after = g->call_function("aten::mul.Tensor", {after, 10.0});
  g->output(g->call_function("aten::add.Tensor",
                             {g->call_function("aten::add.Tensor", {before, ten_after}), y}));
  GraphModule gm(root, std::move(g));
  at::Tensor previous = at::zeros({4});
  uint64_t version = 0;
  for (int call = 0; call < 5; ++call) {
    const at::Tensor input = at::arange(4, at::kFloat) + 10 * call;
    EXPECT_TRUE(at::equal(run_tensor(gm, {input}), previous + input * 10 + input))
        << "call " << call;
    previous = input;
    auto held = gm.get_attr("delay.prev");
    ASSERT_TRUE(held.ok()) << held.status();
    EXPECT_TRUE(at::equal(held->toTensor(), input)) << "call " << call;
    if (call == 0) version = gm.version();
    EXPECT_EQ(gm.version(), version) << "call " << call;
  }
  EXPECT_EQ(gm.get_attr("delay.calls")->toInt(), 5);
  auto interpreted = Interpreter(gm).run({at::ones({4})});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_TRUE(at::equal(interpreted->toTensor(), previous + at::full({4}, 11.0)));

  // Eight threads, 50 calls each, each input one value throughout: every
  // result is made of whole values (no tensor torn between two calls' writes),
  // and the count has every call (the leaf's calls did not interleave, which
  // would lose increments).
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&gm, &wrong, t] {
      for (int k = 0; k < 50; ++k) {
        const float v = static_cast<float>(t * 100 + k);
        auto out = gm({at::full({4}, v)});
        if (!out.ok()) {
          ++wrong;
          continue;
        }
        const at::Tensor rest = out->toTensor() - 11 * v;
        if (!at::equal(rest, at::full({4}, rest[0].item<float>()))) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(gm.get_attr("delay.calls")->toInt(), 5 + 1 + 8 * 50);
}

// A rebound attribute's dtype may change while the inputs' signature does
// not (`self.prev = x` keeps the last call's input, of another dtype): values
// computed from it are not planned by the first run's dtype, so the result
// promotes as PyTorch's does (an out= tensor of the first run's float32 would
// have cast a float64 sum back).
TEST(ExecutionPlanTest, AValueComputedFromAReboundAttributeIsNotPlannedByTheFirstRun) {
  torch::jit::Module delay(c10::QualifiedName("__torch__.test.Keep"),
                           std::make_shared<torch::jit::CompilationUnit>());
  delay.register_attribute("prev", c10::TensorType::get(), at::zeros({4}));
  delay.define("def forward(self, x):\n    self.prev = x * 1.0\n    return x\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("delay", module_from_torchscript(delay).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* before = g->get_attr("delay.prev");
  Node* sum = g->call_function("aten::add.Tensor", {before, x});
  g->call_module("delay", {x});
  g->output(g->call_function("aten::mul.Tensor", {sum, 2.0}));
  GraphModule gm(root, std::move(g));
  at::Tensor previous = at::zeros({4});
  for (int call = 0; call < 6; ++call) {
    const at::Tensor input =
        (at::arange(4) + call).to(call % 2 == 0 ? at::kFloat : at::kDouble);
    const at::Tensor expected = (previous + input) * 2.0;
    const at::Tensor got = run_tensor(gm, {input});
    EXPECT_EQ(got.scalar_type(), expected.scalar_type()) << "call " << call;
    EXPECT_TRUE(at::equal(got, expected)) << "call " << call;
    previous = input;
  }
}

// A leaf whose result follows the state its code changes (here its dtype,
// every other call) under the same inputs: what is computed from that
// result is not planned by the first run either.
TEST(ExecutionPlanTest, AValueComputedFromWhatStateChangingCodeReturnsIsNotPlannedByTheFirstRun) {
  torch::jit::Module alternate(c10::QualifiedName("__torch__.test.Alternate"),
                               std::make_shared<torch::jit::CompilationUnit>());
  alternate.register_attribute("count", c10::IntType::get(), int64_t{0});
  alternate.define(
      "def forward(self, x):\n"
      "    self.count += 1\n"
      "    if self.count % 2 == 0:\n"
      "        return x.double()\n"
      "    return x\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("alternate", module_from_torchscript(alternate).value()).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* sum = g->call_function("aten::add.Tensor", {g->call_module("alternate", {x}), x});
  g->output(g->call_function("aten::mul.Tensor", {sum, 2.0}));
  GraphModule gm(root, std::move(g));
  for (int call = 1; call <= 6; ++call) {
    const at::Tensor input = at::arange(4, at::kFloat) / 3 + call;
    const at::Tensor returned = call % 2 == 0 ? input.to(at::kDouble) : input;
    const at::Tensor expected = (returned + input) * 2.0;
    const at::Tensor got = run_tensor(gm, {input});
    EXPECT_EQ(got.scalar_type(), expected.scalar_type()) << "call " << call;
    EXPECT_TRUE(at::equal(got, expected)) << "call " << call;
  }
}

// A change made to a submodule's state reaches the next call, of the
// GraphModule and of an Interpreter: their plans follow the tree's changes.
TEST(ExecutionPlanTest, AChangeToASubmodulesStateReachesTheNextCall) {
  auto scale = std::make_shared<Module>("test.Scale");
  ASSERT_TRUE(scale->register_parameter("w", at::ones({2})).ok());
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("scale", scale).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("aten::mul.Tensor", {x, g->get_attr("scale.w")}));
  GraphModule gm(root, std::move(g));
  Interpreter interpreter(gm);
  const at::Tensor ones = at::ones({2});
  EXPECT_TRUE(at::equal(run_tensor(gm, {ones}), ones));
  EXPECT_TRUE(at::equal(interpreter.run({ones})->toTensor(), ones));
  ASSERT_TRUE(scale->set_value("w", at::full({2}, 5.0)).ok());
  EXPECT_TRUE(at::equal(run_tensor(gm, {ones}), at::full({2}, 5.0)));
  EXPECT_TRUE(at::equal(interpreter.run({ones})->toTensor(), at::full({2}, 5.0)));
}

// version(), read at every call, walks the module tree only after a change
// somewhere; it moves with every change below the root and with none elsewhere.
TEST(ExecutionPlanTest, VersionMovesWithChangesBelowTheRootOnly) {
  std::shared_ptr<Module> root = empty_module("Root");
  auto inner = std::make_shared<Module>("test.Inner");
  ASSERT_TRUE(inner->register_buffer("b", at::ones({2})).ok());
  ASSERT_TRUE(root->register_module("inner", inner).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_function("aten::add.Tensor", {x, g->get_attr("inner.b")}));
  GraphModule gm(root, std::move(g));
  const uint64_t first = gm.version();
  EXPECT_EQ(gm.version(), first);
  Module elsewhere("test.Elsewhere");
  ASSERT_TRUE(elsewhere.register_buffer("c", at::ones({1})).ok());
  EXPECT_EQ(gm.version(), first);
  ASSERT_TRUE(inner->set_value("b", at::zeros({2})).ok());
  const uint64_t second = gm.version();
  EXPECT_GT(second, first);
  EXPECT_TRUE(at::equal(run_tensor(gm, {at::ones({2})}), at::ones({2})));
  inner->set_training(true);
  EXPECT_GT(gm.version(), second);
}

// Issue 25: a model with parameters could not be placed on the meta device
// (Module::to swaps parameter data, which meta tensors lack). Parameters,
// buffers and submodules are copied there, and convolutions run on it
// (meta_device.h's kernels).
TEST(ExecutionPlanTest, RunsAModelWithParametersAndSubmodulesOnTheMetaDevice) {
  torch::jit::Module conv(c10::QualifiedName("__torch__.test.Conv"),
                          std::make_shared<torch::jit::CompilationUnit>());
  conv.register_parameter("weight", at::rand({2, 3, 3, 3}), /*is_buffer=*/false);
  conv.define("def forward(self, x):\n    return torch.conv2d(x, self.weight)\n");
  std::shared_ptr<Module> root = empty_module("Root");
  ASSERT_TRUE(root->register_module("conv", module_from_torchscript(conv).value()).ok());
  ASSERT_TRUE(root->register_parameter("scale", at::rand({1})).ok());
  ASSERT_TRUE(root->register_buffer("shift", at::rand({1})).ok());
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->call_module("conv", {x});
  Node* scaled = g->call_function("aten::mul.Tensor", {y, g->get_attr("scale")});
  g->output(g->call_function("aten::add.Tensor", {scaled, g->get_attr("shift")}));
  GraphModule gm(root, std::move(g));
  PlanOptions on_meta;
  on_meta.device = c10::Device(c10::kMeta);
  auto plan = ExecutionPlan::compile(gm, on_meta);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const at::Tensor out = run_tensor(**plan, {at::empty({1, 3, 8, 8}, at::device(c10::kMeta))});
  EXPECT_TRUE(out.is_meta());
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{1, 2, 6, 6}));
  for (const auto& [name, t] : root->named_tensors()) EXPECT_TRUE(t.is_cpu()) << name;
}

TEST(ExecutionPlanTest, CudaWithoutCudaSaysWhyAndHow) {
  if (libtorch_has_cuda() || at::hasCUDA()) {
    GTEST_SKIP() << "this libtorch has CUDA (CudaBuildWithoutGpuSaysNoDevice covers it)";
  }
  GraphModule gm = chain_of_adds(2);
  PlanOptions on_gpu;
  on_gpu.device = c10::Device(c10::kCUDA, 0);
  auto plan = ExecutionPlan::compile(gm, on_gpu);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("needs CUDA"));
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("FX_LIBTORCH_HOME"));
}

// A CUDA libtorch on a machine with no GPU (the trixie-cuda lane): the plan is
// refused because no device is present, not because libtorch lacks CUDA.
TEST(ExecutionPlanTest, CudaBuildWithoutGpuSaysNoDevice) {
  if (!libtorch_has_cuda()) GTEST_SKIP() << "this libtorch has no CUDA: needs a CUDA build";
  if (at::getNumGPUs() > 0) GTEST_SKIP() << "this machine has a GPU: needs a machine without one";
  EXPECT_FALSE(at::hasCUDA());
  GraphModule gm = chain_of_adds(2);
  PlanOptions on_gpu;
  on_gpu.device = c10::Device(c10::kCUDA, 0);
  auto plan = ExecutionPlan::compile(gm, on_gpu);
  ASSERT_FALSE(plan.ok());
  const std::string message(plan.status().message());
  EXPECT_THAT(message, HasSubstr("device cuda:0: this libtorch is built with CUDA, but no CUDA "
                                 "device is present"));
  EXPECT_THAT(message, HasSubstr("--device=cpu"));
  EXPECT_THAT(message, Not(HasSubstr("FX_LIBTORCH_HOME")));
  EXPECT_FALSE(parse_device("cuda").ok());
  EXPECT_THAT(std::string(parse_device("cuda:1").status().message()),
              HasSubstr("no CUDA device is present"));
}

}  // namespace
}  // namespace fx
