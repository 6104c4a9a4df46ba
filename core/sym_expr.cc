// Copyright 2026 The FX for C++ Authors.
#include "core/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"

namespace fx {

// A recursive-descent reader of sympy's srepr, bounded in depth.
class SymExprParser {
 public:
  explicit SymExprParser(const std::string& text) : text_(text) {}

  absl::StatusOr<SymExpr> parse() {
    auto e = expr(0);
    if (!e.ok()) return e.status();
    skip_space();
    if (pos_ != text_.size()) return error("unexpected text after the expression");
    return *e;
  }

 private:
  static constexpr int kMaxDepth = 64;

  absl::Status error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot read the symbolic size ",
                                                   quote_for_message(text_), ": ", what));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string identifier() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  absl::StatusOr<int64_t> integer() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const std::string digits = text_.substr(start, pos_ - start);
    if (digits.empty() || digits == "-" || digits == "+") return error("expected an integer");
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(digits.c_str(), &end, 10);
    if (errno != 0) return error("an integer out of range");
    return static_cast<int64_t>(v);
  }
  // Skips `, key=value` pairs (Symbol's assumptions) up to the closing paren.
  absl::Status skip_keywords() {
    while (eat(',')) {
      identifier();
      if (!eat('=')) return error("expected key=value");
      identifier();
    }
    return absl::OkStatus();
  }

  absl::StatusOr<SymExpr> expr(int depth) {
    if (depth > kMaxDepth) return error("nested too deeply");
    skip_space();
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-')) {
      auto v = integer();
      if (!v.ok()) return v.status();
      SymExpr e;
      e.op_ = SymExpr::Op::kInteger;
      e.value_ = *v;
      return e;
    }
    const std::string head = identifier();
    if (head.empty()) return error("expected an expression");
    if (!eat('(')) {
      // A bare name: an older program's symbol ("s0").
      SymExpr e;
      e.op_ = SymExpr::Op::kSymbol;
      e.name_ = head;
      return e;
    }
    SymExpr e;
    if (head == "Symbol") {
      skip_space();
      if (!eat('\'')) return error("expected a quoted symbol name");
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != '\'') ++pos_;
      if (pos_ == text_.size()) return error("an unterminated symbol name");
      e.op_ = SymExpr::Op::kSymbol;
      e.name_ = text_.substr(start, pos_ - start);
      ++pos_;
      if (absl::Status s = skip_keywords(); !s.ok()) return s;
      if (!eat(')')) return error("expected ')'");
      return e;
    }
    if (head == "Integer") {
      auto v = integer();
      if (!v.ok()) return v.status();
      if (!eat(')')) return error("expected ')'");
      e.op_ = SymExpr::Op::kInteger;
      e.value_ = *v;
      return e;
    }
    struct Known {
      const char* name;
      SymExpr::Op op;
      int arity;  // 0: any, at least 2
    };
    static constexpr Known kKnown[] = {
        {"Add", SymExpr::Op::kAdd, 0},           {"Mul", SymExpr::Op::kMul, 0},
        {"Pow", SymExpr::Op::kPow, 2},           {"FloorDiv", SymExpr::Op::kFloorDiv, 2},
        {"Mod", SymExpr::Op::kMod, 2},           {"PythonMod", SymExpr::Op::kMod, 2},
        {"Max", SymExpr::Op::kMax, 0},           {"Min", SymExpr::Op::kMin, 0},
        {"CeilToInt", SymExpr::Op::kAdd, 1},     {"FloorToInt", SymExpr::Op::kAdd, 1},
        {"TruncToInt", SymExpr::Op::kAdd, 1},
    };
    const Known* known = nullptr;
    for (const Known& k : kKnown) {
      if (head == k.name) known = &k;
    }
    if (known == nullptr) return error(absl::StrCat("sympy's ", head, " is not supported"));
    do {
      auto arg = expr(depth + 1);
      if (!arg.ok()) return arg.status();
      e.args_.push_back(std::make_shared<SymExpr>(std::move(*arg)));
    } while (eat(','));
    if (!eat(')')) return error("expected ')'");
    if ((known->arity == 0 && e.args_.empty()) ||
        (known->arity > 0 && static_cast<int>(e.args_.size()) != known->arity)) {
      return error(absl::StrCat(head, " with ", e.args_.size(), " arguments"));
    }
    // Rounding an integer expression to an integer is the expression.
    if (known->arity == 1) return *e.args_[0];
    e.op_ = known->op;
    return e;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

absl::StatusOr<SymExpr> parse_sym_expr(const std::string& text) { return SymExprParser(text).parse(); }

absl::StatusOr<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t>& symbols) const {
  switch (op_) {
    case Op::kInteger:
      return value_;
    case Op::kSymbol: {
      auto it = symbols.find(name_);
      if (it == symbols.end()) return absl::NotFoundError(absl::StrCat("no value for symbol ", name_));
      return it->second;
    }
    default:
      break;
  }
  std::vector<int64_t> v;
  for (const auto& a : args_) {
    auto x = a->evaluate(symbols);
    if (!x.ok()) return x.status();
    v.push_back(*x);
  }
  int64_t r = v[0];
  const auto overflow = [] { return absl::OutOfRangeError("a symbolic size overflows"); };
  switch (op_) {
    case Op::kAdd:
      for (size_t i = 1; i < v.size(); ++i) {
        if (__builtin_add_overflow(r, v[i], &r)) return overflow();
      }
      return r;
    case Op::kMul:
      for (size_t i = 1; i < v.size(); ++i) {
        if (__builtin_mul_overflow(r, v[i], &r)) return overflow();
      }
      return r;
    case Op::kPow: {
      if (v[1] < 0) return absl::InvalidArgumentError("a negative power in a symbolic size");
      // By squaring: as many steps as the exponent has bits, not its value.
      int64_t p = 1;
      int64_t base = v[0];
      for (int64_t e = v[1]; e > 0; e >>= 1) {
        if ((e & 1) != 0 && __builtin_mul_overflow(p, base, &p)) return overflow();
        // (Squared only while bits remain: a square that overflows then
        // would make the result overflow too.)
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) return overflow();
      }
      return p;
    }
    case Op::kFloorDiv:
    case Op::kMod: {
      if (v[1] == 0) return absl::InvalidArgumentError("division by zero in a symbolic size");
      // INT64_MIN / -1 is the one quotient that does not fit (and traps);
      // its remainder is 0.
      if (v[1] == -1) {
        if (op_ == Op::kMod) return int64_t{0};
        if (__builtin_sub_overflow(int64_t{0}, v[0], &r)) return overflow();
        return r;
      }
      // Python's floor division and modulo: the remainder takes the sign of
      // the divisor. (The remainder is adjusted rather than computed as
      // v0 - q*v1, which can overflow on the way.)
      const int64_t q = v[0] / v[1];
      const int64_t m = v[0] % v[1];
      const bool adjust = m != 0 && ((m < 0) != (v[1] < 0));
      if (op_ == Op::kFloorDiv) return adjust ? q - 1 : q;
      return adjust ? m + v[1] : m;
    }
    case Op::kMax:
      return *std::max_element(v.begin(), v.end());
    case Op::kMin:
      return *std::min_element(v.begin(), v.end());
    default:
      return r;
  }
}

std::string SymExpr::to_string() const {
  switch (op_) {
    case Op::kInteger: return absl::StrCat(value_);
    case Op::kSymbol: return name_;
    default: break;
  }
  std::vector<std::string> parts;
  for (const auto& a : args_) {
    std::string s = a->to_string();
    const bool compound = a->op_ == Op::kAdd || (op_ != Op::kAdd && op_ != Op::kMax && op_ != Op::kMin &&
                                                 a->op_ != Op::kSymbol && a->op_ != Op::kInteger);
    parts.push_back(compound ? absl::StrCat("(", s, ")") : s);
  }
  switch (op_) {
    case Op::kAdd: return absl::StrJoin(parts, " + ");
    case Op::kMul: return absl::StrJoin(parts, "*");
    case Op::kPow: return absl::StrCat(parts[0], "**", parts[1]);
    case Op::kFloorDiv: return absl::StrCat(parts[0], "//", parts[1]);
    case Op::kMod: return absl::StrCat(parts[0], " % ", parts[1]);
    case Op::kMax: return absl::StrCat("max(", absl::StrJoin(parts, ", "), ")");
    case Op::kMin: return absl::StrCat("min(", absl::StrJoin(parts, ", "), ")");
    default: return "";
  }
}

std::vector<std::string> SymExpr::symbols() const {
  std::set<std::string> out;
  std::vector<const SymExpr*> stack = {this};
  while (!stack.empty()) {
    const SymExpr* e = stack.back();
    stack.pop_back();
    if (e->op_ == Op::kSymbol) out.insert(e->name_);
    for (const auto& a : e->args_) stack.push_back(a.get());
  }
  return {out.begin(), out.end()};
}

}  // namespace fx
