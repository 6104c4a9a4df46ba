// Copyright 2026 The FX for C++ Authors.
#include "passes/rewrite/replace_pattern.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>

#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tests/testing/values.h"
#include "tracer/symbolic_trace.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::node_names;
using testing::node_targets;

// relu(-x) == -min(x, 0): a pattern and a replacement that compute the same.
GraphModule relu_neg() {
  return symbolic_trace([](Proxy x) { return x.neg().relu(); }, "x");
}
GraphModule neg_clamp() {
  return symbolic_trace([](Proxy x) { return x.call_method("clamp_max", {0}).neg(); }, "x");
}

// Runs `gm` on `inputs`; the result or a test failure.
c10::IValue run(GraphModule& gm, const std::vector<c10::IValue>& inputs) {
  auto out = gm(inputs);
  EXPECT_TRUE(out.ok()) << out.status() << "\n" << format_graph(gm.graph());
  return out.ok() ? *out : c10::IValue();
}

void expect_same(const c10::IValue& a, const c10::IValue& b) {
  std::string why;
  EXPECT_TRUE(testing::all_close(a, b, &why)) << why;
}

TEST(ReplacePatternTest, MatchesByDataDependenceAtAnySpellingAndKeepsResults) {
  // A traced TorchScript graph spells operators `aten::`; the pattern, from
  // Proxies, `torch.neg` and method `relu` (pytorch issue 108163).
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* n1 = g->call_function("aten::neg", {a});
  Node* r1 = g->call_function("aten::relu", {n1});
  Node* n2 = g->call_method("neg", {r1});
  Node* r2 = g->call_function("torch.relu", {n2});
  g->output(g->call_function("aten::add.Tensor", {r1, r2}));
  GraphModule gm(empty_module("M"), std::move(g));
  std::vector<c10::IValue> in = {at::randn({8})};
  c10::IValue before = run(gm, in);

  auto done = replace_pattern(gm, relu_neg(), neg_clamp());
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_THAT(*done, SizeIs(2));
  EXPECT_EQ((*done)[0].anchor->name(), "relu");
  EXPECT_EQ((*done)[0].nodes_map.size(), 3u);  // x, neg, relu
  EXPECT_THAT((*done)[0].replacements, SizeIs(2));
  EXPECT_TRUE((*done)[0].anchor->erased());
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallMethod),
              ElementsAre("clamp_max", "neg", "clamp_max", "neg"));
  expect_same(before, run(gm, in));
}

TEST(ReplacePatternTest, AnOverloadInThePatternMatchesOnlyThatOverload) {
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* b = g->placeholder("b");
  g->output(g->call_function("aten::add.Tensor", {a, b}));
  Graph pattern;
  pattern.output(pattern.call_function("aten::add.Scalar",
                                       {pattern.placeholder("x"), pattern.placeholder("y")}));
  auto none = find_pattern_matches(*g, pattern);
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(*none, IsEmpty());
  Graph python_level;
  python_level.output(python_level.call_function(
      "operator.add", {python_level.placeholder("x"), python_level.placeholder("y")}));
  auto some = find_pattern_matches(*g, python_level);
  ASSERT_TRUE(some.ok());
  EXPECT_THAT(*some, SizeIs(1));
}

TEST(ReplacePatternTest, BackToBackMatchesReadTheEarlierReplacement) {
  // pytorch issue 159613: a cat feeding a cat; the second match's input is
  // the first match's output, which the first replacement removed.
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* b = g->placeholder("b");
  Node* c = g->placeholder("c");
  Node* c1 = g->call_function("aten::cat", {Argument::List({a, b})});
  Node* c2 = g->call_function("aten::cat", {Argument::List({c1, c})});
  Node* c3 = g->call_function("aten::cat", {Argument::List({c2, a})});
  g->output(c3);
  GraphModule gm(empty_module("M"), std::move(g));
  std::vector<c10::IValue> in = {at::randn({2}), at::randn({3}), at::randn({4})};
  c10::IValue before = run(gm, in);

  auto pattern = symbolic_trace([](Proxy x, Proxy y) { return cat({x, y}); }, "x", "y");
  auto replacement = symbolic_trace(
      [](Proxy x, Proxy y) { return x.call_function("torch.concat", {Argument::List({x, y})}); },
      "x", "y");
  auto done = replace_pattern(gm, pattern, replacement);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_THAT(*done, SizeIs(3));
  ASSERT_TRUE(gm.lint().ok()) << gm.lint() << "\n" << format_graph(gm.graph());
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallFunction),
              ElementsAre("torch.concat", "torch.concat", "torch.concat"));
  expect_same(before, run(gm, in));
}

TEST(ReplacePatternTest, NoFalseMatches) {
  // A placeholder binds one value, and one value binds one placeholder; a
  // literal matches only an equal literal; argument counts must agree
  // (torch.fx's false matches: pytorch issue 104775).
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* b = g->placeholder("b");
  Node* ab = g->call_function("aten::mul.Tensor", {a, b});
  Node* aa = g->call_function("aten::add.Tensor", {a, a});
  Node* a2 = g->call_function("aten::pow.Tensor_Scalar", {a, 2});
  Node* s = g->call_function("aten::sum", {a}, {{"dtype", c10::kDouble}});
  g->output(Argument::Tuple({ab, aa, a2, s}));

  auto x_times_x = symbolic_trace([](Proxy x) { return x * x; }, "x");
  auto x_plus_y = symbolic_trace([](Proxy x, Proxy y) { return x + y; }, "x", "y");
  auto x_pow_3 = symbolic_trace([](Proxy x) { return x.call_method("pow", {3}); }, "x");
  auto sum = symbolic_trace([](Proxy x) { return x.sum(); }, "x");
  for (const GraphModule* p : {&x_times_x, &x_plus_y, &x_pow_3, &sum}) {
    auto found = find_pattern_matches(*g, p->graph());
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_THAT(*found, IsEmpty()) << format_graph(p->graph());
  }
}

TEST(ReplacePatternTest, IdentityReplacementOnALongChainIsLinearAndReportsNoNewNodes) {
  // pytorch issue 97817: a replacement returning its input made torch.fx
  // walk the whole graph before each match (exponential in practice).
  auto g = std::make_unique<Graph>();
  Node* v = g->placeholder("x");
  for (int i = 0; i < 3000; ++i) {
    v = g->call_method("unsqueeze", {v, 0});
    v = g->call_method("squeeze", {v, 0});
  }
  g->output(v);
  GraphModule gm(empty_module("Chain"), std::move(g));
  auto pattern = symbolic_trace([](Proxy x) { return x.unsqueeze(0).squeeze(0); }, "x");
  auto identity = symbolic_trace([](Proxy x) { return x; }, "x");
  auto done = replace_pattern(gm, pattern, identity);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_THAT(*done, SizeIs(3000));
  for (const ReplacedPattern& r : *done) EXPECT_THAT(r.replacements, IsEmpty());
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("x", "output"));
}

TEST(ReplacePatternTest, AMatchNobodyUsesIsReplaced) {
  // pytorch issue 143841: the matched value has no users.
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* n = g->call_function("aten::neg", {a});
  g->call_function("aten::relu", {n});  // dead
  g->output(a);
  GraphModule gm(empty_module("M"), std::move(g));
  auto done = replace_pattern(gm, relu_neg(), neg_clamp());
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_THAT(*done, SizeIs(1));
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallMethod), ElementsAre("clamp_max", "neg"));
}

TEST(ReplacePatternTest, AnInnerValueUsedOutsideTheMatchPreventsIt) {
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* n = g->call_function("aten::neg", {a});
  Node* r = g->call_function("aten::relu", {n});
  g->output(Argument::Tuple({r, n}));  // neg is needed after the match
  GraphModule gm(empty_module("M"), std::move(g));
  auto done = replace_pattern(gm, relu_neg(), neg_clamp());
  ASSERT_TRUE(done.ok());
  EXPECT_THAT(*done, IsEmpty());
  EXPECT_THAT(node_names(gm.graph()), ElementsAre("a", "neg", "relu", "output"));
}

TEST(ReplacePatternTest, OverlappingMatchesAreNotBothReplaced) {
  auto g = std::make_unique<Graph>();
  Node* v = g->placeholder("a");
  for (int i = 0; i < 3; ++i) v = g->call_function("aten::relu", {v});
  g->output(v);
  GraphModule gm(empty_module("M"), std::move(g));
  std::vector<c10::IValue> in = {at::randn({5})};
  c10::IValue before = run(gm, in);
  auto pattern = symbolic_trace([](Proxy x) { return x.relu().relu(); }, "x");
  auto replacement = symbolic_trace([](Proxy x) { return x.relu(); }, "x");
  auto done = replace_pattern(gm, pattern, replacement);
  ASSERT_TRUE(done.ok());
  ASSERT_THAT(*done, SizeIs(1));
  EXPECT_EQ((*done)[0].anchor->name(), "relu_1");
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallFunction), ElementsAre("aten::relu"));
  EXPECT_THAT(node_targets(gm.graph(), Op::kCallMethod), ElementsAre("relu"));
  expect_same(before, run(gm, in));
}

TEST(ReplacePatternTest, TheFilterDecides) {
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* b = g->placeholder("b");
  Node* ra = g->call_function("aten::relu", {g->call_function("aten::neg", {a})});
  Node* rb = g->call_function("aten::relu", {g->call_function("aten::neg", {b})});
  g->output(Argument::Tuple({ra, rb}));
  GraphModule gm(empty_module("M"), std::move(g));
  auto only_b = [](const PatternMatch& m, const Graph&, const Graph&) {
    return m.placeholder_nodes[0]->name() == "b";
  };
  auto done = replace_pattern(gm, relu_neg(), neg_clamp(), only_b);
  ASSERT_TRUE(done.ok());
  ASSERT_THAT(*done, SizeIs(1));
  EXPECT_EQ((*done)[0].anchor->name(), "relu_1");
  EXPECT_EQ(gm.graph().find_node("relu")->op(), Op::kCallFunction);
}

TEST(ReplacePatternTest, SeveralOutputsAreReplacedTogether) {
  auto g = std::make_unique<Graph>();
  Node* a = g->placeholder("a");
  Node* n = g->call_function("aten::neg", {a});
  Node* r = g->call_function("aten::relu", {n});
  Node* use_n = g->call_function("aten::sin", {n});
  g->output(Argument::Tuple({r, use_n}));
  GraphModule gm(empty_module("M"), std::move(g));
  std::vector<c10::IValue> in = {at::randn({6})};
  c10::IValue before = run(gm, in);
  auto pattern = symbolic_trace(
      [](Proxy x) {
        Proxy n = x.neg();
        return std::make_tuple(n, n.relu());
      },
      "x");
  auto replacement = symbolic_trace(
      [](Proxy x) {
        Proxy n = x.neg();
        return std::make_tuple(n, n.call_method("clamp_min", {0}));
      },
      "x");
  auto done = replace_pattern(gm, pattern, replacement);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_THAT(*done, SizeIs(1));
  EXPECT_TRUE(gm.lint().ok()) << gm.lint();
  expect_same(before, run(gm, in));
}

TEST(ReplacePatternTest, MalformedPatternsAreRefusedByName) {
  Graph g;
  g.output(g.call_function("aten::relu", {g.placeholder("a")}));
  auto identity = symbolic_trace([](Proxy x) { return x; }, "x");
  auto s = replace_pattern(g, identity.graph(), identity.graph());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("no operation"));

  auto two_inputs = symbolic_trace([](Proxy x, Proxy y) { return x + y; }, "x", "y");
  auto one_input = symbolic_trace([](Proxy x) { return x.relu(); }, "x");
  s = replace_pattern(g, two_inputs.graph(), one_input.graph());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("same inputs and outputs"));

  Graph dangling;
  Node* x = dangling.placeholder("x");
  dangling.call_function("aten::neg", {x});
  dangling.output(dangling.call_function("aten::relu", {x}));
  s = replace_pattern(g, dangling, one_input.graph());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("'neg' does not lead"));
  EXPECT_THAT(node_names(g), ElementsAre("a", "relu", "output"));
}

}  // namespace
}  // namespace fx
