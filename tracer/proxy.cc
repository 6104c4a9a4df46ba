// Copyright 2026 The FX for C++ Authors.
#include "tracer/proxy.h"

#include "absl/strings/str_cat.h"
#include "core/python_operators.h"

namespace fx {

Proxy Proxy::call_method(absl::string_view method, Arguments args, Kwargs kwargs) const {
  args.insert(args.begin(), Argument(node_));
  return Proxy(tracer_->create_proxy(Op::kCallMethod, method, std::move(args), std::move(kwargs)),
               tracer_);
}

Proxy Proxy::call_function(absl::string_view target, Arguments args, Kwargs kwargs) const {
  return Proxy(
      tracer_->create_proxy(Op::kCallFunction, target, std::move(args), std::move(kwargs)),
      tracer_);
}

Proxy Proxy::operator[](Argument index) const { return py::getitem(*this, std::move(index)); }
Proxy Proxy::operator-() const { return py::neg(*this); }
Proxy Proxy::operator+() const { return py::pos(*this); }
Proxy Proxy::operator~() const { return py::invert(*this); }

Proxy Proxy::transpose(int64_t dim0, int64_t dim1) const {
  return call_method("transpose", {dim0, dim1});
}
Proxy Proxy::t() const { return call_method("t"); }
Proxy Proxy::contiguous() const { return call_method("contiguous"); }
Proxy Proxy::flatten(int64_t start_dim, int64_t end_dim) const {
  return call_method("flatten", {start_dim, end_dim});
}
Proxy Proxy::unsqueeze(int64_t dim) const { return call_method("unsqueeze", {dim}); }
Proxy Proxy::squeeze() const { return call_method("squeeze"); }
Proxy Proxy::squeeze(int64_t dim) const { return call_method("squeeze", {dim}); }
Proxy Proxy::size() const { return call_method("size"); }
Proxy Proxy::size(int64_t dim) const { return call_method("size", {dim}); }
Proxy Proxy::dim() const { return call_method("dim"); }
Proxy Proxy::sum() const { return call_method("sum"); }
Proxy Proxy::sum(int64_t dim, bool keepdim) const {
  return keepdim ? call_method("sum", {dim, true}) : call_method("sum", {dim});
}
Proxy Proxy::mean() const { return call_method("mean"); }
Proxy Proxy::mean(int64_t dim, bool keepdim) const {
  return keepdim ? call_method("mean", {dim, true}) : call_method("mean", {dim});
}
Proxy Proxy::relu() const { return call_method("relu"); }
Proxy Proxy::sigmoid() const { return call_method("sigmoid"); }
Proxy Proxy::tanh() const { return call_method("tanh"); }
Proxy Proxy::exp() const { return call_method("exp"); }
Proxy Proxy::log() const { return call_method("log"); }
Proxy Proxy::abs() const { return call_method("abs"); }
Proxy Proxy::neg() const { return call_method("neg"); }
Proxy Proxy::softmax(int64_t dim) const { return call_method("softmax", {dim}); }
namespace {

// clamp's bounds as torch.fx records them: min always, max when given.
Kwargs clamp_kwargs(Argument min, Argument max) {
  Kwargs kwargs = {{"min", std::move(min)}};
  if (!max.is_none()) kwargs.emplace_back("max", std::move(max));
  return kwargs;
}

}  // namespace

Proxy Proxy::clamp(Argument min, Argument max) const {
  return call_method("clamp", {}, clamp_kwargs(std::move(min), std::move(max)));
}
Proxy Proxy::to(c10::ScalarType dtype) const { return call_method("to", {dtype}); }
Proxy Proxy::to(c10::Device device) const { return call_method("to", {device}); }
Proxy Proxy::matmul(const Proxy& other) const { return call_method("matmul", {other}); }

namespace py {
namespace {

// `a <op> b` with a Proxy on one side; a number on the left of a comparison
// is mirrored as Python does.
Proxy record_binary(absl::string_view name, const Argument& a, const Argument& b,
                    const Proxy& proxy) {
  const PythonOperator* op = find_python_operator(absl::StrCat(kOperatorModulePrefix, name));
  if (!a.is_node() && op != nullptr && !op->mirror.empty()) {
    return proxy.call_function(absl::StrCat(kOperatorModulePrefix, op->mirror), {b, a});
  }
  return proxy.call_function(absl::StrCat(kOperatorModulePrefix, name), {a, b});
}

}  // namespace

#define FX_PYTHON_BINARY(id, name, form, aten, reflected, mirror)                                \
  Proxy id(const Proxy& a, const Proxy& b) { return record_binary(name, a, b, a); }              \
  Proxy id(const Proxy& a, Argument b) { return record_binary(name, a, b, a); }                  \
  Proxy id(Argument a, const Proxy& b) { return record_binary(name, a, b, b); }
#define FX_PYTHON_UNARY(id, name, form, aten) \
  Proxy id(const Proxy& x) { return x.call_function(absl::StrCat(kOperatorModulePrefix, name), {x}); }
#define FX_PYTHON_INPLACE(id, name, form, aten)                                    \
  Proxy id(const Proxy& a, Argument b) {                                           \
    return a.call_function(absl::StrCat(kOperatorModulePrefix, name), {a, std::move(b)}); \
  }
#include "core/python_operators.def"

}  // namespace py

#define FX_PROXY_DEFINE_UNARY(name) \
  Proxy name(const Proxy& x) { return x.call_function("torch." #name, {x}); }
FX_PROXY_UNARY_FUNCTIONS(FX_PROXY_DEFINE_UNARY)
#undef FX_PROXY_DEFINE_UNARY

Proxy matmul(const Proxy& a, const Proxy& b) { return a.call_function("torch.matmul", {a, b}); }
Proxy mm(const Proxy& a, const Proxy& b) { return a.call_function("torch.mm", {a, b}); }
Proxy bmm(const Proxy& a, const Proxy& b) { return a.call_function("torch.bmm", {a, b}); }
Proxy maximum(const Proxy& a, const Proxy& b) { return a.call_function("torch.maximum", {a, b}); }
Proxy minimum(const Proxy& a, const Proxy& b) { return a.call_function("torch.minimum", {a, b}); }
Proxy pow(const Proxy& x, Argument exponent) {
  return x.call_function("torch.pow", {x, std::move(exponent)});
}
Proxy where(const Proxy& condition, const Proxy& a, const Proxy& b) {
  return condition.call_function("torch.where", {condition, a, b});
}

namespace {

// `torch.cat([a, b], dim)` and the like; dim 0 is left out, as Python code would.
Proxy join(absl::string_view target, const std::vector<Proxy>& tensors, int64_t dim) {
  Arguments args = {Argument::List(std::vector<Argument>(tensors.begin(), tensors.end()))};
  if (dim != 0) args.push_back(dim);
  return tensors.at(0).call_function(target, std::move(args));
}

// `torch.sum(x, dim=d)` and the like, with keepdim only when set.
Proxy reduce(absl::string_view target, const Proxy& x, int64_t dim, bool keepdim) {
  Kwargs kwargs = {{"dim", dim}};
  if (keepdim) kwargs.emplace_back("keepdim", true);
  return x.call_function(target, {x}, std::move(kwargs));
}

}  // namespace

Proxy cat(const std::vector<Proxy>& tensors, int64_t dim) { return join("torch.cat", tensors, dim); }
Proxy stack(const std::vector<Proxy>& tensors, int64_t dim) {
  return join("torch.stack", tensors, dim);
}
Proxy sum(const Proxy& x) { return x.call_function("torch.sum", {x}); }
Proxy sum(const Proxy& x, int64_t dim, bool keepdim) { return reduce("torch.sum", x, dim, keepdim); }
Proxy mean(const Proxy& x) { return x.call_function("torch.mean", {x}); }
Proxy mean(const Proxy& x, int64_t dim, bool keepdim) {
  return reduce("torch.mean", x, dim, keepdim);
}
Proxy topk(const Proxy& x, int64_t k) { return x.call_function("torch.topk", {x, k}); }
Proxy softmax(const Proxy& x, int64_t dim) {
  return x.call_function("torch.softmax", {x}, {{"dim", dim}});
}
Proxy log_softmax(const Proxy& x, int64_t dim) {
  return x.call_function("torch.log_softmax", {x}, {{"dim", dim}});
}
Proxy clamp(const Proxy& x, Argument min, Argument max) {
  return x.call_function("torch.clamp", {x}, clamp_kwargs(std::move(min), std::move(max)));
}
Proxy flatten(const Proxy& x, int64_t start_dim, int64_t end_dim) {
  Arguments args = {x};
  if (start_dim != 0 || end_dim != -1) args.push_back(start_dim);
  if (end_dim != -1) args.push_back(end_dim);
  return x.call_function("torch.flatten", std::move(args));
}
Proxy transpose(const Proxy& x, int64_t dim0, int64_t dim1) {
  return x.call_function("torch.transpose", {x, dim0, dim1});
}

}  // namespace fx
