// Copyright 2026 The FX for C++ Authors.
//
// proxy.h: Proxy, a stand-in for a value while C++ code builds a graph.
//
// torch.fx records a program by running it on Proxies: every operation on a
// Proxy appends a node to a graph and returns a Proxy for the result. This is
// the same in C++. Seed 003's hand-built graph:
//
//   fx::Graph graph;
//   fx::GraphAppendingTracer tracer(graph);
//   fx::Proxy x1(graph.placeholder("x1"), &tracer);
//   fx::Proxy x2 = x1 + x1;   // %add   = call_function[target=operator.add]
//   fx::Proxy x3 = x2 * x1;   // %mul   = call_function[target=operator.mul]
//   fx::Proxy x4 = x3 * x2;   // %mul_1
//   graph.output(x4.node());
//
// What is recorded, as torch.fx records it:
//   * Python's operators (core/python_operators.def): `operator.add`,
//     `operator.lt`, `operator.getitem`, ... through C++'s operators where C++
//     has one, and through fx::py::<name> for all (`py::floordiv(x, 2)`); a
//     number on the left keeps its place (`2 - x` is `operator.sub(2, x)`), and
//     comparisons mirror as Python does (`1 < x` is `operator.gt(x, 1)`);
//   * tensor methods: call_method nodes (`x.view(-1, 4)`, `x.relu()`, and any
//     method with `x.call_method("name", {...})`);
//   * free functions of this header: `torch.<name>` call_function nodes
//     (`fx::exp(x)` is `torch.exp`).
// The free functions are found by argument-dependent lookup, so one generic
// lambda serves both libtorch tensors and Proxies:
//
//   auto f = [](auto x) { return exp(tan(x)); };   // at::exp on tensors,
//                                                  // fx::exp on Proxies
//
// A Proxy converts to an Argument (its node), so Proxies can be passed as args.
#ifndef FX_TRACER_PROXY_H_
#define FX_TRACER_PROXY_H_

#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/export.h"
#include "core/graph.h"

namespace fx {

// What Proxies record through (torch.fx's TracerBase).
class FX_API TracerBase {
 public:
  virtual ~TracerBase() = default;
  // Records one operation and returns its node.
  virtual Node* create_proxy(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                             absl::string_view name = {}) = 0;
};

// Records into an existing graph, at the graph's insertion point
// (torch.fx's GraphAppendingTracer).
class FX_API GraphAppendingTracer : public TracerBase {
 public:
  explicit GraphAppendingTracer(Graph& graph) : graph_(graph) {}
  Node* create_proxy(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                     absl::string_view name = {}) override {
    return graph_.create_node(op, target, std::move(args), std::move(kwargs), name);
  }
  Graph& graph() { return graph_; }

 private:
  Graph& graph_;
};

class FX_API Proxy {
 public:
  // A proxy for `node`'s value, recording through `tracer` (not owned).
  Proxy(Node* node, TracerBase* tracer) : node_(node), tracer_(tracer) {}

  Node* node() const { return node_; }
  TracerBase& tracer() const { return *tracer_; }
  operator Argument() const { return Argument(node_); }  // NOLINT: implicit by design

  // Records `self.<method>(args..., **kwargs)`.
  Proxy call_method(absl::string_view method, Arguments args = {}, Kwargs kwargs = {}) const;
  // Records `<target>(args..., **kwargs)` through this proxy's tracer.
  Proxy call_function(absl::string_view target, Arguments args, Kwargs kwargs = {}) const;

  // `self[index]`, `-self`, `+self`, `~self` (py::getitem, neg, pos, invert).
  Proxy operator[](Argument index) const;
  Proxy operator-() const;
  Proxy operator+() const;
  Proxy operator~() const;

  // Tensor methods (call_method nodes). Sizes and dims are passed on as given.
  template <typename... Ints>
  Proxy view(Ints... sizes) const { return call_method("view", {Argument(sizes)...}); }
  template <typename... Ints>
  Proxy reshape(Ints... sizes) const { return call_method("reshape", {Argument(sizes)...}); }
  template <typename... Ints>
  Proxy permute(Ints... dims) const { return call_method("permute", {Argument(dims)...}); }
  template <typename... Ints>
  Proxy expand(Ints... sizes) const { return call_method("expand", {Argument(sizes)...}); }
  Proxy transpose(int64_t dim0, int64_t dim1) const;
  Proxy t() const;
  Proxy contiguous() const;
  Proxy flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Proxy unsqueeze(int64_t dim) const;
  Proxy squeeze() const;
  Proxy squeeze(int64_t dim) const;
  Proxy size() const;
  Proxy size(int64_t dim) const;
  Proxy dim() const;
  Proxy sum() const;
  Proxy sum(int64_t dim, bool keepdim = false) const;
  Proxy mean() const;
  Proxy mean(int64_t dim, bool keepdim = false) const;
  Proxy relu() const;
  Proxy sigmoid() const;
  Proxy tanh() const;
  Proxy exp() const;
  Proxy log() const;
  Proxy abs() const;
  Proxy neg() const;
  Proxy softmax(int64_t dim) const;
  Proxy clamp(Argument min, Argument max = Argument()) const;
  Proxy to(c10::ScalarType dtype) const;
  Proxy to(c10::Device device) const;
  Proxy matmul(const Proxy& other) const;

 private:
  Node* node_;
  TracerBase* tracer_;
};

// Every Python operator of core/python_operators.def, by name, records
// `operator.<name>`: fx::py::floordiv(x, 2) is `x // 2`, fx::py::pow(x, y) is
// `x ** y`, fx::py::matmul(a, b) is `a @ b` (C++ has no `//`, `**` or `@`).
// A number on the left keeps its place (`py::sub(2, x)` is operator.sub(2, x),
// as torch.fx's reflected methods record it), except for comparisons, which
// Python mirrors: `py::lt(2, x)` is operator.gt(x, 2).
namespace py {
#define FX_PYTHON_BINARY(id, name, form, aten, reflected, mirror) \
  FX_API Proxy id(const Proxy& a, const Proxy& b);                \
  FX_API Proxy id(const Proxy& a, Argument b);                    \
  FX_API Proxy id(Argument a, const Proxy& b);
#define FX_PYTHON_UNARY(id, name, form, aten) FX_API Proxy id(const Proxy& x);
#define FX_PYTHON_INPLACE(id, name, form, aten) FX_API Proxy id(const Proxy& a, Argument b);
#include "core/python_operators.def"
}  // namespace py

// C++'s operators on Proxies record the Python operator of the same meaning
// (X(token, py::name)); this list only maps the spelling.
#define FX_PROXY_BINARY_OPERATORS(X) \
  X(+, add)                          \
  X(-, sub)                          \
  X(*, mul)                          \
  X(/, truediv)                      \
  X(%, mod)                          \
  X(&, and_)                         \
  X(|, or_)                          \
  X(^, xor_)                         \
  X(<<, lshift)                      \
  X(>>, rshift)                      \
  X(<, lt)                           \
  X(<=, le)                          \
  X(>, gt)                           \
  X(>=, ge)                          \
  X(==, eq)                          \
  X(!=, ne)

// One-argument torch functions: X(name) records `torch.<name>`.
#define FX_PROXY_UNARY_FUNCTIONS(X)                                                        \
  X(exp) X(log) X(log1p) X(expm1) X(sin) X(cos) X(tan) X(asin) X(acos) X(atan) X(sinh)    \
  X(cosh) X(tanh) X(asinh) X(acosh) X(atanh) X(sigmoid) X(relu) X(abs) X(sqrt) X(rsqrt)   \
  X(neg) X(reciprocal) X(erf) X(floor) X(ceil) X(round) X(sign) X(logit)

// Proxy op Proxy, Proxy op number, number op Proxy.
#define FX_PROXY_DECLARE_BINARY(op, id)                                            \
  inline Proxy operator op(const Proxy& a, const Proxy& b) { return py::id(a, b); } \
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
  Proxy operator op(const Proxy& a, T b) {                                          \
    return py::id(a, Argument(b));                                                  \
  }                                                                                 \
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
  Proxy operator op(T a, const Proxy& b) {                                          \
    return py::id(Argument(a), b);                                                  \
  }
FX_PROXY_BINARY_OPERATORS(FX_PROXY_DECLARE_BINARY)
#undef FX_PROXY_DECLARE_BINARY

// `x += y` rebinds x to `x + y`, as torch.fx records it (Proxies have no
// in-place operators; py::iadd records operator.iadd explicitly).
#define FX_PROXY_DECLARE_COMPOUND(op, id)                                 \
  inline Proxy& operator op##=(Proxy& a, const Argument& b) { return a = py::id(a, b); }
FX_PROXY_DECLARE_COMPOUND(+, add)
FX_PROXY_DECLARE_COMPOUND(-, sub)
FX_PROXY_DECLARE_COMPOUND(*, mul)
FX_PROXY_DECLARE_COMPOUND(/, truediv)
#undef FX_PROXY_DECLARE_COMPOUND

#define FX_PROXY_DECLARE_UNARY(name) FX_API Proxy name(const Proxy& x);
FX_PROXY_UNARY_FUNCTIONS(FX_PROXY_DECLARE_UNARY)
#undef FX_PROXY_DECLARE_UNARY

FX_API Proxy matmul(const Proxy& a, const Proxy& b);
FX_API Proxy mm(const Proxy& a, const Proxy& b);
FX_API Proxy bmm(const Proxy& a, const Proxy& b);
FX_API Proxy maximum(const Proxy& a, const Proxy& b);
FX_API Proxy minimum(const Proxy& a, const Proxy& b);
FX_API Proxy pow(const Proxy& x, Argument exponent);
FX_API Proxy where(const Proxy& condition, const Proxy& a, const Proxy& b);
FX_API Proxy cat(const std::vector<Proxy>& tensors, int64_t dim = 0);
FX_API Proxy stack(const std::vector<Proxy>& tensors, int64_t dim = 0);
FX_API Proxy sum(const Proxy& x);
FX_API Proxy sum(const Proxy& x, int64_t dim, bool keepdim = false);
FX_API Proxy mean(const Proxy& x);
FX_API Proxy mean(const Proxy& x, int64_t dim, bool keepdim = false);
FX_API Proxy topk(const Proxy& x, int64_t k);
FX_API Proxy softmax(const Proxy& x, int64_t dim);
FX_API Proxy log_softmax(const Proxy& x, int64_t dim);
FX_API Proxy clamp(const Proxy& x, Argument min, Argument max = Argument());
FX_API Proxy flatten(const Proxy& x, int64_t start_dim = 0, int64_t end_dim = -1);
FX_API Proxy transpose(const Proxy& x, int64_t dim0, int64_t dim1);

}  // namespace fx

#endif  // FX_TRACER_PROXY_H_
