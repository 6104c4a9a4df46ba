// Copyright 2026 The FX for C++ Authors.
#include "tracer/tracer.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/zeros.h>

#include <map>
#include <memory>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/torchscript/script_functions.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"
#include "tests/testing/values.h"
#include "tracer/module_info.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using testing::node_names;
using testing::node_targets;
using testing::trace_fixture;

TEST(TracerTest, PlaceholdersTakePythonNamesDefaultsAndAnnotations) {
  GraphModule gm = trace_fixture("multi_io.pt");
  std::vector<Node*> inputs = gm.graph().placeholders();
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0]->name(), "x");
  EXPECT_EQ(inputs[1]->name(), "y");
  EXPECT_EQ(inputs[2]->name(), "alpha");
  EXPECT_TRUE(inputs[0]->args().empty());
  EXPECT_TRUE(inputs[0]->type().empty());  // Tensor: unannotated in Python
  EXPECT_EQ(inputs[2]->type(), "float");
  ASSERT_EQ(inputs[2]->args().size(), 1u);
  EXPECT_EQ(inputs[2]->args()[0], Argument(0.5));
  EXPECT_THAT(python_code(gm.graph()), HasSubstr("def forward(self, x, y, alpha : float = 0.5):"));
}

TEST(TracerTest, LeafModulesAreCalledAndOthersTracedThrough) {
  GraphModule gm = trace_fixture("multi_io.pt");
  // nn.Linear is a leaf; the ModuleList loop is unrolled into its elements.
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallModule), ElementsAre("proj", "blocks.0", "blocks.1"));
}

TEST(TracerTest, ParametersAndBuffersBecomeGetAttrOnce) {
  GraphModule my_module = trace_fixture("my_module.pt");
  EXPECT_THAT(node_targets(my_module.graph(), Op::kGetAttr), ElementsAre("linear.weight"));
  GraphModule multi_io = trace_fixture("multi_io.pt");
  EXPECT_THAT(node_targets(multi_io.graph(), Op::kGetAttr), ElementsAre("offset"));
}

TEST(TracerTest, TensorConstantsBecomeAttributesOfTheGraphModule) {
  GraphModule gm = trace_fixture("frozen_linear.pt");
  EXPECT_THAT(node_targets(gm.graph(), Op::kGetAttr),
              ElementsAre("_tensor_constant0", "_tensor_constant1"));
  EXPECT_TRUE(gm.own_attributes().contains("_tensor_constant0"));
  EXPECT_TRUE(gm.get_attr("_tensor_constant1")->isTensor());
  testing::expect_runs_like_the_fixture(gm, "frozen_linear.pt", {at::rand({2, 4})});
}

// torch.jit.trace records `t * 0.01` with 0.01 as a 0-dim float64 tensor
// constant; PyTorch's run of the saved module takes it, as the `other` of
// add, sub, mul and div, as the Python number it was (an int64 tensor times
// 0.01 is float32), and keeps other such constants tensors (torch.where,
// a constant first operand: float64). The trace computes what the module
// computes, dtypes included, output by output.
TEST(TracerTest, TracedPythonNumbersPromoteAsPyTorchRunsThem) {
  GraphModule gm = trace_fixture("traced_numbers.pt");
  const at::Tensor t = at::arange(5) * 7;
  const at::Tensor mask = at::remainder(t, 3).eq(0);
  testing::expect_runs_like_the_fixture(gm, "traced_numbers.pt", {t, mask});
  // The numbers are literals of the calls; the two constants kept tensors
  // (where's and the first operand's, one HALF) are one attribute.
  EXPECT_THAT(node_targets(gm.graph(), Op::kGetAttr), ElementsAre("_tensor_constant0"));
}

TEST(TracerTest, OperatorsKeepOverloadsAndDropDefaults) {
  GraphModule gm = trace_fixture("ops.pt");
  const Graph& g = gm.graph();
  Node* add = g.find_node("add_2");  // torch.add(x, y, alpha=2)
  ASSERT_NE(add, nullptr) << format_graph(g);
  EXPECT_EQ(add->target(), "aten::add.Tensor");
  EXPECT_THAT(add->kwargs(), ElementsAre(std::make_pair(std::string("alpha"), Argument(2))));
  Node* sum = g.find_node("sum_1");  // x.sum(dim=1, keepdim=True)
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->target(), "aten::sum.dim_IntList");
  EXPECT_EQ(sum->args().size(), 3u);  // the default dtype is dropped
  EXPECT_EQ(sum->args()[1], Argument::List({1}));
  EXPECT_TRUE(sum->kwargs().empty());
  Node* zeros = g.find_node("zeros");  // torch.zeros(3, dtype=torch.float64)
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ(zeros->args()[0], Argument::List({3}));
  EXPECT_THAT(zeros->kwargs(), ElementsAre(std::make_pair(std::string("dtype"), Argument(c10::kDouble))));
  Node* clamp = g.find_node("clamp");  // x.clamp(min=0.0)
  ASSERT_NE(clamp, nullptr);
  EXPECT_EQ(clamp->args().size(), 2u);
}

TEST(TracerTest, AttributesDecideConditionsAndLoopsAtTraceTime) {
  GraphModule gm = trace_fixture("ops.pt");
  const std::string code = python_code(gm.graph());
  // eval mode: `if self.training: x = x * 2` is gone; `for i in range(self.n)` unrolled.
  EXPECT_THAT(code, ::testing::Not(HasSubstr("aten.mul.Tensor(x, 2)")));
  EXPECT_THAT(code, HasSubstr("add = torch.ops.aten.add.Scalar(x, 0)"));
  EXPECT_THAT(code, HasSubstr("add_1 = torch.ops.aten.add.Scalar(add, 1)"));
  testing::expect_runs_like_the_fixture(gm, "ops.pt",
                               {at::rand({2, 4}), at::rand({2, 4})});
}

TEST(TracerTest, TrainingModeIsAnOption) {
  TraceOptions training;
  training.training = true;
  GraphModule train = trace_fixture("train_mode.pt", training);
  EXPECT_NE(train.graph().find_node("mul"), nullptr);
  GraphModule eval = trace_fixture("train_mode.pt");
  EXPECT_EQ(eval.graph().find_node("mul"), nullptr);
  EXPECT_THAT(node_targets(eval.graph(), Op::kCallModule), ElementsAre("drop"));
}

TEST(TracerTest, InputChecksBecomeAssertionsOrAreDropped) {
  GraphModule gm = trace_fixture("ops.pt");
  std::vector<Node*> asserts = gm.graph().find_nodes(Op::kCallFunction, "torch._assert");
  ASSERT_EQ(asserts.size(), 1u);
  EXPECT_EQ(asserts[0]->args()[1], Argument("expected 2D input"));
  EXPECT_EQ(asserts[0]->args()[0].to_node()->target(), "operator.not_");
  // The check runs: a 3-D input fails with the model's message.
  auto out = gm({at::rand({2, 4, 1}), at::rand({2, 4, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("expected 2D input"));

  TraceOptions drop;
  drop.assertions = AssertionMode::kDrop;
  GraphModule dropped = trace_fixture("ops.pt", drop);
  EXPECT_THAT(dropped.graph().find_nodes(Op::kCallFunction, "torch._assert"), IsEmpty());
}

TEST(TracerTest, MultiResultOperatorsGiveOneNodeAndGetitems) {
  GraphModule gm = trace_fixture("ops.pt");
  Node* max = gm.graph().find_node("max_1");
  ASSERT_NE(max, nullptr) << format_graph(gm.graph());
  EXPECT_EQ(max->target(), "aten::max.dim");
  std::vector<Node*> items = gm.graph().find_nodes(Op::kCallFunction, "operator.getitem");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]->args(), (Arguments{max, 0}));
  EXPECT_EQ(items[1]->args(), (Arguments{max, 1}));
  // All results returned together: the node itself, as torch.fx's `topk`.
  GraphModule my_module = trace_fixture("my_module.pt");
  EXPECT_EQ(my_module.graph().output_node()->args()[0].to_node()->name(), "topk");
}

TEST(TracerTest, InPlaceOperatorsAreFunctionalisedOnlyWhereUnobservable) {
  GraphModule gm = trace_fixture("ops.pt");
  const Graph& g = gm.graph();
  // v = x.view(-1); v.add_(1): a view, stays in place and impure.
  std::vector<Node*> add_ = g.find_nodes(Op::kCallFunction, "aten::add_.Scalar");
  ASSERT_EQ(add_.size(), 1u);
  EXPECT_TRUE(add_[0]->is_impure());
  // w = x.clamp(...); w.mul_(3): fresh, recorded out of place, and the
  // returned `w` is the new value.
  EXPECT_THAT(g.find_nodes(Op::kCallFunction, "aten::mul_.Scalar"), IsEmpty());
  Node* mul = g.find_node("mul");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->target(), "aten::mul.Scalar");
  EXPECT_EQ(g.output_node()->args()[0].elements()[4].to_node(), mul);

  // An input mutated in place stays in place; later reads see the new value.
  GraphModule input = trace_fixture("inplace_input.pt");
  Node* inplace = input.graph().find_node("add_");
  ASSERT_NE(inplace, nullptr) << format_graph(input.graph());
  EXPECT_TRUE(inplace->is_impure());
  EXPECT_EQ(input.graph().find_node("mul")->args()[0].to_node(), inplace);
  at::Tensor a = at::rand({3});
  at::Tensor expected = (a + 1) * 2;
  auto out = input({a.clone()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::allclose(out->toTensor(), expected));
}

TEST(TracerTest, ControlFlowOnInputsIsAnErrorNamingTheSourceLine) {
  auto gm = testing::trace_fixture_result("control_flow.pt");
  ASSERT_FALSE(gm.ok());
  const std::string message(gm.status().message());
  EXPECT_THAT(message, HasSubstr("seed_models.py:"));
  EXPECT_THAT(message, HasSubstr("`if x.sum() > 0:`"));
  EXPECT_THAT(message, HasSubstr("control flow depends on an input value"));
  EXPECT_THAT(message, HasSubstr("leaf"));
}

TEST(TracerTest, LeafFunctionsAreRecordedWholeAndRun) {
  auto failed = testing::trace_fixture_result("leaf_function.pt");
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("leaf_functions"));
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("in function clip"));

  TraceOptions options;
  options.leaf_functions = {"clip"};
  GraphModule gm = trace_fixture("leaf_function.pt", options);
  Node* clip = gm.graph().find_node("clip");
  ASSERT_NE(clip, nullptr) << format_graph(gm.graph());
  EXPECT_EQ(clip->op(), Op::kCallFunction);
  EXPECT_EQ(clip->target(), "clip");
  for (double sign : {1.0, -1.0}) {
    testing::expect_runs_like_the_fixture(gm, "leaf_function.pt",
                                 {at::rand({3}) * sign});
  }
}

TEST(TracerTest, FormattedMessagesAreBuiltWhileTracing) {
  GraphModule gm = trace_fixture("ops.pt");
  EXPECT_THAT(gm.graph().find_nodes(Op::kCallFunction, "aten::format"), IsEmpty());
}

TEST(TracerTest, ModuleStateMutationIsAnError) {
  auto gm = testing::trace_fixture_result("stateful.pt");
  ASSERT_FALSE(gm.ok());
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("assigns module attribute 'calls'"));
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("tracer_models.py:"));
}

TEST(TracerTest, MissingMethodIsAnError) {
  TraceOptions options;
  options.method = "predict";
  auto gm = testing::trace_fixture_result("m1.pt", options);
  ASSERT_FALSE(gm.ok());
  EXPECT_THAT(std::string(gm.status().message()), HasSubstr("no method 'predict'"));
}

// Records every hook call, to check composition and order.
class Recorder : public TracerExtension {
 public:
  Recorder(std::string tag, std::vector<std::string>* log) : tag_(std::move(tag)), log_(log) {}
  void begin_trace(Tracer&, const ModuleRef& root) override { log_->push_back(tag_ + ":begin"); }
  absl::Status end_trace(Tracer&, GraphModule& gm) override {
    gm.meta().set(tag_, true);
    log_->push_back(tag_ + ":end");
    return absl::OkStatus();
  }
  absl::StatusOr<Argument> call_module(Tracer& t, const ModuleRef& m, const ModuleForward& f,
                                       const Arguments& args, const Kwargs& kwargs,
                                       CallModuleNext next) override {
    log_->push_back(absl::StrCat(tag_, ":call_module:", t.path_of_module(m), ":", m.class_name()));
    return next(m, f, args, kwargs);
  }
  Node* create_proxy(Tracer& t, Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                     absl::string_view name, CreateProxyNext next) override {
    log_->push_back(absl::StrCat(tag_, ":create_proxy:", op_name(op)));
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
  Node* create_node(Tracer& t, Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                    absl::string_view name, CreateNodeNext next) override {
    Node* n = next(op, target, std::move(args), std::move(kwargs), name);
    n->meta().set(tag_, true);
    log_->push_back(absl::StrCat(tag_, ":create_node:", n->name()));
    return n;
  }

 private:
  std::string tag_;
  std::vector<std::string>* log_;
};

TEST(TracerTest, ExtensionsComposeInOrder) {
  std::vector<std::string> log;
  Tracer tracer;
  tracer.add_extension(std::make_shared<Recorder>("a", &log));
  tracer.add_extension(std::make_shared<Recorder>("b", &log));
  auto gm = testing::trace_fixture_result("m1.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_THAT(log, ElementsAre("a:begin", "b:begin",                                    //
                               "a:create_proxy:placeholder", "b:create_proxy:placeholder",
                               "b:create_node:x", "a:create_node:x",                  //
                               "a:call_module:relu:ReLU", "b:call_module:relu:ReLU",  //
                               "a:create_proxy:call_module", "b:create_proxy:call_module",
                               "b:create_node:relu", "a:create_node:relu",            //
                               "b:create_node:output", "a:create_node:output",        //
                               "a:end", "b:end"));
  for (const Node* n : gm->graph().nodes()) {
    EXPECT_TRUE(n->meta().contains("a") && n->meta().contains("b")) << n->name();
  }
  EXPECT_TRUE(gm->meta().contains("a"));
}

// The seed's LowerReluTracer, as an extension.
class LowerRelu : public TracerExtension {
  bool is_leaf_module(Tracer& t, const ModuleRef& m, IsLeafModuleNext next) override {
    if (m.class_name() == "ReLU") return false;
    return next(m);
  }
};

TEST(TracerTest, LeafDecisionsCanBeOverridden) {
  Tracer tracer;
  tracer.add_extension(std::make_shared<LowerRelu>());
  auto gm = testing::trace_fixture_result("m1.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_THAT(node_names(gm->graph()), ElementsAre("x", "relu", "output"));
  EXPECT_EQ(gm->graph().find_node("relu")->op(), Op::kCallFunction);
  // As seed 000's LowerReluTracer shows it: F.relu recorded whole, with the
  // keyword torch.fx hands over (`(x,) {'inplace': False}`).
  EXPECT_EQ(gm->graph().find_node("relu")->target(), "torch.nn.functional.relu");
  EXPECT_EQ(gm->graph().find_node("relu")->kwargs(), (Kwargs{{"inplace", false}}));
}

// Makes the module at `path` a leaf.
class LeafAt : public TracerExtension {
 public:
  explicit LeafAt(std::string path) : path_(std::move(path)) {}
  bool is_leaf_module(Tracer& t, const ModuleRef& m, IsLeafModuleNext next) override {
    return m.qualname() == path_ || next(m);
  }

 private:
  std::string path_;
};

// A leaf whose code rebinds its state (`self.prev = x * 2.0`, a streaming
// state) while the caller reads it before and after the call: the read after
// the call is a get_attr of its own, after it, read at each run, and after
// each call the module tree holds what the leaf assigned, as the module
// does, so a change to the tree (which makes the leaf's object anew from its
// slots) keeps the state. A leaf that writes in place shares the tensor. An
// int that a leaf rebinds and the caller reads as a value would be fixed in
// the graph when traced: refused, naming both.
TEST(TracerTest, ReadsOfAttributesALeafRebindsFollowEachCall) {
  auto make = [](const std::string& leaf_forward, const std::string& root_forward) {
    torch::jit::Module mem(c10::QualifiedName("__torch__.test.Memory"),
                           std::make_shared<torch::jit::CompilationUnit>());
    mem.register_buffer("prev", at::zeros({3}));
    mem.register_attribute("count", c10::IntType::get(), 0);
    mem.define(leaf_forward);
    torch::jit::Module root(c10::QualifiedName("__torch__.test.Streaming"),
                            std::make_shared<torch::jit::CompilationUnit>());
    root.register_module("mem", mem);
    root.define(root_forward);
    return root;
  };
  const std::string reads_before_and_after =
      "def forward(self, x):\n"
      "    before = self.mem.prev\n"
      "    y = self.mem.forward(x)\n"
      "    return before + self.mem.prev + y\n";
  Tracer tracer;
  tracer.add_extension(std::make_shared<LeafAt>("mem"));

  torch::jit::Module rebinding = make(
      "def forward(self, x):\n"
      "    self.prev = x * 2.0\n"
      "    self.count = self.count + 1\n"
      "    return x\n",
      reads_before_and_after);
  torch::jit::Module reference = rebinding.clone();  // its own state, evolving alike
  auto traced = tracer.trace(rebinding);
  ASSERT_TRUE(traced.ok()) << traced.status();
  std::vector<std::string> reads_and_calls;
  for (const Node* n : traced->graph().nodes()) {
    if (n->op() == Op::kGetAttr || n->op() == Op::kCallModule) {
      reads_and_calls.push_back(absl::StrCat(n->op() == Op::kGetAttr ? "get_attr " : "call_module ",
                                             n->target()));
    }
  }
  EXPECT_THAT(reads_and_calls,
              ElementsAre("get_attr mem.prev", "call_module mem", "get_attr mem.prev"));
  testing::expect_serves_like_the_module(*traced, reference, {at::rand({3})}, "rebinding", 5);
  const torch::jit::Module reference_mem = reference.attr("mem").toModule();
  auto held = traced->get_attr("mem.prev");
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_TRUE(at::equal(held->toTensor(), reference_mem.attr("prev").toTensor()));
  auto count = traced->get_attr("mem.count");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->toInt(), reference_mem.attr("count").toInt());
  EXPECT_EQ(count->toInt(), 6);  // five plan calls and the Interpreter's
  // A change to the tree: the leaf's object is made anew, from the slots.
  ASSERT_TRUE(traced->root().register_attribute("added_after", c10::IValue(1)).ok());
  testing::expect_serves_like_the_module(*traced, reference, {at::rand({3})},
                                         "after a change to the module tree", 2);

  torch::jit::Module in_place = make(
      "def forward(self, x):\n    self.prev.copy_(x * 2.0)\n    return x\n",
      reads_before_and_after);
  torch::jit::Module in_place_reference = in_place.clone();
  auto traced_in_place = tracer.trace(in_place);
  ASSERT_TRUE(traced_in_place.ok()) << traced_in_place.status();
  testing::expect_serves_like_the_module(*traced_in_place, in_place_reference, {at::ones({3})},
                                         "in place", 3);

  auto refused = tracer.trace(make(
      "def forward(self, x):\n    self.count = self.count + 1\n    return x\n",
      "def forward(self, x):\n    return self.mem.forward(x) * self.mem.count\n"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("module 'mem' is called as a leaf (node 'mem'), and its forward changes "
                        "attribute 'mem.count', which this code reads as a value that is not a "
                        "tensor"));
}

// What a leaf's call may change is followed through the methods it calls,
// into its submodules (`self.inner.step(x)` assigning the inner's state), and
// only from the method called: a method the graph never calls (`reset`)
// changes nothing. A list the leaf appends to is changed in place, as an
// attribute assigned. A leaf call whose value is unused is kept by dead-code
// elimination: it changes state.
TEST(TracerTest, WhatALeafMayChangeIsFollowedThroughItsCalls) {
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module inner(c10::QualifiedName("__torch__.test.Inner"), unit);
  inner.register_buffer("prev", at::zeros({3}));
  inner.register_attribute("count", c10::IntType::get(), 0);
  inner.define(
      "def step(self, x):\n"
      "    self.prev = x + 1.0\n"
      "    return x\n"
      "def reset(self):\n"
      "    self.count = 0\n");
  torch::jit::Module outer(c10::QualifiedName("__torch__.test.Outer"), unit);
  outer.register_module("inner", inner);
  outer.register_attribute("hist", c10::ListType::ofTensors(), c10::List<at::Tensor>());
  outer.define(
      "def forward(self, x):\n"
      "    self.hist.append(x)\n"
      "    return self.inner.step(x)\n");
  torch::jit::Module root(c10::QualifiedName("__torch__.test.Root"), unit);
  root.register_module("outer", outer);
  root.define(
      "def forward(self, x):\n"
      "    self.outer.forward(x)\n"
      "    return x * self.outer.inner.count + self.outer.inner.prev\n");
  torch::jit::Module reference = root.clone();
  Tracer tracer;
  tracer.add_extension(std::make_shared<LeafAt>("outer"));
  auto traced = tracer.trace(root);
  ASSERT_TRUE(traced.ok()) << traced.status();  // `reset` is never called: count is fixed
  const Node* call = nullptr;
  for (const Node* n : traced->graph().nodes()) {
    if (n->op() == Op::kCallModule) call = n;
  }
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(call->is_impure());
  traced->graph().eliminate_dead_code();
  testing::expect_serves_like_the_module(*traced, reference, {at::rand({3})}, "nested", 5);
  auto hist = traced->get_attr("outer.hist");
  ASSERT_TRUE(hist.ok()) << hist.status();
  EXPECT_EQ(hist->toList().size(), 6u);  // five plan calls and the Interpreter's

  torch::jit::Module counts(c10::QualifiedName("__torch__.test.Counts"), unit);
  counts.register_module("outer", outer.clone());
  counts.define(
      "def forward(self, x):\n"
      "    y = self.outer.forward(x)\n"
      "    return y * len(self.outer.hist)\n");
  auto refused = tracer.trace(counts);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("its forward changes attribute 'outer.hist'"));
}

TEST(TracerTest, ModuleRefDescribesTheClass) {
  auto m = testing::load_fixture("resnet18.pt");
  ModuleClass c = describe_module_class(*m.attr("layer2").toObject()->type());
  EXPECT_EQ(c.type_name, "torch.nn.modules.container.Sequential");
  EXPECT_TRUE(c.is_torch_nn);
  EXPECT_TRUE(c.is_container);
  ModuleClass block = describe_module_class(
      *m.attr("layer2").toObject()->getAttr("0").toObject()->type());
  EXPECT_EQ(block.type_name, "torchvision.models.resnet.BasicBlock");
  EXPECT_FALSE(block.is_torch_nn);
  // By class name (a torch.export program's modules have no TorchScript type).
  const ModuleClass& by_name = module_class_of("torch.nn.modules.container.Sequential");
  EXPECT_EQ(by_name.class_name, "Sequential");
  EXPECT_TRUE(by_name.is_container);
  EXPECT_EQ(&module_class_of(std::string("torch.nn.modules.container.Sequential")), &by_name);
  EXPECT_FALSE(describe_module_class("torch.nn.modules.conv.Conv2d").is_container);
  EXPECT_TRUE(describe_module_class("torch.nn.modules.conv.Conv2d").is_torch_nn);
}

// The modules hooks see are the GraphModule's own, with the TorchScript
// object the trace walks.
class StateRecorder : public TracerExtension {
 public:
  void begin_trace(Tracer&, const ModuleRef& root) override {
    root_ = std::make_unique<ModuleRef>(root);
    record(root);
  }
  absl::StatusOr<Argument> call_module(Tracer& t, const ModuleRef& m, const ModuleForward& f,
                                       const Arguments& args, const Kwargs& kwargs,
                                       CallModuleNext next) override {
    record(m);
    return next(m, f, args, kwargs);
  }

  std::map<std::string, const Module*> states;
  std::map<std::string, std::vector<std::string>> parameters;
  std::map<std::string, bool> is_root;

 private:
  void record(const ModuleRef& m) {
    EXPECT_TRUE(m.has_object()) << m.qualname();
    states[m.qualname()] = &m.state();
    for (const auto& [name, tensor] : m.named_parameters()) parameters[m.qualname()].push_back(name);
    is_root[m.qualname()] = *root_ == m;
  }

  std::unique_ptr<ModuleRef> root_;
};

TEST(TracerTest, ModuleRefsAreTheGraphModulesModules) {
  auto recorder = std::make_shared<StateRecorder>();
  Tracer tracer;
  tracer.add_extension(recorder);
  auto gm = testing::trace_fixture_result("my_module.pt", tracer);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_EQ(recorder->states.at(""), &gm->root());
  EXPECT_EQ(recorder->states.at("linear"), gm->get_submodule("linear")->get());
  EXPECT_TRUE(recorder->is_root.at(""));
  EXPECT_FALSE(recorder->is_root.at("linear"));
  EXPECT_THAT(recorder->parameters.at(""), ElementsAre("param", "linear.weight", "linear.bias"));
  EXPECT_THAT(recorder->parameters.at("linear"), ElementsAre("linear.weight", "linear.bias"));
  EXPECT_EQ(gm->root().class_name(), "MyModule");
  // The trace records the model's code for the functions the graph calls.
  EXPECT_NE(script_unit(*gm), nullptr);
}

TEST(TracerTest, TraceIntoInlinesASubmoduleCall) {
  GraphModule gm = trace_fixture("m_relu_add.pt");
  Graph& g = gm.graph();
  Node* call = g.find_node("relu");
  ASSERT_EQ(call->op(), Op::kCallModule);
  Tracer tracer;
  tracer.add_extension(std::make_shared<LowerRelu>());
  absl::StatusOr<Argument> body;
  {
    auto guard = g.inserting_before(call);
    body = tracer.trace_into(gm, call->target(), call->args());
  }
  ASSERT_TRUE(body.ok()) << body.status();
  call->replace_all_uses_with(body->to_node());
  ASSERT_TRUE(g.erase_node(call).ok());
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  EXPECT_THAT(node_targets(g, Op::kCallModule), IsEmpty());
  EXPECT_EQ(body->to_node()->target(), "torch.nn.functional.relu");
  testing::expect_runs_like_the_fixture(gm, "m_relu_add.pt", {at::randn({3, 2})});
}

TEST(TracerTest, TracedModulesComputeWhatTheirScriptsCompute) {
  for (const char* name : {"m1", "m2", "m_relu_add", "my_module", "simple_model", "exp_tan",
                           "multi_io", "train_mode", "ops", "inplace_input", "uses_pair",
                           "frozen_linear"}) {
    SCOPED_TRACE(name);
    torch::jit::Module m = testing::load_fixture(std::string(name) + ".pt");
    GraphModule gm = trace_fixture(std::string(name) + ".pt");
    testing::expect_runs_like_the_module(gm, m, testing::example_inputs(name));
  }
}

TEST(TracerTest, DictBuiltByItemAssignmentIsReturnedAsTorchFxReturnsIt) {
  // `out = {}; out["a"] = ...; out["b"] = self.b(out["a"]); return out` was
  // recorded as _set_item on fresh empty dicts, returning {}.
  torch::jit::Module model = testing::load_fixture("dict_items.pt");
  GraphModule gm = trace_fixture("dict_items.pt");
  const Argument& result = gm.graph().output_node()->args()[0];
  ASSERT_TRUE(result.is_dict()) << format_graph(gm.graph());
  std::vector<std::string> keys;
  for (const auto& [key, value] : result.dict_items()) {
    keys.push_back(key);
    EXPECT_TRUE(value.is_node()) << key;
  }
  EXPECT_THAT(keys, ElementsAre("a", "b", "sum"));
  EXPECT_THAT(gm.graph().find_nodes(Op::kCallFunction, "aten::_set_item.str"), IsEmpty());
  testing::expect_runs_like_the_module(
      gm, model, testing::load_inputs(testing::fixture_path("dict_items.inputs.pt")));
}

TEST(TracerTest, TracingIntoABodyKeepsInPlaceWritesToTheCallersValues) {
  // Inlining nn.ReLU(inplace=True) applied to a value the caller reads again
  // (`identity = y; y = self.relu(y); return y + identity`) must keep the
  // write in place, whether F.relu is recorded whole or traced through.
  for (bool through : {false, true}) {
    GraphModule gm = trace_fixture("inplace_alias_relu.pt");
    Node* call = gm.graph().find_nodes(Op::kCallModule, "relu").at(0);
    TraceOptions options;
    if (through) options.trace_through_functions = {"torch.nn.functional.relu"};
    Tracer tracer(options);
    absl::StatusOr<Argument> body;
    {
      auto guard = gm.graph().inserting_before(call);
      body = tracer.trace_into(gm, "relu", call->args());
    }
    ASSERT_TRUE(body.ok()) << body.status();
    call->replace_all_uses_with(body->to_node());
    ASSERT_TRUE(gm.graph().erase_node(call).ok());
    Node* relu = body->to_node();
    EXPECT_EQ(relu->target(), through ? "aten::relu_" : "torch.nn.functional.relu")
        << format_graph(gm.graph());
    EXPECT_TRUE(relu->is_impure());
    EXPECT_EQ(gm.graph().eliminate_dead_code(), 0u);
    testing::expect_runs_like_the_fixture(gm, "inplace_alias_relu.pt",
        testing::load_inputs(testing::fixture_path("inplace_alias_relu.inputs.pt")));
  }
}

TEST(TracerTest, ConcreteArgsSpecialiseAndCheckAsTorchFxDoes) {
  TraceOptions options;
  options.concrete_args = {{"use_b", false}};
  GraphModule gm = trace_fixture("bool_arg.pt", options);
  Node* eq = gm.graph().find_node("eq");
  ASSERT_NE(eq, nullptr) << format_graph(gm.graph());
  EXPECT_EQ(eq->target(), "operator.eq");
  ASSERT_EQ(gm.graph().find_nodes(Op::kCallFunction, "torch._assert").size(), 1u);
  const std::vector<c10::IValue> inputs =
      testing::load_inputs(testing::fixture_path("bool_arg.inputs.pt"));  // use_b=False
  testing::expect_runs_like_the_fixture(gm, "bool_arg.pt", inputs);
  auto wrong = gm({inputs[0], true});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()),
              HasSubstr("use_b has been specialized to have value False but got another value"));

  options.concrete_args = {{"use_c", true}};
  auto unknown = testing::trace_fixture_result("bool_arg.pt", options);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("concrete_args names 'use_c', which forward does not take (did you mean "
                        "'use_b'?)"));

  // A Tensor argument is no Python value to fix (libtorch would make a tensor of True).
  options.concrete_args = {{"x", true}};
  auto tensor = testing::trace_fixture_result("bool_arg.pt", options);
  EXPECT_THAT(std::string(tensor.status().message()),
              HasSubstr("concrete_args: argument 'x' of forward is a Tensor, which concrete_args "
                        "cannot fix to True"));
}

TEST(TracerTest, CompoundInputChecksBecomeOneAssertion) {
  // `if x.dim() != 2 and x.dim() != 3: raise ValueError(...)`.
  GraphModule gm = trace_fixture("input_check_bn1d.pt");
  ASSERT_EQ(gm.graph().find_nodes(Op::kCallFunction, "torch._assert").size(), 1u)
      << format_graph(gm.graph());
  EXPECT_EQ(gm.graph().find_nodes(Op::kCallFunction, "operator.and_").size(), 1u);
  auto wrong = gm({at::rand({2, 3, 4, 5})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("assertion failed"));
}

// A module compiled from TorchScript source, with a parameter `weight`.
torch::jit::Module module_with_weight(const at::Tensor& weight, const std::string& forward) {
  torch::jit::Module m("__torch__.WithWeight");
  m.register_parameter("weight", weight, /*is_buffer=*/false);
  m.define(forward);
  return m;
}

// A loop over a parameter's size (its sizes are known while tracing) is
// unrolled for the size it has, and the graph checks the size still is that.
TEST(TracerTest, LoopsOverAParametersSizeAreUnrolledAndChecked) {
  torch::jit::Module m = module_with_weight(at::ones({3}), R"(
def forward(self, x):
    for i in range(self.weight.size(0)):
        x = x * 2.0 + self.weight[i]
    return x
)");
  auto gm = Tracer().trace(m);
  ASSERT_TRUE(gm.ok()) << gm.status();
  EXPECT_EQ(gm->graph().find_nodes(Op::kCallFunction, "aten::mul.Scalar").size(), 3u)
      << format_graph(gm->graph());
  testing::expect_runs_like_the_module(*gm, m, {at::randn({3})});
  ASSERT_TRUE(gm->root().set_value("weight", at::ones({4})).ok());
  gm->touch();
  auto plan = ExecutionPlan::compile(*gm);  // reads the parameter afresh
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto refused = (*plan)->run({at::randn({3})});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("trace the model again"));
}

// `x.dtype == torch.float32` on a parameter: decided, and the comparison the
// graph checks is written with the dtype, not TorchScript's int 6.
TEST(TracerTest, ConditionsOnAParametersDtypeCompareDtypes) {
  // (6 is torch.float32, as TorchScript compiles it; C++'s define has no
  // resolver for `torch.float32`.)
  torch::jit::Module m = module_with_weight(at::ones({3}), R"(
def forward(self, x):
    if self.weight.dtype == 6:
        x = x + self.weight
    return x
)");
  auto gm = Tracer().trace(m);
  ASSERT_TRUE(gm.ok()) << gm.status();
  const auto eq = gm->graph().find_nodes(Op::kCallFunction, "operator.eq");
  ASSERT_EQ(eq.size(), 1u) << format_graph(gm->graph());
  EXPECT_EQ(eq[0]->args().at(1), Argument(c10::ScalarType::Float));
  EXPECT_THAT(gm->code(), HasSubstr("eq = dtype == torch.float32"));
  testing::expect_runs_like_the_module(*gm, m, {at::randn({3})});
}

}  // namespace
}  // namespace fx
