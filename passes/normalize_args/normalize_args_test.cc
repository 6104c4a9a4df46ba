// Copyright 2026 The FX for C++ Authors.
#include "passes/normalize_args/normalize_args.h"

#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/jit/serialization/import.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/support/normalized_call.h"
#include "runtime/graph_module.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/runfiles.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

GraphModule trace(const torch::jit::Module& m) {
  auto gm = Tracer().trace(m);
  EXPECT_TRUE(gm.ok()) << gm.status();
  return std::move(*gm);
}

size_t normalize(GraphModule& gm) {
  auto rewritten = normalize_args(gm);
  EXPECT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  return rewritten.ok() ? *rewritten : 0;
}

// Calls not in the normal form: call_method, or a call_function target that
// is no `ns::name` operator (getitem, getattr and leaf functions may stay).
std::vector<std::string> unnormalised_calls(const Graph& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes()) {
    if (n->op() == Op::kCallMethod) out.push_back("method " + n->target());
    if (n->op() == Op::kCallFunction && !absl::StrContains(n->target(), "::") &&
        n->target() != kGetItemTarget && n->target() != kGetAttrTarget) {
      out.push_back(n->target());
    }
  }
  return out;
}

// torch.nn.functional's functions are the operator of their name where their
// parameters are the operator's, and stay leaf functions where not.
TEST(NormalizeArgsTest, FunctionalCallsBecomeTheirOperatorsWhereTheyAreThem) {
  torch::jit::Module model = torch::jit::load(
      testing::runfile("passes/normalize_args/functional_calls.pt"));
  model.eval();
  const std::vector<c10::IValue> inputs = {at::randn({2, 3, 8, 8}), at::randint(0, 10, {2, 2})};
  GraphModule gm = trace(model);
  EXPECT_GT(normalize(gm), 0u);
  const std::vector<std::string> targets = testing::node_targets(gm.graph(), Op::kCallFunction);
  EXPECT_THAT(targets, Contains("aten::softmax.int"));   // F.softmax, _stacklevel at its default
  EXPECT_THAT(targets, Contains("aten::layer_norm"));    // F.layer_norm
  EXPECT_THAT(targets, Contains("aten::conv2d.padding"));
  EXPECT_THAT(targets, Contains("aten::gelu"));
  // F.relu(inplace=True) is relu_; F.adaptive_max_pool2d returns one tensor
  // where aten's returns two; F.dropout's `training` is aten's `train`;
  // F.embedding's parameters are (input, weight), aten's (weight, indices).
  for (const char* stays : {"torch.nn.functional.relu", "torch.nn.functional.adaptive_max_pool2d",
                            "torch.nn.functional.dropout", "torch.nn.functional.embedding"}) {
    EXPECT_THAT(targets, Contains(stays)) << format_graph(gm.graph());
  }
  EXPECT_THAT(targets, Not(Contains("torch.nn.functional.softmax")));
  testing::expect_runs_like_the_module(gm, model, inputs, "normalised");
  EXPECT_EQ(normalize(gm), 0u) << "a second run changes nothing";
}

// fold_bn's functional model: F.batch_norm(x, mean, var, w, b) becomes
// aten::batch_norm with its arguments in aten's order.
TEST(NormalizeArgsTest, FunctionalBatchNormTakesTheOperatorsOrder) {
  torch::jit::Module model = torch::jit::load(testing::runfile("passes/fold_bn/functional_bn.pt"));
  model.eval();
  GraphModule gm = trace(model);
  normalize(gm);
  size_t batch_norms = 0;
  for (const Node* n : gm.graph().nodes()) {
    if (n->op() != Op::kCallFunction || n->target() != "aten::batch_norm") continue;
    ++batch_norms;
    ASSERT_EQ(n->args().size(), 9u) << format_node(*n);
    // weight, bias, running_mean, running_var: get_attrs of the weight and the statistics.
    EXPECT_THAT(n->args()[3].to_node()->target(), ::testing::HasSubstr("mean")) << format_node(*n);
    EXPECT_THAT(n->args()[4].to_node()->target(), ::testing::HasSubstr("var")) << format_node(*n);
    EXPECT_TRUE(n->args()[8].is_bool() && n->args()[8].to_bool());  // cudnn_enabled
  }
  EXPECT_EQ(batch_norms, 2u) << format_graph(gm.graph());
  testing::expect_runs_like_the_module(
      gm, model, {at::randn({2, 3, 8, 8}), at::randn({3, 4})}, "normalised");
}

// A whole model, inlined, with shapes known: every call is in normal form,
// and it computes what it computed.
TEST(NormalizeArgsTest, AnInlinedResNetIsAllOperators) {
  torch::jit::Module model = testing::load_fixture("resnet18.pt");
  model.eval();
  const std::vector<c10::IValue> inputs = testing::example_inputs("resnet18");
  GraphModule gm = trace(model);
  ASSERT_TRUE(testing::run_pipeline(gm, "inline{recurse=true},shape_prop", inputs).ok());
  const std::vector<std::string> before = unnormalised_calls(gm.graph());
  EXPECT_GT(normalize(gm), 0u);
  // What stays: the batch norms' input checks (`x.dim() != 4` on ints, and
  // the assert), and ReLU(inplace=True)'s F.relu, which is relu_.
  const std::vector<std::string> after = unnormalised_calls(gm.graph());
  EXPECT_THAT(std::set<std::string>(after.begin(), after.end()),
              ElementsAre("operator.ne", "operator.not_", "torch._assert",
                          "torch.nn.functional.relu"))
      << format_graph(gm.graph());
  EXPECT_LT(after.size(), before.size());
  testing::expect_runs_like_the_module(gm, model, inputs, "normalised");
  EXPECT_EQ(normalize(gm), 0u);
}

// Hand-built calls: what normalises, and what stays because the values'
// types decide it at run time.
TEST(NormalizeArgsTest, CallsWhoseOverloadTheGraphDoesNotKnowStay) {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  Node* y = g->placeholder("y");
  Node* known = g->placeholder("known");
  known->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{2, 3}}});
  Node* w = g->get_attr("w");
  Node* add = g->call_function("operator.add", {x, y});         // ints or tensors: stays
  Node* relu_unknown = g->call_method("relu", {x});             // stays
  Node* relu = g->call_method("relu", {known});                 // aten::relu
  Node* permute = g->call_method("permute", {known, 1, 0});     // packed: stays
  Node* linear = g->call_function("torch._C._nn.linear", {known}, {{"weight", w}});
  Node* softmax = g->call_function("torch.softmax", {}, {{"input", known}, {"dim", 1}});
  Node* conv = g->call_function("aten::conv2d", {x, w});        // the default overload
  Node* torch_add = g->call_function("torch.add", {x, y});      // add.Tensor or add.int: stays
  Node* view = g->call_method("view", {known, -1});             // view(size), not view.dtype: stays
  Node* strided = g->call_function("torch.conv2d", {x, w, Argument(), 1, 1});  // int for int[2]
  g->output(Argument::Tuple(
      {add, relu_unknown, relu, permute, linear, softmax, conv, torch_add, view, strided}));
  GraphModule gm(empty_module("Built"), std::move(g));
  ASSERT_TRUE(gm.add_attribute("w", at::randn({3, 3})).ok());
  EXPECT_EQ(normalize(gm), 4u) << format_graph(gm.graph());  // aten::conv2d already was
  EXPECT_EQ(add->target(), "operator.add");
  EXPECT_EQ(relu_unknown->op(), Op::kCallMethod);
  EXPECT_EQ(permute->op(), Op::kCallMethod);
  EXPECT_EQ(format_node(*relu),
            "%relu_1 : [num_users=1] = call_function[target=torch.ops.aten.relu.default]"
            "(args = (%known,), kwargs = {})");
  EXPECT_EQ(linear->target(), "aten::linear");
  EXPECT_EQ(linear->args().size(), 2u);
  EXPECT_EQ(softmax->target(), "aten::softmax.int");
  EXPECT_EQ(softmax->args().size(), 2u);
  EXPECT_EQ(conv->target(), "aten::conv2d");
  EXPECT_EQ(conv->args().size(), 2u);
  EXPECT_EQ(torch_add->target(), "torch.add");
  EXPECT_EQ(view->op(), Op::kCallMethod);
  EXPECT_EQ(strided->target(), "aten::conv2d");
  EXPECT_EQ(strided->args().size(), 5u);
}

}  // namespace
}  // namespace fx
