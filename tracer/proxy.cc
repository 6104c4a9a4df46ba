// Copyright 2026 The FX for C++ Authors.
#include "tracer/proxy.h"

#include "absl/strings/str_cat.h"

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

Proxy Proxy::operator[](Argument index) const {
  return call_function("operator.getitem", {*this, std::move(index)});
}
Proxy Proxy::operator-() const { return call_function("operator.neg", {*this}); }
Proxy Proxy::operator~() const { return call_function("operator.invert", {*this}); }

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
Proxy Proxy::clamp(Argument min, Argument max) const {
  Kwargs kwargs = {{"min", std::move(min)}};
  if (!max.is_none()) kwargs.emplace_back("max", std::move(max));
  return call_method("clamp", {}, std::move(kwargs));
}
Proxy Proxy::to(c10::ScalarType dtype) const { return call_method("to", {dtype}); }
Proxy Proxy::to(c10::Device device) const { return call_method("to", {device}); }
Proxy Proxy::matmul(const Proxy& other) const { return call_method("matmul", {other}); }

#define FX_PROXY_BINARY_OPERATOR(op, fn)                  \
  Proxy operator op(const Proxy& a, const Proxy& b) {     \
    return a.call_function("operator." fn, {a, b});       \
  }
FX_PROXY_BINARY_OPERATOR(+, "add")
FX_PROXY_BINARY_OPERATOR(-, "sub")
FX_PROXY_BINARY_OPERATOR(*, "mul")
FX_PROXY_BINARY_OPERATOR(/, "truediv")
FX_PROXY_BINARY_OPERATOR(%, "mod")
FX_PROXY_BINARY_OPERATOR(&, "and_")
FX_PROXY_BINARY_OPERATOR(|, "or_")
FX_PROXY_BINARY_OPERATOR(^, "xor")
FX_PROXY_BINARY_OPERATOR(<<, "lshift")
FX_PROXY_BINARY_OPERATOR(>>, "rshift")
FX_PROXY_BINARY_OPERATOR(<, "lt")
FX_PROXY_BINARY_OPERATOR(<=, "le")
FX_PROXY_BINARY_OPERATOR(>, "gt")
FX_PROXY_BINARY_OPERATOR(>=, "ge")
FX_PROXY_BINARY_OPERATOR(==, "eq")
FX_PROXY_BINARY_OPERATOR(!=, "ne")
#undef FX_PROXY_BINARY_OPERATOR

#define FX_PROXY_UNARY_FUNCTION(name) \
  Proxy name(const Proxy& x) { return x.call_function("torch." #name, {x}); }
FX_PROXY_UNARY_FUNCTION(exp)
FX_PROXY_UNARY_FUNCTION(log)
FX_PROXY_UNARY_FUNCTION(log1p)
FX_PROXY_UNARY_FUNCTION(expm1)
FX_PROXY_UNARY_FUNCTION(sin)
FX_PROXY_UNARY_FUNCTION(cos)
FX_PROXY_UNARY_FUNCTION(tan)
FX_PROXY_UNARY_FUNCTION(asin)
FX_PROXY_UNARY_FUNCTION(acos)
FX_PROXY_UNARY_FUNCTION(atan)
FX_PROXY_UNARY_FUNCTION(sinh)
FX_PROXY_UNARY_FUNCTION(cosh)
FX_PROXY_UNARY_FUNCTION(tanh)
FX_PROXY_UNARY_FUNCTION(asinh)
FX_PROXY_UNARY_FUNCTION(acosh)
FX_PROXY_UNARY_FUNCTION(atanh)
FX_PROXY_UNARY_FUNCTION(sigmoid)
FX_PROXY_UNARY_FUNCTION(relu)
FX_PROXY_UNARY_FUNCTION(abs)
FX_PROXY_UNARY_FUNCTION(sqrt)
FX_PROXY_UNARY_FUNCTION(rsqrt)
FX_PROXY_UNARY_FUNCTION(neg)
FX_PROXY_UNARY_FUNCTION(reciprocal)
FX_PROXY_UNARY_FUNCTION(erf)
FX_PROXY_UNARY_FUNCTION(floor)
FX_PROXY_UNARY_FUNCTION(ceil)
FX_PROXY_UNARY_FUNCTION(round)
FX_PROXY_UNARY_FUNCTION(sign)
FX_PROXY_UNARY_FUNCTION(logit)
#undef FX_PROXY_UNARY_FUNCTION

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
Argument list_of(const std::vector<Proxy>& proxies) {
  std::vector<Argument> items(proxies.begin(), proxies.end());
  return Argument::List(std::move(items));
}
}  // namespace

Proxy cat(const std::vector<Proxy>& tensors, int64_t dim) {
  Arguments args = {list_of(tensors)};
  if (dim != 0) args.push_back(dim);
  return tensors.at(0).call_function("torch.cat", std::move(args));
}
Proxy stack(const std::vector<Proxy>& tensors, int64_t dim) {
  Arguments args = {list_of(tensors)};
  if (dim != 0) args.push_back(dim);
  return tensors.at(0).call_function("torch.stack", std::move(args));
}
Proxy sum(const Proxy& x) { return x.call_function("torch.sum", {x}); }
Proxy sum(const Proxy& x, int64_t dim, bool keepdim) {
  Kwargs kwargs = {{"dim", dim}};
  if (keepdim) kwargs.emplace_back("keepdim", true);
  return x.call_function("torch.sum", {x}, std::move(kwargs));
}
Proxy mean(const Proxy& x) { return x.call_function("torch.mean", {x}); }
Proxy mean(const Proxy& x, int64_t dim, bool keepdim) {
  Kwargs kwargs = {{"dim", dim}};
  if (keepdim) kwargs.emplace_back("keepdim", true);
  return x.call_function("torch.mean", {x}, std::move(kwargs));
}
Proxy topk(const Proxy& x, int64_t k) { return x.call_function("torch.topk", {x, k}); }
Proxy softmax(const Proxy& x, int64_t dim) {
  return x.call_function("torch.softmax", {x}, {{"dim", dim}});
}
Proxy log_softmax(const Proxy& x, int64_t dim) {
  return x.call_function("torch.log_softmax", {x}, {{"dim", dim}});
}
Proxy clamp(const Proxy& x, Argument min, Argument max) {
  Kwargs kwargs = {{"min", std::move(min)}};
  if (!max.is_none()) kwargs.emplace_back("max", std::move(max));
  return x.call_function("torch.clamp", {x}, std::move(kwargs));
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
