// Copyright 2026 The FX for C++ Authors.
#include "core/last_uses.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> names(absl::Span<const Node* const> nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name());
  return out;
}

TEST(LastUsesTest, EachValueIsFreedAfterItsLastUserInFirstUseOrder) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.get_attr("w");
  Node* unused = g.call_function("aten::neg", {x});
  Node* add = g.call_function("operator.add", {w, x});
  Node* mul = g.call_function("operator.mul", {add, x});
  g.output(mul);
  LastUses last_uses(g);
  EXPECT_THAT(names(last_uses.freed_after(*unused)), IsEmpty());
  EXPECT_THAT(names(last_uses.freed_after(*add)), ElementsAre("w"));
  EXPECT_THAT(names(last_uses.freed_after(*mul)), ElementsAre("add", "x"));
  EXPECT_THAT(names(last_uses.freed_after(*g.output_node())), ElementsAre("mul"));
}

TEST(LastUsesTest, FollowsInsertionsInTheMiddle) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function("aten::relu", {x});
  g.output(relu);
  Node* late;
  {
    auto guard = g.inserting_after(relu);
    late = g.call_function("aten::neg", {x});
  }
  LastUses last_uses(g);
  EXPECT_THAT(names(last_uses.freed_after(*relu)), IsEmpty());
  EXPECT_THAT(names(last_uses.freed_after(*late)), ElementsAre("x"));
}

}  // namespace
}  // namespace fx
