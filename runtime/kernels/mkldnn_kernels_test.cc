// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/mkldnn_kernels.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/hardswish.h>
#include <ATen/ops/hardtanh.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/mkldnn_convolution.h>
#include <ATen/ops/mkldnn_reorder_conv2d_weight.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace {

// A 3x3 convolution of `x` by `w` in oneDNN's blocked layout, as the
// mkldnn_layout pass makes them.
at::Tensor blocked_convolution(const at::Tensor& x, const at::Tensor& w) {
  return at::mkldnn_convolution(
      x.to_mkldnn(), at::mkldnn_reorder_conv2d_weight(w.to_mkldnn(), {1, 1}, {1, 1}, {1, 1}, 1),
      c10::nullopt, {1, 1}, {1, 1}, {1, 1}, 1);
}

TEST(MkldnnKernels, HardtanhIsAtensOnMkldnnTensors) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  const at::Tensor x = at::randn({2, 32, 7, 7}) * 8;
  auto op = find_operator(kMkldnnHardtanh);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{x.to_mkldnn(), 0.0, 6.0};
  op->run(stack);
  const at::Tensor got = stack.back().toTensor();
  ASSERT_TRUE(got.is_mkldnn());
  EXPECT_TRUE(at::equal(got.to_dense(), at::hardtanh(x, 0, 6)));
  // Other bounds are another operation, not the first one's.
  stack = {x.to_mkldnn(), -1.0, 1.0};
  op->run(stack);
  EXPECT_TRUE(at::equal(stack.back().toTensor().to_dense(), at::hardtanh(x, -1, 1)));
}

// 8 channels are padded to a 16-channel block, where libtorch 1.13's kernel
// writes a copy: refused there, not wrong; right from 2.0 on.
TEST(MkldnnKernels, ChannelsThatOneDnnPadsAreRightOrRefused) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  const at::Tensor x = at::randn({1, 3, 16, 16});
  const at::Tensor w = at::randn({8, 3, 3, 3});
  auto op = find_operator(kMkldnnHardtanh);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{blocked_convolution(x, w), 0.0, 6.0};
  if (mkldnn_elementwise_takes_channels(8)) {
    op->run(stack);
    const at::Tensor expected = at::hardtanh(at::conv2d(x, w, {}, 1, 1), 0, 6);
    EXPECT_TRUE(at::allclose(stack.back().toTensor().to_dense(), expected, 1e-4, 1e-4));
    return;
  }
  try {
    op->run(stack);
    FAIL() << "8 channels were accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("a multiple of 16"), std::string::npos) << e.what();
  }
}

// 32 channels from a convolution: no padding, the clip is aten's.
TEST(MkldnnKernels, HardtanhOfAConvolutionsBlockedOutputIsAtens) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  const at::Tensor x = at::randn({1, 3, 16, 16}) * 4;
  const at::Tensor w = at::randn({32, 3, 3, 3});
  auto op = find_operator(kMkldnnHardtanh);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{blocked_convolution(x, w), 0.0, 6.0};
  op->run(stack);
  const at::Tensor expected = at::hardtanh(at::conv2d(x, w, {}, 1, 1), 0, 6);
  EXPECT_TRUE(at::allclose(stack.back().toTensor().to_dense(), expected, 1e-4, 1e-4));
}

TEST(MkldnnKernels, HardtanhInPlaceWritesItsInput) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  c10::InferenceMode guard;
  const at::Tensor x = at::randn({1, 32, 5, 5}) * 8;
  at::Tensor m = x.to_mkldnn();
  auto op = find_operator(kMkldnnHardtanhInPlace);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{m, 0.0, 6.0};
  op->run(stack);
  EXPECT_TRUE(stack.back().toTensor().is_same(m));
  EXPECT_TRUE(at::equal(m.to_dense(), at::hardtanh(x, 0, 6)));
}

// Issue 54 (8): the operations were kept in a map keyed by the bounds as
// doubles, whose order a NaN breaks: after one NaN-bounded call, later calls
// (every ReLU6 of a MobileNet) found the NaN bounds' operation and returned
// NaN. A NaN bound computes what aten's hardtanh computes (NaN everywhere),
// and the calls after it are right.
TEST(MkldnnKernels, NanBoundsAreAtensAndLeaveLaterCallsRight) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  c10::InferenceMode guard;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor x = at::randn({2, 32, 5, 5}) * 8;
  auto op = find_operator(kMkldnnHardtanh);
  auto op_ = find_operator(kMkldnnHardtanhInPlace);
  ASSERT_TRUE(op.ok()) << op.status();
  ASSERT_TRUE(op_.ok()) << op_.status();
  const auto expect_atens = [&](const at::Tensor& got, double lo, double hi) {
    ASSERT_TRUE(got.is_mkldnn());
    EXPECT_TRUE(at::equal(got.to_dense(), at::hardtanh(x, lo, hi)) ||
                (at::isnan(got.to_dense()).all().item<bool>() &&
                 at::isnan(at::hardtanh(x, lo, hi)).all().item<bool>()))
        << "hardtanh(x, " << lo << ", " << hi << ")";
  };
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {nan, 6.0}, {0.0, nan}, {nan, nan}, {0.0, 6.0}, {-2.5, 3.5}, {-1.5, 0.5}}) {
    SCOPED_TRACE(::testing::Message() << lo << ", " << hi);
    torch::jit::Stack stack{x.to_mkldnn(), lo, hi};
    op->run(stack);
    expect_atens(stack.back().toTensor(), lo, hi);
    at::Tensor m = x.to_mkldnn();
    stack = {m, lo, hi};
    op_->run(stack);
    EXPECT_TRUE(stack.back().toTensor().is_same(m));
    expect_atens(m, lo, hi);
  }
  // A ReLU6 after a convolution, in the blocked layout, NaN-bounded and after.
  const at::Tensor input = at::randn({1, 3, 16, 16}) * 4;
  const at::Tensor w = at::randn({32, 3, 3, 3});
  const at::Tensor dense = at::conv2d(input, w, {}, 1, 1);
  for (double lo : {nan, 0.0}) {
    at::Tensor m = blocked_convolution(input, w);
    torch::jit::Stack stack{m, lo, 6.0};
    op_->run(stack);
    if (std::isnan(lo)) {
      EXPECT_TRUE(at::isnan(m.to_dense()).all().item<bool>());
    } else {
      EXPECT_TRUE(at::allclose(m.to_dense(), at::hardtanh(dense, 0, 6), 1e-4, 1e-4));
    }
  }
}

TEST(MkldnnKernels, HardswishIsAtensOnMkldnnTensors) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  const at::Tensor x = at::randn({2, 32, 7, 7}) * 4;
  auto op = find_operator(kMkldnnHardswish);
  ASSERT_TRUE(op.ok()) << op.status();
  const at::Tensor m = x.to_mkldnn();
  torch::jit::Stack stack{m};
  op->run(stack);
  const at::Tensor got = stack.back().toTensor();
  ASSERT_TRUE(got.is_mkldnn());
  EXPECT_FALSE(got.is_same(m));
  EXPECT_TRUE(at::equal(got.to_dense(), at::hardswish(x)));
  EXPECT_TRUE(at::equal(m.to_dense(), x)) << "the out-of-place form wrote its input";
}

TEST(MkldnnKernels, HardswishInPlaceOfAConvolutionsBlockedOutputIsAtens) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch has no MKLDNN";
  c10::InferenceMode guard;
  const at::Tensor x = at::randn({1, 3, 16, 16});
  for (int64_t channels : {8, 24, 32}) {
    SCOPED_TRACE(channels);
    const at::Tensor w = at::randn({channels, 3, 3, 3});
    at::Tensor m = blocked_convolution(x, w);
    auto op = find_operator(kMkldnnHardswishInPlace);
    ASSERT_TRUE(op.ok()) << op.status();
    torch::jit::Stack stack{m};
    if (!mkldnn_elementwise_takes_channels(channels)) {
      EXPECT_THROW(op->run(stack), c10::Error);
      continue;
    }
    op->run(stack);
    EXPECT_TRUE(stack.back().toTensor().is_same(m));
    const at::Tensor expected = at::hardswish(at::conv2d(x, w, {}, 1, 1));
    EXPECT_TRUE(at::allclose(m.to_dense(), expected, 1e-4, 1e-4));
  }
}

TEST(MkldnnKernels, StridedTensorsAreRefusedNamingTheLayout) {
  auto op = find_operator(kMkldnnHardtanh);
  ASSERT_TRUE(op.ok()) << op.status();
  torch::jit::Stack stack{at::ones({3}), 0.0, 6.0};
  try {
    op->run(stack);
    FAIL() << "a strided tensor was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes an MKLDNN tensor"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fx
