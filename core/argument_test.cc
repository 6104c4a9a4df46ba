// Copyright 2026 The FX for C++ Authors.
#include "core/argument.h"

#include "core/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;

TEST(ArgumentTest, HoldsEveryKindAFxGraphNeeds) {
  Graph g;
  Node* x = g.placeholder("x");
  EXPECT_TRUE(Argument().is_none());
  EXPECT_TRUE(Argument(true).to_bool());
  EXPECT_EQ(Argument(-3).to_int(), -3);
  EXPECT_EQ(Argument(int64_t{1} << 40).to_int(), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(Argument(2.5).to_double(), 2.5);
  EXPECT_EQ(Argument("bilinear").to_string(), "bilinear");
  EXPECT_EQ(Argument(std::string("s")).kind(), Argument::Kind::kString);
  EXPECT_EQ(Argument(x).to_node(), x);
  EXPECT_EQ(Argument(c10::kFloat).to_dtype(), c10::kFloat);
  EXPECT_EQ(Argument(c10::Device("cuda:1")).to_device().index(), 1);
  EXPECT_EQ(Argument(c10::kCPU).to_device().type(), c10::DeviceType::CPU);
  EXPECT_EQ(Argument(c10::kStrided).to_layout(), c10::kStrided);
  EXPECT_EQ(Argument(c10::MemoryFormat::ChannelsLast).to_memory_format(),
            c10::MemoryFormat::ChannelsLast);
  Argument list = Argument::List({1, 2});
  Argument tuple = Argument::Tuple({x});
  Argument dict = Argument::Dict({{"dim", -1}});
  EXPECT_TRUE(list.is_list() && list.is_sequence());
  EXPECT_TRUE(tuple.is_tuple() && tuple.is_sequence());
  EXPECT_TRUE(dict.is_dict());
  EXPECT_EQ(dict.dict_items()[0].first, "dim");
  EXPECT_EQ(kind_name(Argument::Kind::kDouble), "float");
}

TEST(ArgumentTest, EqualityIsStructuralAndNodesCompareByIdentity) {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  EXPECT_EQ(Argument::List({1, a}), Argument::List({1, a}));
  EXPECT_NE(Argument::List({1, a}), Argument::List({1, b}));
  EXPECT_NE(Argument::List({1}), Argument::Tuple({1}));  // list != tuple, as in Python
  EXPECT_NE(Argument(1), Argument(1.0));
  EXPECT_EQ(Argument::Dict({{"k", Argument::Tuple({a})}}),
            Argument::Dict({{"k", Argument::Tuple({a})}}));
}

TEST(ArgumentTest, ForEachNodeVisitsEveryReferenceInOrder) {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  Argument nested = Argument::Tuple(
      {a, Argument::List({1, b, Argument::Dict({{"k", a}})}), "not a node"});
  std::vector<Node*> seen;
  for_each_node(nested, [&](Node* n) { seen.push_back(n); });
  EXPECT_THAT(seen, ElementsAre(a, b, a));
  EXPECT_TRUE(nested.contains_node());
  EXPECT_FALSE(Argument::List({1, 2.0, "x"}).contains_node());
}

TEST(ArgumentTest, MapArgRewritesReferencesAndKeepsStructure) {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  Arguments args = {a, Argument::List({a, 3}), Argument::Dict({{"k", b}})};
  Arguments mapped = map_arg(args, [&](Node* n) -> Argument { return n == a ? b : Argument(7); });
  EXPECT_EQ(mapped[0], Argument(b));
  EXPECT_EQ(mapped[1], Argument::List({b, 3}));
  EXPECT_EQ(mapped[2], Argument::Dict({{"k", 7}}));
  Kwargs kwargs = map_arg(Kwargs{{"x", a}}, [&](Node*) -> Argument { return Argument(); });
  EXPECT_TRUE(kwargs[0].second.is_none());
}

TEST(ArgumentTest, FindKwarg) {
  Kwargs kwargs = {{"dim", -1}, {"keepdim", true}};
  ASSERT_NE(find_kwarg(kwargs, "keepdim"), nullptr);
  EXPECT_TRUE(find_kwarg(kwargs, "keepdim")->to_bool());
  EXPECT_EQ(find_kwarg(kwargs, "dtype"), nullptr);
}

}  // namespace
}  // namespace fx
