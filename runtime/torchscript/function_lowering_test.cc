// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/function_lowering.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/tensordot.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/resolver.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/torchscript/script_functions.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// Leaf functions as a tracer records them: TorchScript functions of the
// model's compilation unit, called by call_function nodes.
constexpr char kSource[] = R"(
def contract(a: Tensor, b: Tensor, dims: Tuple[List[int], List[int]], scale: float = 1.0):
    if scale == 1.0:
        return torch.tensordot(a, b, dims[0], dims[1])
    return torch.tensordot(a, b, dims[0], dims[1]) * scale

def checked(a: Tensor, n: int):
    assert n >= 0, "n must not be negative"
    return a * n

def summed(a: Tensor, dims: List[int]):
    dims.append(0)
    return torch.sum(a, dims)

def pick_int(a: Tensor, k: int):
    return a + k

def pick_list(a: Tensor, k: List[int]):
    return a.sum(k)
)";

std::shared_ptr<torch::jit::CompilationUnit> unit() {
  static auto* cu = [] {
    auto* u = new std::shared_ptr<torch::jit::CompilationUnit>(
        std::make_shared<torch::jit::CompilationUnit>());
    (*u)->define(c10::nullopt, kSource, torch::jit::nativeResolver(), nullptr);
    return u;
  }();
  return *cu;
}

torch::jit::StrongFunctionPtr function(const std::string& name) {
  return torch::jit::StrongFunctionPtr(unit(), &unit()->get_function(name));
}

// forward(x, y, s) = <target>(args...), with `functions` recorded for the target.
struct Model {
  GraphModule gm;
  Node* call;
};

Model model(const std::string& target, const std::vector<std::string>& functions,
            const std::function<Arguments(Node*, Node*, Node*)>& args) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* s = g->placeholder("s");
  Node* call = g->call_function(target, args(x, y, s));
  g->output(call);
  GraphModule gm(empty_module("M"), std::move(g));
  for (const std::string& f : functions) add_script_function(gm, target, function(f));
  return {std::move(gm), call};
}

c10::IValue interpret(GraphModule& gm, std::vector<c10::IValue> inputs) {
  Interpreter interpreter(gm);
  auto out = interpreter.run(std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : c10::IValue();
}

Argument dims(std::vector<Argument> a, std::vector<Argument> b) {
  return Argument::Tuple({Argument::List(std::move(a)), Argument::List(std::move(b))});
}

TEST(FunctionLoweringTest, ACallWhoseLiteralsDecideTheBodyBecomesItsOperator) {
  Model m = model("mylib.contract", {"contract"}, [](Node* x, Node* y, Node*) {
    return Arguments{x, y, dims({1}, {0})};
  });
  const at::Tensor x = at::rand({3, 4}), y = at::rand({4, 5});
  const at::Tensor want = interpret(m.gm, {x, y, 0.0}).toTensor();

  EXPECT_EQ(lower_leaf_functions(m.gm), 1u);
  EXPECT_EQ(m.call->target(), "aten::tensordot");
  EXPECT_EQ(m.call->name(), "contract");  // errors still name it
  EXPECT_EQ(m.gm.graph().size(), 5u);
  EXPECT_TRUE(at::allclose(interpret(m.gm, {x, y, 0.0}).toTensor(), want));
  EXPECT_TRUE(at::allclose(want, at::tensordot(x, y, {1}, {0})));
}

TEST(FunctionLoweringTest, SeveralCallsBecomeNodesBeforeTheLast) {
  Model m = model("mylib.contract", {"contract"}, [](Node* x, Node* y, Node*) {
    return Arguments{x, y, dims({1}, {0}), 2.5};
  });
  const at::Tensor x = at::rand({3, 4}), y = at::rand({4, 5});
  const at::Tensor want = interpret(m.gm, {x, y, 0.0}).toTensor();

  EXPECT_EQ(lower_leaf_functions(m.gm), 1u);
  EXPECT_EQ(m.call->target(), "aten::mul.Scalar");
  Node* contraction = m.gm.graph().find_node("contract_tensordot");
  ASSERT_NE(contraction, nullptr) << m.gm.code();
  EXPECT_EQ(contraction->target(), "aten::tensordot");
  EXPECT_TRUE(contraction->comes_before(*m.call));
  EXPECT_TRUE(m.gm.graph().lint().ok());
  EXPECT_TRUE(at::allclose(interpret(m.gm, {x, y, 0.0}).toTensor(), want));
  EXPECT_TRUE(at::allclose(want, at::tensordot(x, y, {1}, {0}) * 2.5));
}

TEST(FunctionLoweringTest, ABranchOnANodeKeepsTheCall) {
  Model m = model("mylib.contract", {"contract"}, [](Node* x, Node* y, Node* s) {
    return Arguments{x, y, dims({1}, {0}), s};
  });
  const std::string before = m.gm.code();
  EXPECT_EQ(lower_leaf_functions(m.gm), 0u);
  EXPECT_EQ(m.gm.code(), before);
}

TEST(FunctionLoweringTest, ABodyThatRaisesKeepsTheCallAndItsError) {
  Model raising = model("mylib.checked", {"checked"}, [](Node* x, Node*, Node*) {
    return Arguments{x, -1};
  });
  EXPECT_EQ(lower_leaf_functions(raising.gm), 0u);
  auto plan = ExecutionPlan::compile(raising.gm);
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto out = (*plan)->run({at::rand({2}), at::rand({2}), 0.0});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("n must not be negative"));

  Model fine = model("mylib.checked", {"checked"}, [](Node* x, Node*, Node*) {
    return Arguments{x, 3};
  });
  EXPECT_EQ(lower_leaf_functions(fine.gm), 1u);
  EXPECT_EQ(fine.call->target(), "aten::mul.Scalar");
}

TEST(FunctionLoweringTest, ABodyThatChangesAListArgumentKeepsTheCall) {
  // Lowered, the list would be a constant that every run appends to.
  Model m = model("mylib.summed", {"summed"}, [](Node* x, Node*, Node*) {
    return Arguments{x, Argument::List({1})};
  });
  EXPECT_EQ(lower_leaf_functions(m.gm), 0u);
  auto plan = ExecutionPlan::compile(m.gm);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const at::Tensor x = at::rand({2, 3, 4});
  for (int run = 0; run < 3; ++run) {
    auto out = (*plan)->run({x, x, 0.0});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(at::allclose(out->toTensor(), x.sum({1, 0}))) << "run " << run;
  }
}

TEST(FunctionLoweringTest, OverloadsAreLoweredOnlyWhenTheLiteralsPickOne) {
  Model by_int = model("mylib.pick", {"pick_int", "pick_list"}, [](Node* x, Node*, Node*) {
    return Arguments{x, 2};
  });
  EXPECT_EQ(lower_leaf_functions(by_int.gm), 1u);
  EXPECT_EQ(by_int.call->target(), "aten::add.Scalar");

  Model by_list = model("mylib.pick", {"pick_int", "pick_list"}, [](Node* x, Node*, Node*) {
    return Arguments{x, Argument::List({0})};
  });
  EXPECT_EQ(lower_leaf_functions(by_list.gm), 1u);
  EXPECT_EQ(by_list.call->target(), "aten::sum.dim_IntList");

  // A node: the run-time value picks.
  Model by_node = model("mylib.pick", {"pick_int", "pick_list"}, [](Node* x, Node*, Node* s) {
    return Arguments{x, s};
  });
  EXPECT_EQ(lower_leaf_functions(by_node.gm), 0u);
}

TEST(FunctionLoweringTest, ThePlanLowersUnlessToldNotTo) {
  Model m = model("mylib.contract", {"contract"}, [](Node* x, Node* y, Node*) {
    return Arguments{x, y, dims({1}, {0}), 0.5};
  });
  const at::Tensor x = at::rand({3, 4}), y = at::rand({4, 5});
  const at::Tensor want = interpret(m.gm, {x, y, 0.0}).toTensor();
  for (bool lower : {true, false}) {
    PlanOptions options;
    options.lower_functions = lower;
    auto plan = ExecutionPlan::compile(m.gm, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ((*plan)->lowered_functions(), lower ? 1u : 0u);
    for (int run = 0; run < 2; ++run) {
      auto out = (*plan)->run({x, y, 0.0});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(at::allclose(out->toTensor(), want));
    }
    // The GraphModule itself is left as it was.
    EXPECT_EQ(m.call->target(), "mylib.contract");
  }
}

}  // namespace
}  // namespace fx
