// Copyright 2026 The FX for C++ Authors.
#include "core/meta.h"

#include "gtest/gtest.h"

namespace fx {
namespace {

TEST(MetaTest, KeepsInsertionOrderAndOverwritesInPlace) {
  Meta m;
  m.set("b", 1);
  m.set("a", "x");
  m.set("b", 2.5);
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "a"}));
  EXPECT_DOUBLE_EQ(m.find("b")->to_double(), 2.5);
  EXPECT_EQ(m.find("a")->to_string(), "x");
  EXPECT_EQ(m.find("missing"), nullptr);
  EXPECT_TRUE(m.erase("b"));
  EXPECT_FALSE(m.erase("b"));
  EXPECT_EQ(m.size(), 1u);
}

TEST(MetaTest, HoldsTypedValuesListsAndNestedMaps) {
  Meta m;
  m["tag"] = "foo";
  m["count"] = 3;
  m["flag"] = true;
  m["ratio"] = 0.5;
  m["order"] = MetaValue::List{"conv1", "bn1"};
  Meta inner;
  inner.set("module", "layer1.0");
  inner.set("params", MetaValue::List{"layer1.0.conv1.weight"});
  m["usage"] = inner;
  EXPECT_TRUE(m.find("tag")->is_string());
  EXPECT_EQ(m.find("count")->to_int(), 3);
  EXPECT_TRUE(m.find("flag")->to_bool());
  EXPECT_EQ(m.find("order")->to_list()[1].to_string(), "bn1");
  EXPECT_EQ(m.find("usage")->to_map().find("module")->to_string(), "layer1.0");
  Meta copy = m;
  EXPECT_EQ(copy, m);
  copy.find("usage")->to_map().set("module", "other");
  EXPECT_NE(copy, m);  // deep copy
  EXPECT_TRUE(MetaValue().is_none());
}

}  // namespace
}  // namespace fx
