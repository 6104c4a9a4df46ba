// Copyright 2026 The FX for C++ Authors.
//
// sym_expr.h: symbolic sizes (torch.export's SymInts), read and evaluated.
// In core because a graph's shapes may be symbolic: the tracer records them,
// the runtime checks inputs against them; no libtorch needed.
//
// A program exported with dynamic shapes writes each symbolic size as the
// sympy expression behind it, in sympy's `srepr` form:
// `Symbol('s77', positive=True, integer=True)`, `Mul(Integer(3), Symbol('s77',
// ...))`, `Add(Symbol('s0', ...), Integer(-1))`. These are parsed into a
// small expression tree that prints as Python does (`3*s77`) and evaluates
// on the symbols' values.
//
//   absl::StatusOr<fx::SymExpr> e = fx::parse_sym_expr(srepr);
//   e->to_string();                         // "3*s77"
//   absl::StatusOr<int64_t> v = e->evaluate({{"s77", 5}});   // 15
//
// Contracts:
//   * Read: Symbol, Integer, Add, Mul, Pow (integer exponents), FloorDiv,
//     Mod (and PythonMod), Max, Min, CeilToInt/FloorToInt/TruncToInt of an
//     integer expression, and a bare name or integer (older programs).
//     Anything else is an error naming it; callers treat such a size as one
//     they cannot check, and say so.
//   * evaluate fails naming a symbol it has no value for, and on division by
//     zero or overflow (checked in every operation: FloorDiv(INT64_MIN, -1)
//     included); Pow takes as many steps as its exponent has bits.
#ifndef FX_CORE_SYM_EXPR_H_
#define FX_CORE_SYM_EXPR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"

namespace fx {

class FX_API SymExpr {
 public:
  enum class Op { kSymbol, kInteger, kAdd, kMul, kPow, kFloorDiv, kMod, kMax, kMin };

  // The value on `symbols`.
  absl::StatusOr<int64_t> evaluate(const std::map<std::string, int64_t>& symbols) const;
  // As Python prints it: "s0", "3*s0", "s0 + 1", "s0//2".
  std::string to_string() const;
  // The symbols it reads, sorted.
  std::vector<std::string> symbols() const;
  // Whether it is one symbol, and which.
  bool is_symbol() const { return op_ == Op::kSymbol; }
  const std::string& name() const { return name_; }

 private:
  friend class SymExprParser;
  Op op_ = Op::kInteger;
  std::string name_;  // kSymbol
  int64_t value_ = 0;  // kInteger
  std::vector<std::shared_ptr<const SymExpr>> args_;
};

FX_API absl::StatusOr<SymExpr> parse_sym_expr(const std::string& text);

}  // namespace fx

#endif  // FX_CORE_SYM_EXPR_H_
