// Copyright 2026 The FX for C++ Authors.
#include "core/graph.h"

#include "core/printer.h"
#include "core/testing/graph_listing.h"
#include "core/testing/seed_graphs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using testing::node_names;

using testing::build_seed_my_module;

TEST(GraphTest, SeedMyModuleHasTorchFxNamesAndStructure) {
  Graph g;
  build_seed_my_module(g);
  EXPECT_THAT(node_names(g),
              ElementsAre("x", "linear_weight", "add", "linear", "relu", "sum_1", "topk", "output"));
  std::vector<Op> ops;
  std::vector<size_t> users;
  for (const Node* n : g.nodes()) {
    ops.push_back(n->op());
    users.push_back(n->users().size());
  }
  EXPECT_THAT(ops, ElementsAre(Op::kPlaceholder, Op::kGetAttr, Op::kCallFunction, Op::kCallModule,
                               Op::kCallMethod, Op::kCallFunction, Op::kCallFunction, Op::kOutput));
  EXPECT_THAT(users, ElementsAre(1, 1, 1, 1, 1, 1, 1, 0));
  EXPECT_EQ(g.size(), 8u);
  EXPECT_TRUE(g.lint().ok()) << g.lint();
  EXPECT_EQ(g.output_node()->args()[0].to_node()->name(), "topk");
}

TEST(GraphTest, HelpersCreateTheSixOpcodes) {
  Graph g;
  Node* p = g.placeholder("x", "torch.Tensor", Argument(2));
  EXPECT_EQ(p->op(), Op::kPlaceholder);
  EXPECT_EQ(p->target(), "x");
  EXPECT_EQ(p->type(), "torch.Tensor");
  EXPECT_EQ(p->args()[0].to_int(), 2);  // the default value
  EXPECT_EQ(g.get_attr("a.b")->op(), Op::kGetAttr);
  EXPECT_EQ(g.call_function("f", {p})->op(), Op::kCallFunction);
  EXPECT_EQ(g.call_method("m", {p})->op(), Op::kCallMethod);
  EXPECT_EQ(g.call_module("mod", {p})->op(), Op::kCallModule);
  Node* out = g.output(p);
  EXPECT_EQ(out->op(), Op::kOutput);
  EXPECT_EQ(out->target(), "output");
  Node* named = g.create_node(Op::kCallFunction, "aten::relu", {p}, {}, "my_relu");
  EXPECT_EQ(named->name(), "my_relu");
  EXPECT_EQ(g.placeholder("myInput")->name(), "my_input");  // snake_case, as torch.fx
}

TEST(GraphTest, InsertionPointMovesForAScopeAndIsRestored) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function("aten::relu", {x});
  Node* out = g.output(relu);
  {
    auto guard = g.inserting_before(relu);
    Node* a = g.call_function("aten::neg", {x});
    Node* b = g.call_function("aten::exp", {a});
    EXPECT_EQ(a->next(), b);
    EXPECT_EQ(b->next(), relu);
    {
      auto inner = g.inserting_after(relu);
      Node* c = g.call_function("aten::sin", {relu});
      Node* d = g.call_function("aten::cos", {c});
      // Creation order is kept after `relu` (torch.fx would stack them reversed).
      EXPECT_EQ(relu->next(), c);
      EXPECT_EQ(c->next(), d);
      EXPECT_EQ(d->next(), out);
    }
    Node* e = g.call_function("aten::tan", {x});
    EXPECT_EQ(e->next(), relu);  // back to "before relu"
  }
  Node* last = g.call_function("aten::abs", {x});
  EXPECT_EQ(last->prev(), out);  // default: the end
  {
    auto guard = g.inserting_before(nullptr);
    Node* first = g.placeholder("first");
    EXPECT_EQ(g.first_node(), first);
  }
  {
    auto guard = g.inserting_after(nullptr);
    EXPECT_EQ(g.call_function("aten::sqrt", {x})->prev(), last);
  }
}

TEST(GraphTest, ErasingTheInsertionAnchorMovesInsertionOn) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* dead = g.call_function("aten::neg", {x});
  Node* out = g.output(x);
  auto guard = g.inserting_before(dead);
  ASSERT_TRUE(g.erase_node(dead).ok());
  Node* n = g.call_function("aten::exp", {x});
  EXPECT_EQ(n->next(), out);
  EXPECT_TRUE(g.lint().ok()) << g.lint();
}

TEST(GraphTest, EraseNodeRefusesANodeWithUsersAndNamesThem) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* add = g.call_function("operator.add", {x, 1});
  Node* relu = g.call_function("aten::relu", {add});
  g.output(relu);
  absl::Status s = g.erase_node(add);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'add'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("relu"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("replace_all_uses_with"));
  EXPECT_EQ(g.size(), 4u);

  Graph other;
  Node* foreign = other.placeholder("y");
  s = g.erase_node(foreign);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("'y'"));

  relu->replace_all_uses_with(add);
  ASSERT_TRUE(g.erase_node(relu).ok());
  EXPECT_TRUE(relu->erased());
  EXPECT_THAT(add->users(), ElementsAre(g.output_node()));
  s = g.erase_node(relu);
  EXPECT_THAT(std::string(s.message()), HasSubstr("already erased"));
}

TEST(GraphTest, IterationStaysValidWhileErasing) {
  Graph g;
  Node* x = g.placeholder("x");
  for (int i = 0; i < 5; ++i) g.call_function("aten::neg", {x});
  g.output(x);
  std::vector<std::string> visited;
  for (Node* n : g.nodes()) {
    visited.push_back(n->name());
    if (n->target() == "aten::neg") {
      ASSERT_TRUE(g.erase_node(n).ok());
    }
  }
  EXPECT_THAT(visited, ElementsAre("x", "neg", "neg_1", "neg_2", "neg_3", "neg_4", "output"));
  EXPECT_THAT(node_names(g), ElementsAre("x", "output"));
  // Names of erased nodes are not reused.
  EXPECT_EQ(g.call_function("aten::neg", {x})->name(), "neg_5");
}

TEST(GraphTest, ReversedIterationStaysValidWhileErasing) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten::neg", {x});
  Node* b = g.call_function("aten::neg", {a});
  g.output(x);
  std::vector<std::string> visited;
  for (Node* n : g.reversed_nodes()) {
    visited.push_back(n->name());
    if (n == b || n == a) {
      ASSERT_TRUE(g.erase_node(n).ok());
    }
  }
  EXPECT_THAT(visited, ElementsAre("output", "neg_1", "neg", "x"));
}

TEST(GraphTest, FindNodesByOpAndTargetInGraphOrder) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* r1 = g.call_module("relu", {x});
  Node* c = g.call_module("conv", {r1});
  Node* r2 = g.call_module("relu", {c});
  g.output(r2);
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "relu"), ElementsAre(r1, r2));
  EXPECT_THAT(g.find_nodes(Op::kCallModule), ElementsAre(r1, c, r2));
  EXPECT_THAT(g.find_nodes(Op::kCallFunction, "relu"), IsEmpty());
  // The index follows new nodes, inserted ones, retargeted and erased ones.
  Node* r0 = nullptr;
  {
    auto guard = g.inserting_before(r1);
    r0 = g.call_module("relu", {x});
  }
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "relu"), ElementsAre(r0, r1, r2));
  c->set_target("relu");
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "relu"), ElementsAre(r0, r1, c, r2));
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "conv"), IsEmpty());
  ASSERT_TRUE(g.erase_node(r0).ok());
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "relu"), ElementsAre(r1, c, r2));
  EXPECT_EQ(g.find_node("conv"), c);
  EXPECT_EQ(g.find_node("nope"), nullptr);
  // A call that becomes another kind of call moves in the index, keeping its name.
  ASSERT_TRUE(c->set_call(Op::kCallFunction, "aten::relu").ok());
  EXPECT_THAT(g.find_nodes(Op::kCallModule, "relu"), ElementsAre(r1, r2));
  EXPECT_THAT(g.find_nodes(Op::kCallFunction, "aten::relu"), ElementsAre(c));
  EXPECT_EQ(g.find_node("conv"), c);
  absl::Status refused = x->set_call(Op::kCallFunction, "aten::relu");
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("node 'x' (placeholder) cannot become a call_function"));
  EXPECT_EQ(x->op(), Op::kPlaceholder);
}

TEST(GraphTest, EliminateDeadCodeKeepsPlaceholdersOutputAndImpureNodes) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* unused_input = g.placeholder("unused");
  Node* w = g.get_attr("w");
  Node* dead = g.call_function("aten::mul.Tensor", {x, w});
  g.call_function("aten::relu", {dead});                 // dead chain
  Node* inplace = g.call_function("aten::add_.Tensor", {x, 1});  // result unused
  Node* check = g.call_function("torch._assert", {true, "x is fine"});
  Node* live = g.call_function("aten::neg", {x});
  g.output(live);
  EXPECT_EQ(g.eliminate_dead_code(), 3u);  // w, mul, relu
  EXPECT_THAT(node_names(g), ElementsAre("x", "unused", "add_", "_assert", "neg", "output"));
  EXPECT_FALSE(inplace->erased());
  EXPECT_FALSE(check->erased());
  EXPECT_FALSE(unused_input->erased());
  EXPECT_EQ(g.eliminate_dead_code(), 0u);
  EXPECT_TRUE(g.lint().ok()) << g.lint();
}

TEST(GraphTest, LintAcceptsAWellFormedGraph) {
  Graph g;
  build_seed_my_module(g);
  EXPECT_TRUE(g.lint().ok());
}

TEST(GraphTest, LintReportsAMissingOutput) {
  Graph g;
  g.placeholder("x");
  absl::Status s = g.lint();
  EXPECT_THAT(std::string(s.message()), HasSubstr("no output node"));
}

TEST(GraphTest, LintReportsTwoOutputs) {
  Graph g;
  Node* x = g.placeholder("x");
  g.output(x);
  g.output(x);
  EXPECT_THAT(std::string(g.lint().message()), HasSubstr("more than one output node ('output' and 'output_1')"));
}

TEST(GraphTest, LintReportsAnOutputThatIsNotLast) {
  Graph g;
  Node* x = g.placeholder("x");
  g.output(x);
  g.call_function("aten::neg", {x});
  EXPECT_THAT(std::string(g.lint().message()),
              HasSubstr("output node 'output' is not the last node ('neg' follows it)"));
}

TEST(GraphTest, LintReportsUseBeforeDefinition) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten::neg", {x});
  Node* b = g.call_function("aten::exp", {a});
  g.output(b);
  a->prepend(b);  // b now comes before its input
  absl::Status s = g.lint();
  EXPECT_THAT(std::string(s.message()), HasSubstr("argument 'neg' of node 'exp'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("topological order"));
}

// Debug builds stop a cross-graph argument where it is made (GraphDeathTest
// below); optimised builds leave it to lint, which must report it.
#ifdef NDEBUG
TEST(GraphTest, LintReportsArgumentsFromAnotherGraph) {
  Graph other;
  Node* foreign = other.placeholder("y");
  Graph g;
  Node* x = g.placeholder("x");
  Node* add = g.call_function("operator.add", {x, foreign});
  g.output(add);
  absl::Status s = g.lint();
  EXPECT_THAT(std::string(s.message()), HasSubstr("argument 'y' of node 'add'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("does not belong to this graph"));
}
#endif  // NDEBUG

TEST(GraphTest, NodeCopyRemapsArgumentsAndKeepsMeta) {
  Graph src;
  Node* x = src.placeholder("x");
  Node* relu = src.call_function("aten::relu", {x}, {{"k", x}});
  relu->meta().set("tag", "foo");
  relu->set_impure(true);

  Graph dst;
  Node* y = dst.placeholder("y");
  Node* copy = dst.node_copy(*relu, [&](Node* n) -> Argument { return n == x ? y : n; });
  EXPECT_EQ(copy->name(), "relu");
  EXPECT_EQ(copy->args()[0].to_node(), y);
  EXPECT_EQ(copy->kwarg("k")->to_node(), y);
  EXPECT_EQ(copy->meta().find("tag")->to_string(), "foo");
  EXPECT_TRUE(copy->is_impure());
  EXPECT_THAT(y->users(), ElementsAre(copy));
}

TEST(GraphTest, GraphCopyInlinesAnotherGraphWithPremappedInputs) {
  Graph body;
  Node* in = body.placeholder("input");
  Node* neg = body.call_function("aten::neg", {in});
  Node* relu = body.call_function("aten::relu", {neg});
  body.output(relu);

  Graph g;
  Node* x = g.placeholder("x");
  Node* g_relu = g.call_function("aten::relu", {x});  // takes the name "relu"
  NodeMap map{{in, g_relu}};
  Argument result = g.graph_copy(body, map);
  g.output(result);
  EXPECT_THAT(node_names(g), ElementsAre("x", "relu", "neg", "relu_1", "output"));
  EXPECT_EQ(result.to_node()->name(), "relu_1");
  EXPECT_EQ(map.at(neg)->args()[0].to_node(), g_relu);
  EXPECT_TRUE(g.lint().ok()) << g.lint();
}

TEST(GraphTest, CopyIsDeepAndKeepsNames) {
  Graph g;
  build_seed_my_module(g);
  g.meta().set("source", "seed 004");
  g.find_node("relu")->meta().set("tag", "foo");
  NodeMap map;
  std::unique_ptr<Graph> c = g.copy(&map);
  EXPECT_EQ(node_names(*c), node_names(g));
  EXPECT_EQ(format_graph(*c), format_graph(g));
  EXPECT_EQ(c->meta(), g.meta());
  EXPECT_EQ(c->find_node("relu")->meta().find("tag")->to_string(), "foo");
  EXPECT_EQ(&map.at(g.find_node("add"))->graph(), c.get());
  EXPECT_TRUE(c->lint().ok()) << c->lint();
  // Independent: changing the copy leaves the original alone.
  c->find_node("topk")->update_arg(1, 5);
  EXPECT_EQ(g.find_node("topk")->args()[1].to_int(), 3);
  // New names in the copy continue after the copied ones.
  EXPECT_EQ(c->call_function("operator.add", {})->name(), "add_1");
}

TEST(GraphTest, GraphMetaIsAvailable) {
  Graph g;
  g.meta().set("exec_order", MetaValue::List{"conv1", "bn1"});
  EXPECT_EQ(g.meta().find("exec_order")->to_list().size(), 2u);
}

#ifndef NDEBUG
TEST(GraphDeathTest, DebugBuildsCheckThatArgumentsBelongToTheGraph) {
  Graph a;
  Graph b;
  Node* x = a.placeholder("x");
  EXPECT_DEATH(b.call_function("aten::relu", {x}), "uses node 'x' of another graph");
  Node* y = b.placeholder("y");
  Node* relu = b.call_function("aten::relu", {y});
  EXPECT_DEATH(relu->update_arg(3, 1), "update_arg\\(3\\) on node 'relu', which has 1 args");
  EXPECT_DEATH(relu->replace_all_uses_with(x), "must be in its graph");
  EXPECT_DEATH((void)b.inserting_before(x), "live node of this graph");
}
#endif  // NDEBUG

}  // namespace
}  // namespace fx
