// Copyright 2026 The FX for C++ Authors.
#include "codegen/elementwise_source.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace fx {
namespace codegen {
namespace {

std::string integer_literal(int64_t value) {
  // (-9223372036854775808 is not a literal: the minus applies to a number
  // too large for long long.)
  if (value == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return absl::StrCat(value, "LL");
}

// A number operand, converted to the element type as aten converts it (a
// plain cast).
std::string number_value(const c10::Scalar& number, const char* type) {
  std::string literal;
  if (number.isBoolean()) {
    literal = number.toBool() ? "true" : "false";
  } else if (number.isIntegral(false)) {
    literal = integer_literal(number.toLong());
  } else {
    literal = double_literal(number.toDouble());
  }
  return absl::StrCat("static_cast<", type, ">(", literal, ")");
}

// Operand `o` of instruction `k` as an expression in the loop.
std::string operand_value(const ElementwiseOperand& o, size_t k,
                          const ElementwiseSignature& signature) {
  switch (o.kind) {
    case ElementwiseOperand::Kind::kInput: {
      const bool scalar = static_cast<size_t>(o.index) < signature.scalar_inputs.size() &&
                          signature.scalar_inputs[o.index];
      return scalar ? absl::StrCat("s", o.index) : absl::StrCat("i", o.index, "[k]");
    }
    case ElementwiseOperand::Kind::kResult: return absl::StrCat("t", o.index);
    case ElementwiseOperand::Kind::kNumber:
      return absl::StrCat("n", k);  // (declared before the loop)
  }
  return "";
}

}  // namespace

std::string double_literal(double value) {
  if (std::isnan(value)) {
    return std::signbit(value) ? "(-__builtin_nan(\"\"))" : "__builtin_nan(\"\")";
  }
  if (std::isinf(value)) return value < 0 ? "(-__builtin_inf())" : "__builtin_inf()";
  // Hexadecimal, exact, and not in the locale's notation (printf's %a writes
  // a decimal comma where LC_NUMERIC says so).
  char digits[64];
  const auto written =
      std::to_chars(digits, digits + sizeof digits, std::fabs(value), std::chars_format::hex);
  const std::string text = absl::StrCat("0x", absl::string_view(digits, written.ptr - digits));
  return std::signbit(value) ? absl::StrCat("(-", text, ")") : text;
}

absl::StatusOr<std::string> elementwise_source(const ElementwiseProgram& program,
                                               const ElementwiseSignature& signature) {
  const char* type = nullptr;
  if (signature.dtype == c10::kFloat) {
    type = "float";
  } else if (signature.dtype == c10::kDouble) {
    type = "double";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("generated elementwise kernels take float and double tensors, not ",
                     c10::toString(signature.dtype)));
  }
  if (program.instructions.empty()) return absl::InvalidArgumentError("an empty program");
  if (signature.scalar_inputs.size() < static_cast<size_t>(program.inputs)) {
    return absl::InvalidArgumentError(absl::StrCat("the program reads ", program.inputs,
                                                   " inputs, and the signature describes ",
                                                   signature.scalar_inputs.size()));
  }
  // The program's indices, as parse() checks them (a program may be built
  // in code): a result read before it is made, or an input past the count,
  // would make source that reads out of bounds or does not compile.
  const size_t n = program.instructions.size();
  for (size_t k = 0; k < n; ++k) {
    const ElementwiseInstruction& ins = program.instructions[k];
    for (const ElementwiseOperand* o : {&ins.a, &ins.b}) {
      if (o == &ins.b && !is_binary(ins.op)) continue;
      const bool bad = (o->kind == ElementwiseOperand::Kind::kResult &&
                        (o->index < 0 || static_cast<size_t>(o->index) >= k)) ||
                       (o->kind == ElementwiseOperand::Kind::kInput &&
                        (o->index < 0 || o->index >= program.inputs)) ||
                       (o->kind == ElementwiseOperand::Kind::kNumber && o == &ins.a);
      if (bad) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction ", k, " reads ",
            o->kind == ElementwiseOperand::Kind::kNumber ? "a number as its first operand"
            : o->kind == ElementwiseOperand::Kind::kResult
                ? absl::StrCat("result ", o->index, ", not made before it")
                : absl::StrCat("input ", o->index, " of a program of ", program.inputs)));
      }
    }
  }
  // What the result depends on, backwards from it: only that is computed.
  std::vector<bool> needed(n, false), read(program.inputs, false);
  needed[n - 1] = true;
  for (size_t k = n; k-- > 0;) {
    if (!needed[k]) continue;
    const ElementwiseInstruction& ins = program.instructions[k];
    for (const ElementwiseOperand* o : {&ins.a, &ins.b}) {
      if (o == &ins.b && !is_binary(ins.op)) continue;
      if (o->kind == ElementwiseOperand::Kind::kResult) needed[o->index] = true;
      if (o->kind == ElementwiseOperand::Kind::kInput) read[o->index] = true;
    }
    if (ins.op == ElementwiseOp::kSub && ins.b.kind == ElementwiseOperand::Kind::kNumber &&
        ins.b.number.isBoolean()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "instruction ", k, " subtracts a bool, which aten refuses: no kernel is generated"));
    }
  }

  std::string s = absl::StrCat("// Generated by FX for C++ (codegen/elementwise_source.cc) from an ",
                               "fx::elementwise\n// program of ", n, " instruction(s), for ", type,
                               " tensors.\n#include <cstdint>\n\n");
  absl::StrAppend(&s, "extern \"C\" __attribute__((visibility(\"default\")))\nvoid ",
                  kElementwiseKernelName, "(const void* const* inputs, void* out, int64_t n) {\n");
  for (int j = 0; j < program.inputs; ++j) {
    if (!read[j]) continue;
    if (signature.scalar_inputs[j]) {
      absl::StrAppend(&s, "  const ", type, " s", j, " = *static_cast<const ", type, "*>(inputs[",
                      j, "]);  // input ", j, ", 0-dim\n");
    } else {
      absl::StrAppend(&s, "  const ", type, "* i", j, " = static_cast<const ", type, "*>(inputs[",
                      j, "]);\n");
    }
  }
  // Numbers as values the compiler cannot see (the empty asm may change
  // them): folded at compile time, x * 1 would stay a denormal that the
  // interpreter, computing at run time with denormals flushed
  // (torch.set_flush_denormal), turns into 0.
  for (size_t k = 0; k < n; ++k) {
    const ElementwiseInstruction& ins = program.instructions[k];
    if (!needed[k] || !is_binary(ins.op) || ins.b.kind != ElementwiseOperand::Kind::kNumber)
      continue;
    absl::StrAppend(&s, "  ", type, " n", k, " = ", number_value(ins.b.number, type), ";\n",
                    "  __asm__(\"\" : \"+m\"(n", k, "));\n");
  }
  absl::StrAppend(&s, "  ", type, "* r = static_cast<", type, "*>(out);\n",
                  "  for (int64_t k = 0; k < n; ++k) {\n");
  for (size_t k = 0; k < n; ++k) {
    if (!needed[k]) continue;
    const ElementwiseInstruction& ins = program.instructions[k];
    const std::string a = operand_value(ins.a, k, signature);
    const std::string b = is_binary(ins.op) ? operand_value(ins.b, k, signature) : "";
    std::string value;
    switch (ins.op) {
      case ElementwiseOp::kAdd: value = absl::StrCat(a, " + ", b); break;
      case ElementwiseOp::kSub: value = absl::StrCat(a, " - ", b); break;
      case ElementwiseOp::kMul: value = absl::StrCat(a, " * ", b); break;
      case ElementwiseOp::kDiv: value = absl::StrCat(a, " / ", b); break;
      case ElementwiseOp::kNeg: value = absl::StrCat("-", a); break;
      // (NaN and -0.0 stay as they are, as aten's relu leaves them.)
      case ElementwiseOp::kRelu:
        value = absl::StrCat(a, " < ", type, "(0) ? ", type, "(0) : ", a);
        break;
    }
    absl::StrAppend(&s, "    const ", type, " t", k, " = ", value, ";  // ",
                    elementwise_op_name(ins.op), "\n");
  }
  absl::StrAppend(&s, "    r[k] = t", n - 1, ";\n  }\n}\n");
  return s;
}

}  // namespace codegen
}  // namespace fx
