// Copyright 2026 The FX for C++ Authors.
#include "core/sym_expr.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

TEST(SymExprTest, ReadsSympysSreprAndEvaluates) {
  auto s = parse_sym_expr("Symbol('s77', positive=True, integer=True)");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->is_symbol());
  EXPECT_EQ(s->name(), "s77");
  auto mul = parse_sym_expr("Mul(Integer(3), Symbol('s77', positive=True, integer=True))");
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_EQ(mul->to_string(), "3*s77");
  EXPECT_EQ(*mul->evaluate({{"s77", 5}}), 15);
  auto add = parse_sym_expr("Add(Symbol('s0', integer=True), Integer(-1))");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->to_string(), "s0 + -1");
  EXPECT_EQ(*add->evaluate({{"s0", 4}}), 3);
  auto div = parse_sym_expr("FloorDiv(Symbol('s0', positive=True, integer=True), Integer(2))");
  ASSERT_TRUE(div.ok());
  EXPECT_EQ(*div->evaluate({{"s0", 7}}), 3);
  auto neg = parse_sym_expr("FloorDiv(Integer(-7), Integer(2))");
  EXPECT_EQ(*neg->evaluate({}), -4);  // Python's floor division
  auto old = parse_sym_expr("s0");    // older programs
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->name(), "s0");
  EXPECT_EQ(mul->symbols(), std::vector<std::string>{"s77"});
}

TEST(SymExprTest, WhatItCannotReadOrEvaluateIsAnError) {
  EXPECT_THAT(std::string(parse_sym_expr("Rational(1, 2)").status().message()),
              HasSubstr("sympy's Rational is not supported"));
  EXPECT_FALSE(parse_sym_expr("Mul(Integer(3)").ok());
  EXPECT_FALSE(parse_sym_expr("").ok());
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "Add(";
  EXPECT_THAT(std::string(parse_sym_expr(deep).status().message()), HasSubstr("nested too deeply"));
  auto s = parse_sym_expr("Mul(Symbol('a'), Symbol('b'))");
  EXPECT_THAT(std::string(s->evaluate({{"a", 2}}).status().message()), HasSubstr("no value for symbol b"));
  auto z = parse_sym_expr("FloorDiv(Integer(1), Integer(0))");
  EXPECT_FALSE(z->evaluate({}).ok());
  auto big = parse_sym_expr("Mul(Integer(4611686018427387904), Integer(4))");
  EXPECT_FALSE(big->evaluate({}).ok());
}

// Every operation checks for overflow, and none takes steps by the value of
// its operands: each of these crashed (SIGFPE) or ran for ever.
TEST(SymExprTest, EveryOperationIsCheckedAndQuick) {
  auto value = [](const std::string& text) {
    auto e = parse_sym_expr(text);
    EXPECT_TRUE(e.ok()) << text << ": " << e.status();
    return e.ok() ? e->evaluate({}) : absl::StatusOr<int64_t>(e.status());
  };
  const std::string min = "Integer(-9223372036854775808)";
  for (const std::string& text : std::vector<std::string>{
           "FloorDiv(" + min + ", Integer(-1))", "Add(Integer(9223372036854775807), Integer(1))",
        "Add(" + min + ", Integer(-1))", "Mul(" + min + ", Integer(-1))",
        "Pow(Integer(2), Integer(63))", "Pow(Integer(3), Integer(40))",
        "Pow(Integer(2), Integer(1000000000000000000))"}) {
    auto v = value(text);
    EXPECT_FALSE(v.ok()) << text << " = " << *v;
    if (!v.ok()) {
      EXPECT_THAT(std::string(v.status().message()), HasSubstr("overflows")) << text;
    }
  }
  EXPECT_EQ(*value("Mod(" + min + ", Integer(-1))"), 0);
  EXPECT_EQ(*value("PythonMod(" + min + ", Integer(-1))"), 0);
  EXPECT_EQ(*value("FloorDiv(" + min + ", Integer(1))"), INT64_MIN);
  // Python's results: -2**63 // 3, -2**63 % 3, and the signs of each.
  EXPECT_EQ(*value("FloorDiv(" + min + ", Integer(3))"), -3074457345618258603);
  EXPECT_EQ(*value("Mod(" + min + ", Integer(3))"), 1);
  EXPECT_EQ(*value("Mod(Integer(9223372036854775807), Integer(-2))"), -1);
  EXPECT_EQ(*value("FloorDiv(Integer(7), Integer(-2))"), -4);
  EXPECT_EQ(*value("Mod(Integer(7), Integer(-2))"), -1);
  EXPECT_EQ(*value("Mod(Integer(-7), Integer(2))"), 1);
  EXPECT_EQ(*value("Mod(Integer(-6), Integer(2))"), 0);
  EXPECT_FALSE(value("Mod(Integer(1), Integer(0))").ok());
  // Powers: by squaring, exact to the last value that fits.
  EXPECT_EQ(*value("Pow(Integer(1), Integer(1000000000000000000))"), 1);
  EXPECT_EQ(*value("Pow(Integer(-1), Integer(1000000000000000001))"), -1);
  EXPECT_EQ(*value("Pow(Integer(0), Integer(1000000000000000000))"), 0);
  EXPECT_EQ(*value("Pow(Integer(7), Integer(0))"), 1);
  EXPECT_EQ(*value("Pow(Integer(2), Integer(62))"), int64_t{1} << 62);
  EXPECT_EQ(*value("Pow(Integer(-2), Integer(63))"), INT64_MIN);
  EXPECT_EQ(*value("Pow(Integer(3), Integer(39))"), 4052555153018976267);
  EXPECT_EQ(*value("Pow(Integer(-3), Integer(5))"), -243);
}

}  // namespace
}  // namespace fx
