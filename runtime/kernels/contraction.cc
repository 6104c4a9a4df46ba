// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/contraction.h"

#include <algorithm>
#include <optional>
#include <string>

#include <ATen/cpu/vec/vec.h>
#include <ATen/ops/allclose.h>
#include <c10/core/InferenceMode.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fx {
namespace {

// The three tensors of a contraction, as bits of a mask.
enum : int { kA = 1, kB = 2, kOut = 4 };

// Each dimension's label, per operand and for the result.
struct Labels {
  std::vector<int> a, b, out;
};

absl::Status unsupported(absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("contraction not compiled: ", why));
}

absl::StatusOr<std::vector<int>> einsum_operand(absl::string_view subscripts, int64_t dim) {
  std::vector<int> labels;
  for (char c : subscripts) {
    if (c == ' ') continue;
    if (c == '.') return unsupported("'...' in the equation");
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      return unsupported(absl::StrCat("'", std::string(1, c), "' in the equation"));
    }
    if (std::find(labels.begin(), labels.end(), c) != labels.end()) {
      return unsupported(absl::StrCat("label '", std::string(1, c), "' repeated in an operand"));
    }
    labels.push_back(c);
  }
  if (static_cast<int64_t>(labels.size()) != dim) {
    return unsupported(absl::StrCat("'", subscripts, "' for an operand of ", dim, " dimensions"));
  }
  return labels;
}

absl::StatusOr<Labels> einsum_labels(absl::string_view equation, int64_t a_dim, int64_t b_dim) {
  const size_t arrow = equation.find("->");
  const absl::string_view lhs = equation.substr(0, arrow);
  const size_t comma = lhs.find(',');
  if (comma == absl::string_view::npos || lhs.find(',', comma + 1) != absl::string_view::npos) {
    return unsupported("an equation of other than two operands");
  }
  Labels labels;
  auto a = einsum_operand(lhs.substr(0, comma), a_dim);
  if (!a.ok()) return a.status();
  auto b = einsum_operand(lhs.substr(comma + 1), b_dim);
  if (!b.ok()) return b.status();
  labels.a = *std::move(a);
  labels.b = *std::move(b);
  const auto in_operands = [&](int l) {
    return std::count(labels.a.begin(), labels.a.end(), l) +
           std::count(labels.b.begin(), labels.b.end(), l);
  };
  if (arrow == absl::string_view::npos) {
    // Implicit output: the labels seen once, in alphabetical order
    // (upper case first, as in ASCII).
    for (int l : labels.a) {
      if (in_operands(l) == 1) labels.out.push_back(l);
    }
    for (int l : labels.b) {
      if (in_operands(l) == 1) labels.out.push_back(l);
    }
    std::sort(labels.out.begin(), labels.out.end());
    return labels;
  }
  for (char c : equation.substr(arrow + 2)) {
    if (c == ' ') continue;
    if (!std::isalpha(static_cast<unsigned char>(c)) || in_operands(c) == 0 ||
        std::find(labels.out.begin(), labels.out.end(), c) != labels.out.end()) {
      return unsupported(absl::StrCat("output subscripts '", equation.substr(arrow + 2), "'"));
    }
    labels.out.push_back(c);
  }
  return labels;
}

absl::StatusOr<Labels> tensordot_labels(std::vector<int64_t> dims_a, std::vector<int64_t> dims_b,
                                        int64_t a_dim, int64_t b_dim) {
  if (dims_a.size() != dims_b.size()) return unsupported("dims lists of different lengths");
  const auto normalise = [](std::vector<int64_t>& dims, int64_t rank) {
    for (int64_t& d : dims) {
      if (d < 0) d += rank;
      if (d < 0 || d >= rank) return false;
      if (std::count(dims.begin(), dims.end(), d) > 1) return false;
    }
    return true;
  };
  if (!normalise(dims_a, a_dim) || !normalise(dims_b, b_dim)) {
    return unsupported("dims out of range or repeated");
  }
  Labels labels;
  for (int64_t d = 0; d < a_dim; ++d) {
    labels.a.push_back(static_cast<int>(d));
    if (std::find(dims_a.begin(), dims_a.end(), d) == dims_a.end()) {
      labels.out.push_back(static_cast<int>(d));
    }
  }
  for (int64_t d = 0; d < b_dim; ++d) {
    const auto it = std::find(dims_b.begin(), dims_b.end(), d);
    if (it != dims_b.end()) {
      labels.b.push_back(static_cast<int>(dims_a[it - dims_b.begin()]));
    } else {
      labels.b.push_back(static_cast<int>(a_dim + d));
      labels.out.push_back(static_cast<int>(a_dim + d));
    }
  }
  return labels;
}

// One label of size > 1: its size, and its stride in each tensor (0 where
// the tensor lacks it or broadcasts it).
struct Label {
  int64_t size = 1;
  std::array<int64_t, 3> stride{0, 0, 0};  // a, b, out
  int where = 0;                           // mask of kA, kB, kOut
};

int tensor_index(int bit) { return bit == kA ? 0 : bit == kB ? 1 : 2; }

// The groups of labels: bt, l, k, r (indices into the labels), and the
// tensors each group lives in.
enum Group { kBatch = 0, kRows = 1, kSum = 2, kCols = 3 };
constexpr int kGroupTensors[4] = {kA | kB | kOut, kA | kOut, kA | kB, kB | kOut};

using Order = std::vector<int>;

// Whether `order` of labels nests in tensor `t`'s strides, so that the group
// is one dimension of a view.
bool nests(const Order& order, const std::vector<Label>& labels, int t) {
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const Label& outer = labels[order[i]];
    const Label& inner = labels[order[i + 1]];
    if (outer.stride[t] != inner.stride[t] * inner.size) return false;
  }
  return true;
}

// The orders worth trying for a group: its labels by decreasing stride in
// each tensor it lives in.
std::vector<Order> candidate_orders(const Order& group, const std::vector<Label>& labels,
                                    int tensors) {
  std::vector<Order> orders;
  for (int bit : {kA, kB, kOut}) {
    if (!(tensors & bit)) continue;
    const int t = tensor_index(bit);
    Order order = group;
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return labels[x].stride[t] > labels[y].stride[t]; });
    if (std::find(orders.begin(), orders.end(), order) == orders.end()) orders.push_back(order);
  }
  if (orders.empty()) orders.push_back(group);
  return orders;
}

struct Grouping {
  std::array<Order, 4> groups;
  int copies = 0;  // mask of the tensors that go through scratch
};

// The orders for `groups` needing the fewest copies.
Grouping best_orders(const std::array<Order, 4>& groups, const std::vector<Label>& labels) {
  std::array<std::vector<Order>, 4> candidates;
  for (int g = 0; g < 4; ++g) candidates[g] = candidate_orders(groups[g], labels, kGroupTensors[g]);
  Grouping best;
  bool first = true;
  std::array<size_t, 4> pick{0, 0, 0, 0};
  while (true) {
    int copies = 0;
    for (int g = 0; g < 4; ++g) {
      for (int bit : {kA, kB, kOut}) {
        if ((kGroupTensors[g] & bit) && !nests(candidates[g][pick[g]], labels, tensor_index(bit))) {
          copies |= bit;
        }
      }
    }
    if (first || __builtin_popcount(copies) < __builtin_popcount(best.copies)) {
      first = false;
      best.copies = copies;
      for (int g = 0; g < 4; ++g) best.groups[g] = candidates[g][pick[g]];
    }
    int g = 0;
    while (g < 4 && ++pick[g] == candidates[g].size()) pick[g++] = 0;
    if (g == 4) break;
  }
  return best;
}

int64_t group_size(const Order& group, const std::vector<Label>& labels) {
  int64_t n = 1;
  for (int l : group) n *= labels[l].size;
  return n;
}

// The offsets, in tensor `t`, of every index of `group` (its labels in
// order, the last varying fastest).
std::vector<int64_t> group_offsets(const Order& group, const std::vector<Label>& labels, int t) {
  std::vector<int64_t> offsets = {0};
  for (int l : group) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * labels[l].size);
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < labels[l].size; ++i) next.push_back(base + i * labels[l].stride[t]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

}  // namespace

bool Contraction::is_contraction(const c10::FunctionSchema& schema) {
  return (schema.name() == "aten::einsum" || schema.name() == "aten::tensordot") &&
         schema.overload_name().empty();
}

absl::StatusOr<Contraction> Contraction::plan(const c10::FunctionSchema& schema,
                                              const std::vector<c10::IValue>& args,
                                              const at::Tensor& result) {
  if (!is_contraction(schema)) return unsupported(schema.name());
  const bool einsum = schema.name() == "aten::einsum";
  at::Tensor a, b;
  if (einsum) {
    if (args.size() < 2 || !args[0].isString() || !args[1].isTensorList()) {
      return unsupported("einsum's arguments");
    }
    if (args.size() > 2 && !args[2].isNone()) return unsupported("an einsum path");
    const c10::List<at::Tensor> operands = args[1].toTensorList();
    if (operands.size() != 2) return unsupported("einsum of other than two operands");
    a = operands.get(0);
    b = operands.get(1);
  } else {
    if (args.size() != 4 || !args[0].isTensor() || !args[1].isTensor() || !args[2].isIntList() ||
        !args[3].isIntList()) {
      return unsupported("tensordot's arguments");
    }
    a = args[0].toTensor();
    b = args[1].toTensor();
  }
  for (const at::Tensor* t : std::initializer_list<const at::Tensor*>{&a, &b, &result}) {
    // Parameters keep requires_grad under InferenceMode, where the product
    // records nothing either; outside it a product with .out cannot.
    if (!t->defined() || t->layout() != c10::kStrided ||
        (t->requires_grad() && !c10::InferenceMode::is_enabled()) ||
        (t->scalar_type() != c10::kFloat && t->scalar_type() != c10::kDouble) ||
        t->scalar_type() != a.scalar_type() || t->device() != a.device() ||
        !(t->is_cpu() || t->is_cuda())) {
      return unsupported("operands and result must be float or double tensors of one device");
    }
  }
  if (!result.is_non_overlapping_and_dense()) return unsupported("a result that is not dense");
  absl::StatusOr<Labels> labelled =
      einsum ? einsum_labels(args[0].toStringRef(), a.dim(), b.dim())
             : tensordot_labels(args[2].toIntVector(), args[3].toIntVector(), a.dim(), b.dim());
  if (!labelled.ok()) return labelled.status();

  // Sizes and strides per label; labels of size 1 everywhere are dropped.
  std::vector<int> ids;
  std::vector<Label> labels;
  const auto label_of = [&](int id) -> Label& {
    auto it = std::find(ids.begin(), ids.end(), id);
    if (it != ids.end()) return labels[it - ids.begin()];
    ids.push_back(id);
    labels.emplace_back();
    return labels.back();
  };
  std::vector<int64_t> out_sizes;
  for (int t = 0; t < 2; ++t) {
    const at::Tensor& x = t == 0 ? a : b;
    const std::vector<int>& dims = t == 0 ? labelled->a : labelled->b;
    for (size_t d = 0; d < dims.size(); ++d) {
      Label& l = label_of(dims[d]);
      const int64_t size = x.size(static_cast<int64_t>(d));
      if (size == 0) return unsupported("an empty operand");
      if (size != 1 && l.size != 1 && size != l.size) return unsupported("mismatched sizes");
      l.size = std::max(l.size, size);
      if (size > 1) {
        l.stride[t] = x.stride(static_cast<int64_t>(d));
        l.where |= t == 0 ? kA : kB;
      }
    }
  }
  for (size_t d = 0; d < labelled->out.size(); ++d) {
    Label& l = label_of(labelled->out[d]);
    out_sizes.push_back(l.size);
    if (l.size > 1) {
      l.stride[2] = result.stride(static_cast<int64_t>(d));
      l.where |= kOut;
    }
  }
  if (result.sizes() != at::IntArrayRef(out_sizes)) {
    return unsupported(absl::StrCat("a result of sizes [", absl::StrJoin(result.sizes(), ", "),
                                    "] where [", absl::StrJoin(out_sizes, ", "), "] was expected"));
  }

  // Labels by role; those kept in the output from one operand may instead
  // join the batch (broadcast in the other operand) where that saves a copy.
  std::array<Order, 4> roles;
  std::vector<int> movable;
  for (size_t i = 0; i < labels.size(); ++i) {
    const int where = labels[i].where;
    const int l = static_cast<int>(i);
    if (labels[i].size == 1) continue;
    if (where == (kA | kB | kOut)) {
      roles[kBatch].push_back(l);
    } else if (where == (kA | kOut) || where == (kB | kOut)) {
      roles[where & kA ? kRows : kCols].push_back(l);
      movable.push_back(l);
    } else if (!(where & kOut)) {
      roles[kSum].push_back(l);
    } else {
      return unsupported("an output label in no operand");
    }
  }
  // Moving labels into the batch pays only while each matrix of the product
  // stays small: aten's bmm then runs one loop over all of them (larger ones
  // it multiplies one batch element at a time).
  constexpr int64_t kSmallMatrix = 400;
  Grouping best;
  int best_score = -1;
  const size_t subsets = movable.size() <= 8 ? size_t{1} << movable.size() : 1;
  for (size_t mask = 0; mask < subsets; ++mask) {
    std::array<Order, 4> groups = roles;
    int moved = 0;
    for (size_t m = 0; m < movable.size(); ++m) {
      if (!(mask & (size_t{1} << m))) continue;
      const int l = movable[m];
      Order& from = groups[labels[l].where & kA ? kRows : kCols];
      from.erase(std::find(from.begin(), from.end(), l));
      groups[kBatch].push_back(l);
      ++moved;
    }
    if (moved > 0 && group_size(groups[kRows], labels) * group_size(groups[kSum], labels) *
                             group_size(groups[kCols], labels) >=
                         kSmallMatrix) {
      continue;
    }
    Grouping g = best_orders(groups, labels);
    const int score = __builtin_popcount(g.copies) * 64 + moved;
    if (best_score < 0 || score < best_score) {
      best_score = score;
      best = std::move(g);
    }
  }

  Contraction c;
  c.dtype_ = a.scalar_type();
  c.device_ = a.device();
  c.a_sizes_ = a.sizes().vec();
  c.a_strides_ = a.strides().vec();
  c.b_sizes_ = b.sizes().vec();
  c.b_strides_ = b.strides().vec();
  c.out_sizes_ = std::move(out_sizes);
  c.out_strides_ = result.strides().vec();
  // Each tensor's 3-d view: the groups it holds, in the product's order.
  const auto view_of = [&](int bit, const std::array<int, 3>& order, View3& view, Copy& copy) {
    const int t = tensor_index(bit);
    for (int d = 0; d < 3; ++d) view.sizes[d] = group_size(best.groups[order[d]], labels);
    if (!(best.copies & bit)) {
      for (int d = 0; d < 3; ++d) {
        const Order& g = best.groups[order[d]];
        view.strides[d] = g.empty() ? 1 : labels[g.back()].stride[t];
      }
      return;
    }
    copy.needed = true;
    for (int d = 0; d < 3; ++d) {
      for (int l : best.groups[order[d]]) {
        copy.sizes.push_back(labels[l].size);
        copy.strides.push_back(labels[l].stride[t]);
      }
    }
    view.strides = {view.sizes[1] * view.sizes[2], view.sizes[2], 1};
  };
  view_of(kA, {kBatch, kRows, kSum}, c.a3_, c.copy_a_);
  view_of(kB, {kBatch, kSum, kCols}, c.b3_, c.copy_b_);
  view_of(kOut, {kBatch, kRows, kCols}, c.out3_, c.copy_out_);
  const auto numel = [](const View3& v) { return v.sizes[0] * v.sizes[1] * v.sizes[2]; };
  const int64_t multiply_adds = group_size(best.groups[kBatch], labels) *
                                group_size(best.groups[kRows], labels) *
                                group_size(best.groups[kSum], labels) *
                                group_size(best.groups[kCols], labels);
  if (c.device_.is_cpu() && multiply_adds <= kDirectMultiplyAdds) {
    const auto axis = [&](const Order& order) {
      return Axis{group_offsets(order, labels, 0), group_offsets(order, labels, 1),
                  group_offsets(order, labels, 2)};
    };
    // The inner label: the longest, four times over where the loop along it
    // vectorises (contiguous in the result, contiguous or absent in each
    // operand).
    Order kept;
    for (Group g : {kBatch, kRows, kCols}) kept.insert(kept.end(), best.groups[g].begin(), best.groups[g].end());
    int inner = -1;
    int64_t best_score = 0;
    for (int l : kept) {
      const Label& x = labels[l];
      const bool vectorises = x.stride[2] == 1 && x.stride[0] <= 1 && x.stride[1] <= 1;
      const int64_t score = x.size * (vectorises ? 4 : 1);
      if (score > best_score) {
        best_score = score;
        inner = l;
      }
    }
    Direct& d = c.direct_;
    d.used = true;
    d.sum = axis(best.groups[kSum]);
    d.summed = !best.groups[kSum].empty();
    if (inner >= 0) {
      d.inner_size = labels[inner].size;
      d.inner_a = labels[inner].stride[0];
      d.inner_b = labels[inner].stride[1];
      d.inner_out = labels[inner].stride[2];
      kept.erase(std::find(kept.begin(), kept.end(), inner));
    }
    d.outer = axis(kept);
  }
  if (!c.direct_.used) {  // direct loops read and write in place
    if (c.copy_a_.needed) c.scratch_numel_[kScratchA] = numel(c.a3_);
    if (c.copy_b_.needed) c.scratch_numel_[kScratchB] = numel(c.b3_);
    if (c.copy_out_.needed) c.scratch_numel_[kScratchProduct] = numel(c.out3_);
  }

  // The plan is kept only if it reproduces aten's result on these operands.
  const at::TensorOptions options = at::TensorOptions().dtype(c.dtype_).device(a.device());
  at::Tensor out = at::empty_strided(c.out_sizes_, c.out_strides_, options);
  ScratchTensors scratch;
  for (int s = 0; s < 3; ++s) {
    if (c.scratch_numel_[s] > 0) scratch[s] = at::empty({c.scratch_numel_[s]}, options);
  }
  try {
    c.run(a, b, out, scratch);
    if (!at::allclose(out, result, 1e-4, 1e-5, /*equal_nan=*/true)) {
      return absl::InternalError("contraction not compiled: its result differs from aten's");
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("contraction not compiled: ", e.what()));
  }
  return c;
}

namespace {

// Same sizes, and same strides where the size is not 1 (a size-1
// dimension's stride is never read).
bool same_layout(const at::Tensor& t, const std::vector<int64_t>& sizes,
                 const std::vector<int64_t>& strides) {
  if (t.sizes() != at::IntArrayRef(sizes)) return false;
  const at::IntArrayRef actual = t.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1 && actual[d] != strides[d]) return false;
  }
  return true;
}

}  // namespace

bool Contraction::matches(const at::Tensor& a, const at::Tensor& b) const {
  return a.scalar_type() == dtype_ && b.scalar_type() == dtype_ && a.device() == device_ &&
         b.device() == device_ && same_layout(a, a_sizes_, a_strides_) &&
         same_layout(b, b_sizes_, b_strides_);
}

namespace {

// o[t*so] (= 0 + or +=) x[t*sx] * y[t*sy] for t < n: vectorised where the
// result is contiguous and each operand contiguous or one value.
// kMode: kProduct writes the product (nothing is summed), kFirst adds the
// first product to 0, kNext adds a product to the result so far.
enum SumMode { kProduct, kFirst, kNext };

template <typename T, SumMode kMode>
void multiply_add(T* o, int64_t so, const T* x, int64_t sx, const T* y, int64_t sy, int64_t n) {
  using Vec = at::vec::Vectorized<T>;
  const auto step = [](T acc, T product) {
    return kMode == kProduct ? product : kMode == kFirst ? T(0) + product : acc + product;
  };
  int64_t t = 0;
  if (so == 1 && sx <= 1 && sy <= 1 && sx >= 0 && sy >= 0) {
    const Vec zero(T(0)), xv(*x), yv(*y);
    for (; t + Vec::size() <= n; t += Vec::size()) {
      const Vec p = (sx ? Vec::loadu(x + t) : xv) * (sy ? Vec::loadu(y + t) : yv);
      (kMode == kProduct ? p : kMode == kFirst ? zero + p : Vec::loadu(o + t) + p).store(o + t);
    }
  }
  for (; t < n; ++t) o[t * so] = step(o[t * so], x[t * sx] * y[t * sy]);
}

}  // namespace

template <typename T>
void Contraction::run_direct(const T* a, const T* b, T* out) const {
  const Direct& d = direct_;
  const int64_t n = d.inner_size, sa = d.inner_a, sb = d.inner_b, so = d.inner_out;
  const Axis& outer = d.outer;
  // Sum by sum, in order, into the result: the first product added to 0 (as
  // aten's loop adds it, which makes a product of -0.0 +0.0).
  for (size_t k = 0; k < d.sum.a.size(); ++k) {
    const T* a_k = a + d.sum.a[k];
    const T* b_k = b + d.sum.b[k];
    for (size_t i = 0; i < outer.a.size(); ++i) {
      const T* x = a_k + outer.a[i];
      const T* y = b_k + outer.b[i];
      T* o = out + outer.out[i];
      if (!d.summed) {
        multiply_add<T, kProduct>(o, so, x, sa, y, sb, n);
      } else if (k == 0) {
        multiply_add<T, kFirst>(o, so, x, sa, y, sb, n);
      } else {
        multiply_add<T, kNext>(o, so, x, sa, y, sb, n);
      }
    }
  }
}

void Contraction::run(const at::Tensor& a, const at::Tensor& b, at::Tensor& out,
                      ScratchTensors& scratch) const {
  if (direct_.used) {
    if (dtype_ == c10::kFloat) {
      run_direct<float>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>());
    } else {
      run_direct<double>(a.data_ptr<double>(), b.data_ptr<double>(), out.data_ptr<double>());
    }
    return;
  }
  const auto operand = [](const at::Tensor& x, const View3& view, const Copy& copy,
                          at::Tensor& buffer) {
    if (!copy.needed) return x.as_strided(view.sizes, view.strides);
    buffer.view(copy.sizes).copy_(x.as_strided(copy.sizes, copy.strides));
    return buffer.as_strided(view.sizes, view.strides);
  };
  const at::Tensor a3 = operand(a, a3_, copy_a_, scratch[kScratchA]);
  const at::Tensor b3 = operand(b, b3_, copy_b_, scratch[kScratchB]);
  if (!copy_out_.needed) {
    at::Tensor out3 = out.as_strided(out3_.sizes, out3_.strides);
    at::bmm_out(out3, a3, b3);
    return;
  }
  at::Tensor product = scratch[kScratchProduct].as_strided(out3_.sizes, out3_.strides);
  at::bmm_out(product, a3, b3);
  out.as_strided(copy_out_.sizes, copy_out_.strides)
      .copy_(scratch[kScratchProduct].view(copy_out_.sizes));
}

}  // namespace fx
