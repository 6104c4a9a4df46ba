// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/elementwise_kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/div.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/zeros.h>

#include <chrono>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// Same dtype, sizes and bits, NaN for NaN (whatever its sign and payload,
// which x86 sets differently for the same operation in its scalar and vector
// instructions) and -0.0 not for 0.0.
::testing::AssertionResult SameBits(const at::Tensor& got, const at::Tensor& expected) {
  if (got.scalar_type() != expected.scalar_type() || got.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure()
           << "got " << got.scalar_type() << got.sizes() << ", expected "
           << expected.scalar_type() << expected.sizes();
  }
  const at::Tensor g = got.contiguous().view({-1}), e = expected.contiguous().view({-1});
  if (!g.is_floating_point()) {
    return at::equal(g, e) ? ::testing::AssertionSuccess()
                           : ::testing::AssertionFailure() << "values differ";
  }
  const at::Tensor nan = at::isnan(g);
  if (!at::equal(nan, at::isnan(e))) return ::testing::AssertionFailure() << "NaNs differ";
  const at::Tensor gv = g.masked_fill(nan, 0), ev = e.masked_fill(nan, 0);
  if (std::memcmp(gv.data_ptr(), ev.data_ptr(), gv.nbytes()) != 0) {
    const at::Tensor diff = (gv != ev).nonzero();
    if (diff.numel() == 0) return ::testing::AssertionFailure() << "the sign of a zero differs";
    const int64_t i = diff[0].item<int64_t>();
    return ::testing::AssertionFailure() << "values differ at " << i << ": "
                                         << g[i].item<double>() << " against "
                                         << e[i].item<double>();
  }
  return ::testing::AssertionSuccess();
}

at::Tensor parse_and_run(const std::string& text, const std::vector<at::Tensor>& inputs) {
  auto program = ElementwiseProgram::parse(text);
  EXPECT_TRUE(program.ok()) << program.status();
  return run_elementwise(*program, inputs);
}

// Random values with the ones that tell implementations apart: NaN, both
// zeros, infinities, tiny and huge numbers.
at::Tensor awkward(std::vector<int64_t> sizes, c10::ScalarType dtype) {
  at::Tensor t = at::randn(sizes, at::TensorOptions().dtype(dtype)) * 3;
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), 1e-40, -1e30};
  at::Tensor flat = t.view({-1});
  for (int64_t i = 0; i < flat.numel(); i += 7) flat[i] = specials[(i / 7) % 7];
  return t;
}

TEST(ElementwiseProgram, PrintsAndParsesExactly) {
  const std::string text =
      "t0=add(i0,1);t1=mul(t0,0.10000000000000001);t2=sub(t1,i1);t3=div(t2,-2.5e-300);"
      "t4=relu(t3);t5=neg(t4);t6=add(t5,True);t7=mul(t6,inf);t8=add(t7,nan)";
  auto program = ElementwiseProgram::parse(text);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->inputs, 2);
  ASSERT_EQ(program->instructions.size(), 9u);
  EXPECT_TRUE(program->instructions[0].b.number.isIntegral(false));
  EXPECT_EQ(program->instructions[1].b.number.toDouble(), 0.1);
  EXPECT_EQ(program->instructions[3].b.number.toDouble(), -2.5e-300);
  EXPECT_TRUE(program->instructions[6].b.number.isBoolean());
  EXPECT_EQ(program->to_string(), text);
  // 1.0 stays a double: aten gives an integer tensor plus 1.0 another dtype than plus 1.
  auto doubles = ElementwiseProgram::parse("t0=add(i0,1.0)");
  ASSERT_TRUE(doubles.ok());
  EXPECT_TRUE(doubles->instructions[0].b.number.isFloatingPoint());
  EXPECT_EQ(doubles->to_string(), "t0=add(i0,1.0)");
}

TEST(ElementwiseProgram, MalformedProgramsNameTheInstruction) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"t0=pow(i0,2)", "instruction 0 't0=pow(i0,2)': unknown operation"},
      {"t0=add(i0)", "add takes 2 operand(s)"},
      {"t0=relu(i0);t1=add(t1,i0)", "instruction 1 't1=add(t1,i0)': 't1' is not an earlier result"},
      {"t0=add(2,i0)", "operand '2' is not an input (iJ) or an earlier result (tK)"},
      {"t0=add(i0,x)", "operand 'x' is not a number, an input"},
      {"t1=add(i0,i1)", "expected 't0=OP(...)'"},
      {"t0=add i0", "expected OP(A) or OP(A,B)"},
  };
  for (const auto& c : cases) {
    auto program = ElementwiseProgram::parse(c.text);
    ASSERT_FALSE(program.ok()) << c.text;
    EXPECT_NE(std::string(program.status().message()).find(c.message), std::string::npos)
        << program.status();
  }
}

// The fast loop against aten's operators one by one, bit for bit: every
// operation, numbers and 0-dim tensors as operands, lengths that are not a
// multiple of the vector width and longer than one block, both dtypes.
TEST(ElementwiseKernel, EqualsAtenBitForBit) {
  c10::InferenceMode guard;
  for (c10::ScalarType dtype : {c10::kFloat, c10::kDouble}) {
    for (int64_t n : {1, 7, 33, 1024, 3001}) {
      const at::Tensor x = awkward({n}, dtype), y = awkward({n}, dtype);
      const at::Tensor s = at::full({}, 0.75, at::TensorOptions().dtype(dtype));
      const at::Tensor expected =
          at::relu(at::div(at::mul(at::sub(at::add(x, 1), y), 0.1), s).neg() + x) / y;
      const at::Tensor got = parse_and_run(
          "t0=add(i0,1);t1=sub(t0,i1);t2=mul(t1,0.10000000000000001);t3=div(t2,i2);t4=neg(t3);"
          "t5=add(t4,i0);t6=relu(t5);t7=div(t6,i1)",
          {x, y, s});
      EXPECT_TRUE(SameBits(got, expected)) << dtype << " n=" << n;
    }
  }
}

TEST(ElementwiseKernel, KeepsTheInputsLayout) {
  c10::InferenceMode guard;
  const at::Tensor x = awkward({2, 5, 3, 3}, c10::kFloat).contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor got = parse_and_run("t0=mul(i0,i0);t1=relu(t0)", {x});
  EXPECT_TRUE(SameBits(got, at::relu(x * x)));
  EXPECT_EQ(got.strides(), x.strides());
}

// What the fast loop does not take runs aten's operators: broadcasting,
// integers (whose division is true division), mixed dtypes, views with
// gaps.
TEST(ElementwiseKernel, OtherInputsRunAtensOperators) {
  c10::InferenceMode guard;
  const at::Tensor col = at::randn({4, 1}), row = at::randn({1, 3});
  EXPECT_TRUE(SameBits(parse_and_run("t0=add(i0,i1);t1=relu(t0)", {col, row}),
                       at::relu(col + row)));
  const at::Tensor ints = at::arange(1, 9, at::kLong);
  EXPECT_TRUE(SameBits(parse_and_run("t0=mul(i0,3);t1=div(t0,2)", {ints}), ints * 3 / 2));
  EXPECT_TRUE(SameBits(parse_and_run("t0=add(i0,0.5)", {ints}), ints + 0.5));
  const at::Tensor d = at::randn({8}, at::kDouble);
  const at::Tensor f = at::randn({8});
  EXPECT_TRUE(SameBits(parse_and_run("t0=add(i0,i1)", {f, d}), f + d));
  const at::Tensor wide = at::randn({6, 8});
  const at::Tensor gappy = wide.slice(1, 0, 8, 2);
  EXPECT_TRUE(SameBits(parse_and_run("t0=sub(i0,i1)", {gappy, gappy.t().contiguous().t()}),
                       gappy - gappy));
}

// Only what the result depends on shapes it; an operation aten refuses (a
// bool subtracted) fails as aten's does.
TEST(ElementwiseKernel, UnreadInputsDoNotShapeTheResultAndRefusalsAreAtens) {
  c10::InferenceMode guard;
  const at::Tensor two = at::full({}, 2.0);
  const at::Tensor got = parse_and_run("t0=neg(i1)", {at::ones({3}, at::kDouble), two});
  EXPECT_TRUE(SameBits(got, at::neg(two)));
  EXPECT_ANY_THROW(parse_and_run("t0=sub(i0,True)", {at::ones({3})}));
  EXPECT_ANY_THROW(at::sub(at::ones({3}), true));
}

// The out= overload is a write autograd sees: a backward through the value
// it overwrote fails, as after aten's out= overloads.
TEST(ElementwiseKernel, OutVariantIsAWriteForAutograd) {
  auto op = find_operator("fx::elementwise.out");
  ASSERT_TRUE(op.ok()) << op.status();
  const at::Tensor w = at::randn({4}).requires_grad_(true);
  at::Tensor t = at::randn({4});
  const at::Tensor loss = (w * t).sum();
  torch::jit::Stack stack{std::string("t0=neg(i0)"), c10::List<at::Tensor>({t}), t};
  op->run(stack);
  EXPECT_ANY_THROW(loss.backward());
}

TEST(ElementwiseKernel, OutVariantWritesItsOutput) {
  c10::InferenceMode guard;
  auto op = find_operator("fx::elementwise.out");
  ASSERT_TRUE(op.ok()) << op.status();
  const at::Tensor x = awkward({100}, c10::kFloat), y = awkward({100}, c10::kFloat);
  const at::Tensor expected = at::relu(x - y) * 2;
  const std::string program = "t0=sub(i0,i1);t1=relu(t0);t2=mul(t1,2)";
  const auto run = [&](const at::Tensor& a, at::Tensor out) {
    torch::jit::Stack stack{program, c10::List<at::Tensor>({a, y}), out};
    op->run(stack);
    EXPECT_TRUE(stack.back().toTensor().is_same(out));
    return out;
  };
  // Into a tensor of the right size, into one of another size (resized, as
  // aten's out= overloads do), and into an input itself.
  EXPECT_TRUE(SameBits(run(x, at::empty({100})), expected));
  EXPECT_TRUE(SameBits(run(x, at::empty({3})), expected));
  const at::Tensor a = x.clone();
  EXPECT_TRUE(SameBits(run(a, a), expected));
}

TEST(ElementwiseKernel, RecordsGradientsWhereWanted) {
  const at::Tensor x = at::randn({5}).requires_grad_(true);
  auto op = find_operator(kElementwise);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{std::string("t0=mul(i0,i0);t1=add(t0,1.0)"), c10::List<at::Tensor>({x})};
  op->run(stack);
  const at::Tensor y = stack.back().toTensor();
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), 2 * x.detach()));
}

TEST(ElementwiseKernel, MalformedProgramFailsNamingIt) {
  auto op = find_operator(kElementwise);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{std::string("t0=add(i0,i3)"), c10::List<at::Tensor>({at::ones({2})})};
  try {
    op->run(stack);
    FAIL() << "a program reading a missing input ran";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("reads 4 input(s), 1 given"), std::string::npos) << e.what();
  }
}

// A program's text with a NUL byte or a control character: the message
// names the instruction whole, escaped, instead of stopping at the NUL.
TEST(ElementwiseProgram, MessagesShowControlCharactersEscaped) {
  std::string text = "t0=add(i0,i1);t1=mu";
  text.push_back('\0');
  text += "l(t0,i0)";
  auto program = ElementwiseProgram::parse(text);
  ASSERT_FALSE(program.ok());
  const std::string message(program.status().message());
  EXPECT_EQ(message.find('\0'), std::string::npos);
  EXPECT_NE(message.find("instruction 1 't1=mu\\x00l(t0,i0)': unknown operation"), std::string::npos)
      << message;
}

// Time linear in the program's length: 200,000 results, every one live
// until the last instruction reads them in turn (a register each, so the
// allocator's free list grows to 200,000), parsed, compiled and run in
// well under a second where a search of the free list took minutes; and
// computed right, with the thread's scratch bounded (fewer elements per
// pass).
TEST(ElementwiseKernel, LongProgramsCompileInLinearTimeWithBoundedScratch) {
  constexpr int kLive = 100000;
  std::string text;
  for (int k = 0; k < kLive; ++k) absl::StrAppend(&text, k == 0 ? "" : ";", "t", k, "=add(i0,", k, ")");
  // Sum them up from the last: t(kLive + j) = t(kLive + j - 1) + t(kLive - 1 - j).
  absl::StrAppend(&text, ";t", kLive, "=add(t", kLive - 1, ",t", kLive - 2, ")");
  for (int j = 1; j < kLive - 1; ++j) {
    absl::StrAppend(&text, ";t", kLive + j, "=add(t", kLive + j - 1, ",t", kLive - 2 - j, ")");
  }
  const at::Tensor x = at::zeros({3}, at::kDouble);
  const auto start = std::chrono::steady_clock::now();
  const at::Tensor got = parse_and_run(text, {x});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // 0 + 1 + ... + (kLive - 1).
  EXPECT_TRUE(at::equal(got, at::full({3}, double(kLive) * (kLive - 1) / 2, at::kDouble))) << got;
  EXPECT_LT(seconds, 60.0) << "a quadratic compile takes minutes";
}

}  // namespace
}  // namespace fx
