// Copyright 2026 The FX for C++ Authors.
#include "core/node.h"
#include "core/well_known.h"

#include "core/graph.h"
#include "core/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(OpTest, NamesRoundTrip) {
  for (Op op : {Op::kPlaceholder, Op::kGetAttr, Op::kCallFunction, Op::kCallMethod,
                Op::kCallModule, Op::kOutput}) {
    auto parsed = parse_op(op_name(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  auto bad = parse_op("call_functoin");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("call_functoin"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("call_function"));
}

TEST(NodeTest, UsersAndInputsFollowArgs) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* add = g.call_function("operator.add", {x, x}, {{"alpha", y}});
  EXPECT_THAT(add->input_nodes(), ElementsAre(x, y));
  EXPECT_THAT(x->users(), ElementsAre(add));  // a user is listed once
  EXPECT_THAT(y->users(), ElementsAre(add));

  add->set_args({y, 1});
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(add->input_nodes(), ElementsAre(y));

  add->update_arg(1, x);
  EXPECT_THAT(add->input_nodes(), ElementsAre(y, x));
  EXPECT_THAT(x->users(), ElementsAre(add));

  add->update_kwarg("alpha", 2);
  add->update_kwarg("out", x);
  EXPECT_EQ(add->kwarg("alpha")->to_int(), 2);
  EXPECT_EQ(add->kwarg("out")->to_node(), x);
  EXPECT_THAT(y->users(), ElementsAre(add));  // still args[0]

  add->set_kwargs({});
  add->set_args({});
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), IsEmpty());
}

TEST(NodeTest, ReplaceAllUsesWithHonoursTheFilterAndCanPropagateMeta) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function("aten::relu", {x});
  Node* a = g.call_function("aten::neg", {relu});
  Node* b = g.call_function("aten::exp", {Argument::List({relu, relu})});
  g.output(Argument::Tuple({a, b}));
  relu->meta().set("tag", "foo");

  Node* sig = nullptr;
  {
    auto guard = g.inserting_after(relu);
    sig = g.call_function("aten::sigmoid", {x});
  }
  std::vector<Node*> changed =
      relu->replace_all_uses_with(sig, [&](Node* user) { return user != a; }, true);
  EXPECT_THAT(changed, ElementsAre(b));
  EXPECT_THAT(relu->users(), ElementsAre(a));
  EXPECT_THAT(sig->users(), ElementsAre(b));
  EXPECT_EQ(b->args()[0], Argument::List({sig, sig}));
  EXPECT_EQ(sig->meta().find("tag")->to_string(), "foo");

  a->replace_input_with(relu, sig);
  EXPECT_THAT(relu->users(), IsEmpty());
  EXPECT_TRUE(g.lint().ok()) << g.lint();
}

TEST(NodeTest, RenameKeepsNamesUniqueAndPrintersFollow) {
  // Seed 003: x2 = x1 + x1; x3 = x2 * x1; x4 = x3 * x2, then mul -> "x3".
  Graph g;
  Node* x1 = g.placeholder("x1");
  Node* x2 = g.call_function("operator.add", {x1, x1});
  Node* x3 = g.call_function("operator.mul", {x2, x1});
  Node* x4 = g.call_function("operator.mul", {x3, x2});
  EXPECT_EQ(x2->name(), "add");
  EXPECT_EQ(x3->name(), "mul");
  EXPECT_EQ(x4->name(), "mul_1");
  EXPECT_EQ(x3->rename("x3"), "x3");
  EXPECT_EQ(python_repr(Argument::Tuple(x4->args())), "(x3, add)");
  EXPECT_THAT(format_node(*x4), HasSubstr("args = (%x3, %add)"));
  EXPECT_EQ(x4->rename("x3"), "x3_1");  // taken: made unique
  EXPECT_EQ(x4->rename("x3_1"), "x3_1");  // renaming to its own name is a no-op
}

TEST(NodeTest, ImpurityFollowsOpcodesInPlaceNamesAndTheRegistry) {
  Graph g;
  Node* x = g.placeholder("x");
  EXPECT_TRUE(x->is_impure());
  EXPECT_FALSE(g.call_function("aten::add.Tensor", {x, x})->is_impure());
  EXPECT_TRUE(g.call_function("aten::add_.Tensor", {x, x})->is_impure());
  EXPECT_TRUE(g.call_function("torch.relu_", {x})->is_impure());
  EXPECT_FALSE(g.call_function("aten::__and__.Tensor", {x, x})->is_impure());
  EXPECT_TRUE(g.call_method("add_", {x, 1})->is_impure());
  EXPECT_FALSE(g.call_method("add", {x, 1})->is_impure());
  EXPECT_TRUE(g.call_function("torch._assert", {true, "msg"})->is_impure());
  EXPECT_TRUE(g.call_function("aten::_assert_async.msg", {x, "msg"})->is_impure());
  // The assertions torch.export records, as torch.fx's _side_effectful_functions.
  for (const char* assertion : {"aten::_assert_scalar", "aten::_assert_tensor_metadata",
                                "aten::sym_constrain_range", "aten::sym_constrain_range_for_size"}) {
    EXPECT_TRUE(is_assertion_target(assertion)) << assertion;
    EXPECT_TRUE(g.call_function(assertion, {x})->is_impure()) << assertion;
  }
  EXPECT_FALSE(is_assertion_target("aten::_functional_assert_async.msg"));
  EXPECT_FALSE(g.call_module("relu", {x})->is_impure());
  EXPECT_FALSE(g.get_attr("w")->is_impure());

  Node* log = g.call_function("mylib::log_event", {x});
  EXPECT_FALSE(log->is_impure());
  register_side_effect_target("mylib::log_event");
  EXPECT_TRUE(log->is_impure());
  Node* marked = g.call_function("aten::copy.out", {x});
  marked->set_impure(true);
  EXPECT_TRUE(marked->is_impure());
  EXPECT_TRUE(g.output(x)->is_impure());
}

TEST(NodeTest, PrependAndAppendMoveNodes) {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  Node* c = g.placeholder("c");
  a->prepend(c);  // c a b
  EXPECT_EQ(g.first_node(), c);
  EXPECT_EQ(c->next(), a);
  EXPECT_TRUE(c->comes_before(*b));
  b->append(a);  // c b a
  EXPECT_EQ(g.last_node(), a);
  EXPECT_EQ(a->prev(), b);
  EXPECT_EQ(a->next(), nullptr);
  EXPECT_TRUE(b->comes_before(*a));
  EXPECT_FALSE(a->comes_before(*c));
}

}  // namespace
}  // namespace fx
