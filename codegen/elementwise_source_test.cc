// Copyright 2026 The FX for C++ Authors.
//
// Generated elementwise kernels, compiled with the machine's compiler for
// this CPU and for the baseline, against fx::elementwise's interpreter bit
// for bit (NaNs as NaNs): special values (NaN, infinities, -0.0, denormals), numbers of
// every kind, 0-dim inputs, an output that is an input, long chains.
#include "codegen/elementwise_source.h"

#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/all.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/full.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/scalar_tensor.h>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_library.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace codegen {
namespace {

using ::testing::HasSubstr;

CompilerOptions options(Isa isa) {
  CompilerOptions o;
  const char* tmp = std::getenv("TEST_TMPDIR");
  o.cache_dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/kernels");
  o.isa = isa;
  return o;
}

// Random values with every special value among them.
at::Tensor values(c10::ScalarType dtype, int64_t n) {
  at::Tensor t = at::randn({n}, at::TensorOptions().dtype(dtype)) * 3;
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             -0.0,
                             0.0,
                             std::numeric_limits<float>::denorm_min(),
                             1e30,
                             -1e-30};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0] && static_cast<int64_t>(i) < n; ++i) {
    t[static_cast<int64_t>(i * 7 % n)] = specials[i];
  }
  return t;
}

// Equal bit for bit (the sign of zero included), NaN where the other has
// NaN: the sign and payload of a NaN an operation makes are unspecified by
// IEEE 754, and compilers do not keep them (GCC computes -x + 1 as 1 - x).
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  const auto bits = a.scalar_type() == c10::kFloat ? c10::kInt : c10::kLong;
  const at::Tensor equal_bits = a.contiguous().view(bits) == b.contiguous().view(bits);
  return (equal_bits | (a.isnan() & b.isnan())).all().item<bool>();
}

struct Compiled {
  std::shared_ptr<const KernelLibrary> library;
  ElementwiseKernel* kernel = nullptr;
};

Compiled compile(const std::string& text, const ElementwiseSignature& signature, Isa isa) {
  auto program = ElementwiseProgram::parse(text);
  EXPECT_TRUE(program.ok()) << program.status();
  auto source = elementwise_source(*program, signature);
  EXPECT_TRUE(source.ok()) << source.status();
  auto library = KernelLibrary::compile(*source, options(isa));
  EXPECT_TRUE(library.ok()) << library.status() << "\n" << *source;
  if (!library.ok()) return {};
  auto kernel = (*library)->function<ElementwiseKernel>(kElementwiseKernelName);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return {*library, kernel.ok() ? *kernel : nullptr};
}

at::Tensor run(const Compiled& c, const std::vector<at::Tensor>& inputs, const at::Tensor& like) {
  at::Tensor out = at::empty_like(like);
  std::vector<const void*> data;
  for (const at::Tensor& t : inputs) data.push_back(t.data_ptr());
  c.kernel(data.data(), out.data_ptr(), out.numel());
  return out;
}

void expect_like_the_interpreter(const std::string& text, int inputs,
                                 const std::vector<bool>& scalar = {}) {
  for (c10::ScalarType dtype : {c10::kFloat, c10::kDouble}) {
    for (Isa isa : {this_cpu_isa(), Isa::kBaseline}) {
      SCOPED_TRACE(absl::StrCat(text, " ", c10::toString(dtype), " ", isa_name(isa)));
      ElementwiseSignature signature{dtype, scalar.empty() ? std::vector<bool>(inputs) : scalar};
      Compiled c = compile(text, signature, isa);
      if (c.kernel == nullptr) return;
      // Lengths around the vector widths, and one long enough for the
      // interpreter's blocks.
      for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{33}, int64_t{3000}}) {
        std::vector<at::Tensor> in;
        for (int j = 0; j < inputs; ++j) {
          in.push_back(
              signature.scalar_inputs[j]
                  ? at::scalar_tensor(j % 2 == 0 ? -0.0 : 2.5, at::TensorOptions().dtype(dtype))
                  : values(dtype, n));
        }
        const at::Tensor like = values(dtype, n);
        const at::Tensor want = run_elementwise(*ElementwiseProgram::parse(text), in);
        EXPECT_TRUE(same_bits(run(c, in, like), want)) << "n=" << n;
      }
    }
  }
}

TEST(ElementwiseSourceTest, ChainsAgreeWithTheInterpreterBitForBit) {
  expect_like_the_interpreter("t0=add(i0,1.5);t1=mul(t0,i1);t2=relu(t1)", 2);
  expect_like_the_interpreter("t0=div(i0,i1);t1=sub(t0,3);t2=neg(t1);t3=add(t2,True)", 2);
  expect_like_the_interpreter("t0=relu(i0);t1=neg(t0);t2=relu(t1);t3=div(t2,0)", 1);
  // A result no later instruction reads is not computed; the last is the result.
  expect_like_the_interpreter("t0=add(i0,1);t1=mul(i1,2);t2=sub(i1,i0)", 2);
}

TEST(ElementwiseSourceTest, NumbersOfEveryKindConvertAsAtenConvertsThem) {
  for (const char* number :
       {"inf", "-inf", "nan", "-0.0", "1e-300", "3.4028235677973366e+38", "0.1", "9007199254740993",
        "-9223372036854775808", "9223372036854775807", "False"}) {
    expect_like_the_interpreter(absl::StrCat("t0=mul(i0,", number, ");t1=add(t0,", number, ")"), 1);
  }
}

TEST(ElementwiseSourceTest, ZeroDimInputsAreReadOnce) {
  expect_like_the_interpreter("t0=mul(i0,i1);t1=add(t0,i2);t2=div(i1,t1)", 3, {false, true, true});
}

TEST(ElementwiseSourceTest, ALongChainIsOneLoop) {
  std::string text = "t0=add(i0,i1)";
  for (int k = 1; k < 200; ++k) absl::StrAppend(&text, ";t", k, "=add(t", k - 1, ",i", k % 2, ")");
  expect_like_the_interpreter(text, 2);
}

TEST(ElementwiseSourceTest, TheOutputMayBeAnInput) {
  const std::string text = "t0=mul(i0,i1);t1=sub(t0,i0)";
  Compiled c = compile(text, {c10::kFloat, {false, false}}, this_cpu_isa());
  ASSERT_NE(c.kernel, nullptr);
  at::Tensor x = values(c10::kFloat, 100), y = values(c10::kFloat, 100);
  const at::Tensor want = run_elementwise(*ElementwiseProgram::parse(text), {x, y});
  std::vector<const void*> data = {x.data_ptr(), y.data_ptr()};
  c.kernel(data.data(), x.data_ptr(), x.numel());
  EXPECT_TRUE(same_bits(x, want));
}

TEST(ElementwiseSourceTest, WhatTheFastPathDoesNotRunIsRefused) {
  auto bool_sub = ElementwiseProgram::parse("t0=sub(i0,True)");
  ASSERT_TRUE(bool_sub.ok());
  auto refused = elementwise_source(*bool_sub, {c10::kFloat, {false}});
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("subtracts a bool"));
  auto program = ElementwiseProgram::parse("t0=neg(i0)");
  ASSERT_TRUE(program.ok());
  auto half = elementwise_source(*program, {c10::kHalf, {false}});
  EXPECT_THAT(std::string(half.status().message()),
              HasSubstr("float and double tensors, not Half"));
  auto short_signature = elementwise_source(*program, {c10::kFloat, {}});
  EXPECT_FALSE(short_signature.ok());
}

// With denormals flushed (torch.set_flush_denormal(True)), x * 1 of a
// denormal x is 0 when computed, x when folded at compile time: the
// generated loop computes, as the interpreter does.
TEST(ElementwiseSourceTest, ArithmeticWithNumbersIsComputedNotFolded) {
  const std::string text = "t0=mul(i0,1);t1=div(t0,1);t2=add(t1,-0.0)";
  Compiled c = compile(text, {c10::kFloat, {false}}, this_cpu_isa());
  ASSERT_NE(c.kernel, nullptr);
  // (Made before flushing starts: converting 1e-40 to float would flush it.)
  const at::Tensor x = at::full({64}, 1e-40, at::TensorOptions().dtype(c10::kFloat));
  ASSERT_TRUE(at::globalContext().setFlushDenormal(true)) << "this CPU cannot flush denormals";
  const at::Tensor want = run_elementwise(*ElementwiseProgram::parse(text), {x});
  const at::Tensor got = run(c, {x}, x);
  at::globalContext().setFlushDenormal(false);
  EXPECT_TRUE(same_bits(got, want));
}

// A number is converted to the element type in the run's rounding mode, as
// the interpreter converts it (0.1 rounded down to float is one unit below
// the nearest float, which a conversion at compile time would give).
TEST(ElementwiseSourceTest, NumbersAreConvertedInTheRunsRoundingMode) {
  const std::string text = "t0=mul(i0,0.1)";
  Compiled c = compile(text, {c10::kFloat, {false}}, this_cpu_isa());
  ASSERT_NE(c.kernel, nullptr);
  const at::Tensor x = at::arange(1, 65, at::TensorOptions().dtype(c10::kFloat));
  // (Parsed before: strtod reads 0.1 in the rounding mode too.)
  const ElementwiseProgram program = *ElementwiseProgram::parse(text);
  ASSERT_EQ(std::fesetround(FE_DOWNWARD), 0);
  const at::Tensor want = run_elementwise(program, {x});
  const at::Tensor got = run(c, {x}, x);
  std::fesetround(FE_TONEAREST);
  EXPECT_TRUE(same_bits(got, want)) << got[0].item<float>() << " " << want[0].item<float>();
}

// A program built in code, not parsed, is checked as parse() checks one.
TEST(ElementwiseSourceTest, AProgramBuiltInCodeIsCheckedAsParsedOnesAre) {
  ElementwiseProgram program;
  program.inputs = 1;
  ElementwiseInstruction ins;
  ins.op = ElementwiseOp::kAdd;
  ins.a.kind = ElementwiseOperand::Kind::kInput;
  ins.a.index = 0;
  ins.b.kind = ElementwiseOperand::Kind::kResult;
  ins.b.index = 0;  // its own result
  program.instructions.push_back(ins);
  auto own = elementwise_source(program, {c10::kFloat, {false}});
  EXPECT_THAT(std::string(own.status().message()), HasSubstr("reads result 0, not made before it"));
  program.instructions[0].b.kind = ElementwiseOperand::Kind::kInput;
  program.instructions[0].b.index = 5;
  auto past = elementwise_source(program, {c10::kFloat, {false}});
  EXPECT_THAT(std::string(past.status().message()), HasSubstr("reads input 5 of a program of 1"));
}

TEST(ElementwiseSourceTest, NumbersAreWrittenExactly) {
  EXPECT_EQ(double_literal(0.5), "0x1p-1");
  EXPECT_EQ(double_literal(-0.0), "(-0x0p+0)");
  EXPECT_EQ(double_literal(std::numeric_limits<double>::infinity()), "__builtin_inf()");
  EXPECT_EQ(double_literal(std::nan("")), "__builtin_nan(\"\")");
  EXPECT_EQ(double_literal(0.1), "0x1.999999999999ap-4");
}

}  // namespace
}  // namespace codegen
}  // namespace fx
