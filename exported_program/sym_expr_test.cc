// Copyright 2026 The FX for C++ Authors.
#include "exported_program/sym_expr.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace exported {
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

}  // namespace
}  // namespace exported
}  // namespace fx
