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
//   * arithmetic, comparison and indexing operators: `operator.add`, `operator.lt`,
//     `operator.getitem`, ... (a number on the left keeps its place: `2 - x` is
//     `operator.sub(2, x)`);
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
#include "core/graph.h"

namespace fx {

// What Proxies record through (torch.fx's TracerBase).
class TracerBase {
 public:
  virtual ~TracerBase() = default;
  // Records one operation and returns its node.
  virtual Node* create_proxy(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                             absl::string_view name = {}) = 0;
};

// Records into an existing graph, at the graph's insertion point
// (torch.fx's GraphAppendingTracer).
class GraphAppendingTracer : public TracerBase {
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

class Proxy {
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

  // `self[index]`.
  Proxy operator[](Argument index) const;
  Proxy operator-() const;
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

// Python's operators (torch.fx's magic methods). A number on either side.
#define FX_PROXY_BINARY_OPERATOR(op, fn)                                           \
  Proxy operator op(const Proxy& a, const Proxy& b);                                \
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
  Proxy operator op(const Proxy& a, T b) {                                          \
    return a.call_function("operator." fn, {a, Argument(b)});                       \
  }                                                                                 \
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>       \
  Proxy operator op(T a, const Proxy& b) {                                          \
    return b.call_function("operator." fn, {Argument(a), b});                       \
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

// torch functions (call_function `torch.<name>`).
#define FX_PROXY_UNARY_FUNCTION(name) Proxy name(const Proxy& x);
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

Proxy matmul(const Proxy& a, const Proxy& b);
Proxy mm(const Proxy& a, const Proxy& b);
Proxy bmm(const Proxy& a, const Proxy& b);
Proxy maximum(const Proxy& a, const Proxy& b);
Proxy minimum(const Proxy& a, const Proxy& b);
Proxy pow(const Proxy& x, Argument exponent);
Proxy where(const Proxy& condition, const Proxy& a, const Proxy& b);
Proxy cat(const std::vector<Proxy>& tensors, int64_t dim = 0);
Proxy stack(const std::vector<Proxy>& tensors, int64_t dim = 0);
Proxy sum(const Proxy& x);
Proxy sum(const Proxy& x, int64_t dim, bool keepdim = false);
Proxy mean(const Proxy& x);
Proxy mean(const Proxy& x, int64_t dim, bool keepdim = false);
Proxy topk(const Proxy& x, int64_t k);
Proxy softmax(const Proxy& x, int64_t dim);
Proxy log_softmax(const Proxy& x, int64_t dim);
Proxy clamp(const Proxy& x, Argument min, Argument max = Argument());
Proxy flatten(const Proxy& x, int64_t start_dim = 0, int64_t end_dim = -1);
Proxy transpose(const Proxy& x, int64_t dim0, int64_t dim1);

}  // namespace fx

#endif  // FX_TRACER_PROXY_H_
