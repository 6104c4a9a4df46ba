// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/mkldnn_kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/stack.h>
#include <ATen/core/symbol.h>
#include <ATen/ops/hardtanh.h>
#include <torch/library.h>
#include <torch/version.h>

#include "runtime/operator_binding.h"
#include "runtime/torchscript/node_operations.h"

namespace fx {
namespace {

uint64_t bits_of(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// TorchScript's MKLDNN clip takes its bounds from attributes of the node that
// calls it; the operation is made once per bounds from a node of a graph of
// its own, and kept. Keyed by the bounds' bit patterns, not the doubles: a
// NaN compares unordered with everything, which broke the map's order (issue
// 54: after one NaN-bounded call, (0, 6) found the NaN bounds' operation).
torch::jit::Operation& clip_operation(double min_val, double max_val) {
  const bool in_place = true;
  static std::mutex mutex;
  static auto* operations = new std::map<std::pair<uint64_t, uint64_t>, torch::jit::Operation>();
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(bits_of(min_val), bits_of(max_val));
  auto it = operations->find(key);
  if (it != operations->end()) return it->second;
  const c10::Symbol kind =
      c10::Symbol::fromQualString(in_place ? "prim::MKLDNNHardTanh_" : "prim::MKLDNNHardTanh");
  TORCH_CHECK(!find_overloads(kind.toQualString()).empty(), "this libtorch (",
              TORCH_VERSION, ") has no ", kind.toQualString(),
              ": run the graph without the mkldnn_layout pass");
  return operations
      ->emplace(key, tensor_node_operation(kind, {{"min_val", min_val}, {"max_val", max_val}}))
      .first->second;
}

// Checks that `self` is an MKLDNN tensor whose channels TorchScript's
// elementwise kernels get right (mkldnn_elementwise_takes_channels).
void check_operand(const at::Tensor& self, const char* name, const char* aten_name) {
  TORCH_CHECK(self.is_mkldnn(), name, " takes an MKLDNN tensor, got one of layout ",
              self.layout(), ": use ", aten_name);
  TORCH_CHECK(self.dim() >= 2 && mkldnn_elementwise_takes_channels(self.size(1)), name,
              " in libtorch ", TORCH_VERSION, " takes tensors whose channels (dimension 1) are a "
              "multiple of ", kMkldnnChannelBlock, ", got sizes ", self.sizes(),
              " (oneDNN pads other channel counts, which TorchScript's kernel gets wrong)");
}

// Clips `self` in place, where TorchScript's kernel is right.
void clip_in_place(const at::Tensor& self, double min_val, double max_val, const char* name) {
  check_operand(self, name, "aten::hardtanh");
  if (std::isnan(min_val) || std::isnan(max_val)) {
    // aten's hardtanh clamps, and a NaN bound makes every element NaN;
    // oneDNN's clip compares with the bounds and gives other values. Computed
    // as aten's, through a strided copy (no model clips with NaN bounds).
    self.copy_(at::hardtanh(self.to_dense(), min_val, max_val).to_mkldnn());
    return;
  }
  torch::jit::Stack stack{self};
  clip_operation(min_val, max_val)(stack);
}

// TorchScript's in-place MKLDNN hardswish (a schema of its own, no
// attributes), found once.
torch::jit::Operation& hardswish_operation() {
  static torch::jit::Operation* operation = [] {
    const c10::Symbol kind = c10::Symbol::fromQualString("prim::MKLDNNHardSwish_");
    const std::vector<BoundOperator> operators = find_overloads(kind.toQualString());
    TORCH_CHECK(!operators.empty(), "this libtorch (", TORCH_VERSION, ") has no ",
                kind.toQualString(), ": run the graph without the mkldnn_layout pass");
    return new torch::jit::Operation(operators.front().operation());
  }();
  return *operation;
}

void hardswish_in_place(const at::Tensor& self, const char* name) {
  check_operand(self, name, "aten::hardswish");
  torch::jit::Stack stack{self};
  hardswish_operation()(stack);
}

}  // namespace

bool mkldnn_elementwise_takes_channels(int64_t channels) {
  // libtorch 1.13's kernel writes a reallocated copy, leaving its input as it
  // was, when oneDNN pads the channels (blocks of 8 or 16 for float32); 2.x's
  // clips the whole physical buffer.
#if TORCH_VERSION_MAJOR >= 2
  return channels > 0;
#else
  return channels > 0 && channels % kMkldnnChannelBlock == 0;
#endif
}

namespace {

at::Tensor hardtanh(const at::Tensor& self, double min_val, double max_val) {
  at::Tensor out = self.clone();
  clip_in_place(out, min_val, max_val, "fx_mkldnn::hardtanh");
  return out;
}

at::Tensor& hardtanh_(at::Tensor& self, double min_val, double max_val) {
  clip_in_place(self, min_val, max_val, "fx_mkldnn::hardtanh_");
  return self;
}

at::Tensor hardswish(const at::Tensor& self) {
  at::Tensor out = self.clone();
  hardswish_in_place(out, "fx_mkldnn::hardswish");
  return out;
}

at::Tensor& hardswish_(at::Tensor& self) {
  hardswish_in_place(self, "fx_mkldnn::hardswish_");
  return self;
}

TORCH_LIBRARY(fx_mkldnn, m) {
  m.def("hardtanh(Tensor self, float min_val, float max_val) -> Tensor", &hardtanh);
  m.def("hardtanh_(Tensor(a!) self, float min_val, float max_val) -> Tensor(a!)", &hardtanh_);
  m.def("hardswish(Tensor self) -> Tensor", &hardswish);
  m.def("hardswish_(Tensor(a!) self) -> Tensor(a!)", &hardswish_);
}

}  // namespace
}  // namespace fx
