// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/contraction.h"

#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <string>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/einsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/tensordot.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

const c10::FunctionSchema& schema_of(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").schema();
}

std::vector<c10::IValue> einsum_args(const std::string& equation, const at::Tensor& a,
                                     const at::Tensor& b) {
  return {c10::IValue(equation), c10::IValue(c10::List<at::Tensor>({a, b})), c10::IValue()};
}

int scratch_count(const Contraction& c) {
  int n = 0;
  for (auto s : {Contraction::kScratchA, Contraction::kScratchB, Contraction::kScratchProduct}) {
    n += c.scratch_numel(s) > 0;
  }
  return n;
}

// Runs `c` on `a`, `b` as the plan does: a fresh result and scratch.
at::Tensor run(const Contraction& c, const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out =
      at::empty_strided(c.out_sizes(), c.out_strides(), at::TensorOptions().dtype(c.dtype()));
  Contraction::ScratchTensors scratch;
  for (auto s : {Contraction::kScratchA, Contraction::kScratchB, Contraction::kScratchProduct}) {
    if (c.scratch_numel(s) > 0) scratch[s] = at::empty({c.scratch_numel(s)}, a.options());
  }
  c.run(a, b, out, scratch);
  return out;
}

// Other values in the same layout as `t` (sizes, strides, offset).
at::Tensor same_layout(const at::Tensor& t, double scale, double shift) {
  const int64_t elements = static_cast<int64_t>(t.storage().nbytes()) / t.element_size();
  at::Tensor u = at::empty({elements}, t.options()).as_strided(t.sizes(), t.strides(), t.storage_offset());
  u.copy_(t * scale + shift);
  return u;
}

// Plans `equation` on `a`, `b`, then runs the plan on other values of the
// same layout: the result must be aten's, sizes and strides included.
void expect_einsum(const std::string& equation, const at::Tensor& a, const at::Tensor& b,
                   int max_scratch) {
  SCOPED_TRACE(equation);
  const at::Tensor expected = at::einsum(equation, {a, b});
  auto c = Contraction::plan(schema_of("aten::einsum"), einsum_args(equation, a, b), expected);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_LE(scratch_count(*c), max_scratch);
  const at::Tensor other_a = same_layout(a, 3, -1), other_b = same_layout(b, -2, 0.5);
  ASSERT_TRUE(c->matches(other_a, other_b));
  const at::Tensor got = run(*c, other_a, other_b);
  const at::Tensor want = at::einsum(equation, {other_a, other_b});
  EXPECT_EQ(got.sizes(), want.sizes());
  EXPECT_EQ(got.strides(), want.strides());
  const double scale = std::max(1.0, want.abs().max().item<double>());
  EXPECT_TRUE(at::allclose(got, want, 1e-5, 1e-6 * scale)) << (got - want).abs().max();
}

class ContractionTest : public ::testing::Test {
 protected:
  c10::InferenceMode inference_;
};

// The contractions of seed 003's tensor product (e3nn's uvw paths), with the
// operand layouts they have there: slices of the inputs (row stride 22) and
// the results of earlier contractions.
TEST_F(ContractionTest, TensorProductPathsNeedNoCopies) {
  const int64_t B = 32;
  const at::Tensor x = at::randn({B, 22});
  const at::Tensor x1 = x.narrow(1, 0, 1), x2_3 = x.narrow(1, 1, 6).view({B, 2, 3});
  const at::Tensor x3_5 = x.narrow(1, 7, 15).view({B, 3, 5});
  expect_einsum("cb,ca->cba", x1, x1, 0);
  expect_einsum("dca,db->dcab", x2_3, x1, 0);
  expect_einsum("dc,dba->dcba", x1, x3_5, 0);
  expect_einsum("dca,dba->dcb", x2_3, x2_3, 0);
  expect_einsum("ecab,eda->ecbd", at::randn({B, 2, 3, 5}), x2_3, 0);
  expect_einsum("ecab,eacd->edb", at::randn({B, 3, 5, 5}), at::randn({B, 5, 3, 3}), 0);

  // Small enough for direct loops, which read every operand in place; at a
  // batch of 16,384 the batched product, whose scratch copies are needed
  // where the summed (or kept) labels of the weight lie in an order that
  // does not nest in the other operand's strides, as aten copies them.
  for (const int64_t batch : {B, int64_t{16384}}) {
    SCOPED_TRACE(batch);
    const at::Tensor y = at::randn({batch, 22});
    const at::Tensor y2_3 = y.narrow(1, 1, 6).view({batch, 2, 3});
    const at::Tensor y3_5 = y.narrow(1, 7, 15).view({batch, 3, 5});
    struct Dot {
      at::Tensor a, b;
      std::vector<int64_t> da, db;
      int copies;  // at batch 16,384
    };
    const std::vector<Dot> dots = {
        {at::randn({batch, 1, 1}), at::randn({1, 1, 1}), {1, 2}, {1, 0}, 0},
        // The batch dimension of the first operand becomes the product's batch.
        {at::randn({batch, 2, 3, 1}), at::randn({1, 2, 2}), {1, 3}, {1, 0}, 0},
        {at::randn({batch, 2, 5, 2}), at::randn({2, 2, 3}), {3, 1}, {1, 0}, 1},
        {y3_5, at::randn({2, 3, 2}), {1}, {1}, 1},
        {y2_3, at::randn({5, 3, 3}), {2}, {1}, 1},
        {at::randn({batch, 3, 3}), at::randn({3, 3, 1}), {1, 2}, {1, 0}, 1},
    };
    for (const Dot& d : dots) {
      const at::Tensor expected = at::tensordot(d.a, d.b, d.da, d.db);
      auto c = Contraction::plan(schema_of("aten::tensordot"), {d.a, d.b, d.da, d.db}, expected);
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(scratch_count(*c), batch == B ? 0 : d.copies) << d.a.sizes() << " " << d.b.sizes();
      const at::Tensor got = run(*c, d.a, d.b);
      EXPECT_EQ(got.strides(), expected.strides());
      EXPECT_TRUE(at::allclose(got, expected, 1e-5, 1e-6));
    }
  }
}

// How a random operand is laid out: a bigger tensor of `big` sizes
// (permuted by `perm` in memory), sliced down to `sizes`, with dimension
// `expanded` (if any) broadcast from size 1 (stride 0).
struct Layout {
  std::vector<int64_t> sizes, big, perm;
  int64_t expanded = -1;
};

Layout random_layout(std::vector<int64_t> sizes, std::mt19937& rng) {
  Layout l;
  l.sizes = std::move(sizes);
  for (int64_t s : l.sizes) l.big.push_back(s + static_cast<int64_t>(rng() % 2));
  l.perm.resize(l.sizes.size());
  std::iota(l.perm.begin(), l.perm.end(), 0);
  std::shuffle(l.perm.begin(), l.perm.end(), rng);
  if (!l.sizes.empty() && rng() % 4 == 0) l.expanded = static_cast<int64_t>(rng() % l.sizes.size());
  return l;
}

// A tensor of random values in layout `l`: each call, other values.
at::Tensor make(const Layout& l) {
  std::vector<int64_t> in_memory(l.big.size());
  for (size_t i = 0; i < l.perm.size(); ++i) in_memory[l.perm[i]] = l.big[i];
  at::Tensor t = at::randn(in_memory, at::kDouble).permute(l.perm);
  for (size_t d = 0; d < l.sizes.size(); ++d) t = t.narrow(static_cast<int64_t>(d), 0, l.sizes[d]);
  if (l.expanded >= 0) t = t.narrow(l.expanded, 0, 1).expand(l.sizes);
  return t;
}

// Plans on `a`, `b` (the call's `args` with operands a, b), then runs the plan
// on other values of the same layouts (the plan checked itself on the
// first): equal to aten's, strides included.
void expect_plan_reproduces(const c10::FunctionSchema& schema,
                            const std::function<std::vector<c10::IValue>(at::Tensor, at::Tensor)>& args,
                            const std::function<at::Tensor(at::Tensor, at::Tensor)>& aten,
                            const Layout& la, const Layout& lb, const std::string& what,
                            int* planned) {
  const at::Tensor a = make(la), b = make(lb);
  at::Tensor expected;
  try {
    expected = aten(a, b);
  } catch (const std::exception&) {
    return;  // not a call aten accepts
  }
  if (!expected.is_non_overlapping_and_dense() || expected.numel() == 0) return;
  auto c = Contraction::plan(schema, args(a, b), expected);
  ASSERT_TRUE(c.ok()) << what << ": " << c.status();
  const at::Tensor a2 = make(la), b2 = make(lb);
  ASSERT_TRUE(c->matches(a2, b2)) << what;
  const at::Tensor got = run(*c, a2, b2), want = aten(a2, b2);
  ASSERT_EQ(got.strides(), want.strides()) << what;
  ASSERT_TRUE(at::allclose(got, want, 1e-9, 1e-9)) << what;
  ++*planned;
}

// Random equations over random layouts: permuted, sliced, expanded (stride
// 0) operands; labels of size 1 in one operand against n in the other
// (einsum broadcasts them); labels summed from one operand only; outputs in
// any order; small and large sizes (aten's bmm takes other paths for large
// matrices).
TEST_F(ContractionTest, RandomEquationsMatchAten) {
  std::mt19937 rng(7);
  const std::string letters = "abcdefgAB";
  int planned = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> size(letters.size());
    const bool large = round % 10 == 0;
    for (auto& s : size) s = std::uniform_int_distribution<int64_t>(1, large ? 24 : 4)(rng);
    std::string sa, sb;
    // Large sizes with few labels, so that the result stays small.
    const size_t n_letters = large ? 4 : letters.size();
    for (size_t i = 0; i < n_letters; ++i) {
      const int where = std::uniform_int_distribution<int>(0, large ? 4 : 5)(rng);
      if (where == 1 || where == 3 || where == 5) sa += letters[i];
      if (where == 2 || where == 3 || where == 5) sb += letters[i];
    }
    if (sa.size() > 4) sa.resize(4);
    if (sb.size() > 4) sb.resize(4);
    std::shuffle(sa.begin(), sa.end(), rng);
    std::shuffle(sb.begin(), sb.end(), rng);
    std::string out;
    for (char l : letters) {
      const bool in_a = sa.find(l) != std::string::npos, in_b = sb.find(l) != std::string::npos;
      if ((in_a || in_b) && std::uniform_int_distribution<int>(0, 2)(rng) > 0) out += l;
    }
    std::shuffle(out.begin(), out.end(), rng);
    const auto sizes_of = [&](const std::string& labels) {
      std::vector<int64_t> sizes;
      for (char l : labels) sizes.push_back(rng() % 6 == 0 ? 1 : size[letters.find(l)]);
      return sizes;
    };
    const Layout la = random_layout(sizes_of(sa), rng), lb = random_layout(sizes_of(sb), rng);
    const std::string equation = sa + "," + sb + "->" + out;
    expect_plan_reproduces(
        schema_of("aten::einsum"),
        [&](at::Tensor a, at::Tensor b) { return einsum_args(equation, a, b); },
        [&](at::Tensor a, at::Tensor b) { return at::einsum(equation, {a, b}); }, la, lb,
        equation, &planned);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(planned, 200);
}

// Random tensordots: dims given negative or not, contracted dimensions of
// size 1 against n (aten sums the other side first).
TEST_F(ContractionTest, RandomTensordotsMatchAten) {
  std::mt19937 rng(11);
  int planned = 0;
  for (int round = 0; round < 300; ++round) {
    const int64_t rank_a = rng() % 4, rank_b = rng() % 4;
    const int64_t contracted = rng() % (std::min(rank_a, rank_b) + 1);
    std::vector<int64_t> dims_a(rank_a), dims_b(rank_b);
    std::iota(dims_a.begin(), dims_a.end(), 0);
    std::iota(dims_b.begin(), dims_b.end(), 0);
    std::shuffle(dims_a.begin(), dims_a.end(), rng);
    std::shuffle(dims_b.begin(), dims_b.end(), rng);
    dims_a.resize(contracted);
    dims_b.resize(contracted);
    std::vector<int64_t> sa(rank_a), sb(rank_b);
    for (auto& s : sa) s = 1 + rng() % 4;
    for (auto& s : sb) s = 1 + rng() % 4;
    for (int64_t k = 0; k < contracted; ++k) {
      sb[dims_b[k]] = rng() % 5 == 0 ? 1 : sa[dims_a[k]];
      if (rng() % 2) dims_a[k] -= rank_a;
      if (rng() % 2) dims_b[k] -= rank_b;
    }
    const Layout la = random_layout(sa, rng), lb = random_layout(sb, rng);
    const std::string what = ::testing::PrintToString(sa) + " " + ::testing::PrintToString(sb) +
                             " dims " + ::testing::PrintToString(dims_a) + " " +
                             ::testing::PrintToString(dims_b);
    expect_plan_reproduces(
        schema_of("aten::tensordot"),
        [&](at::Tensor a, at::Tensor b) {
          return std::vector<c10::IValue>{a, b, dims_a, dims_b};
        },
        [&](at::Tensor a, at::Tensor b) { return at::tensordot(a, b, dims_a, dims_b); }, la, lb,
        what, &planned);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(planned, 250);
}

// With nothing summed each result is its product, as aten's einsum
// multiplies: -0.0 stays -0.0.
TEST_F(ContractionTest, OuterProductsKeepTheSignOfZero) {
  const at::Tensor a = at::tensor({-1.0f, 1.0f}), b = at::tensor({0.0f, 2.0f});
  const at::Tensor expected = at::einsum("i,j->ij", {a, b});
  auto c = Contraction::plan(schema_of("aten::einsum"), einsum_args("i,j->ij", a, b), expected);
  ASSERT_TRUE(c.ok()) << c.status();
  const at::Tensor got = run(*c, a, b);
  EXPECT_TRUE(std::signbit(got[0][0].item<float>()));
  EXPECT_EQ(std::signbit(got[0][0].item<float>()), std::signbit(expected[0][0].item<float>()));
}

TEST_F(ContractionTest, ImplicitOutputIsAlphabeticalUpperCaseFirst) {
  const at::Tensor a = at::randn({2, 3, 4}), b = at::randn({4, 5});
  expect_einsum("bAc,cZ", a, b, 2);
  expect_einsum("ij,jk", at::randn({3, 4}), at::randn({4, 5}), 0);
}

TEST_F(ContractionTest, RefusesWhatItDoesNotReproduce) {
  const at::Tensor a = at::randn({3, 3}), b = at::randn({3});
  const auto refuse = [&](const std::string& equation, const at::Tensor& x, const at::Tensor& y,
                          const char* why) {
    const at::Tensor expected = at::einsum(equation, {x, y});
    auto c = Contraction::plan(schema_of("aten::einsum"), einsum_args(equation, x, y), expected);
    ASSERT_FALSE(c.ok()) << equation;
    EXPECT_THAT(std::string(c.status().message()), ::testing::HasSubstr(why));
  };
  refuse("ii,i->i", a, b, "repeated");
  refuse("...j,j->...", a, b, "'...'");
  refuse("ij,j->i", a.to(at::kLong), b.to(at::kLong), "float or double");
  // Three operands, and a path.
  auto three = Contraction::plan(
      schema_of("aten::einsum"),
      {c10::IValue("i,i,i->"), c10::IValue(c10::List<at::Tensor>({b, b, b})), c10::IValue()},
      at::einsum("i,i,i->", {b, b, b}));
  EXPECT_FALSE(three.ok());
  auto path = Contraction::plan(
      schema_of("aten::einsum"),
      {c10::IValue("ij,j->i"), c10::IValue(c10::List<at::Tensor>({a, b})),
       c10::IValue(std::vector<int64_t>{0, 1})},
      at::einsum("ij,j->i", {a, b}));
  EXPECT_FALSE(path.ok());
  // A result other than aten's.
  auto wrong = Contraction::plan(schema_of("aten::einsum"), einsum_args("ij,j->i", a, b),
                                 at::zeros({3}) + 1e3);
  EXPECT_FALSE(wrong.ok());
}

TEST_F(ContractionTest, MatchesOnlyTheLayoutItWasPlannedFor) {
  const at::Tensor a = at::randn({4, 3}), b = at::randn({3, 5});
  auto c = Contraction::plan(schema_of("aten::tensordot"),
                             {a, b, std::vector<int64_t>{1}, std::vector<int64_t>{0}},
                             at::tensordot(a, b, {1}, {0}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->matches(at::randn({4, 3}), b));
  EXPECT_FALSE(c->matches(at::randn({3, 4}).t(), b));         // other strides
  EXPECT_FALSE(c->matches(at::randn({5, 3}), b));             // other sizes
  EXPECT_FALSE(c->matches(at::randn({4, 3}, at::kDouble), b));  // other dtype
}

}  // namespace
}  // namespace fx
