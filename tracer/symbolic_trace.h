// Copyright 2026 The FX for C++ Authors.
//
// symbolic_trace.h: graphs from C++ callables (torch.fx's symbolic_trace of a
// function).
//
// The callable is run once on Proxies (proxy.h), one per named input; what it
// records becomes the graph, and what it returns the output. Seed 000's f:
//
//   auto f = [](auto x) { return exp(tan(x)); };
//   fx::GraphModule gm = fx::symbolic_trace(f, "x");
//   std::cout << gm.code();
//   // def forward(self, x):
//   //     tan = torch.tan(x);  x = None
//   //     exp = torch.exp(tan);  tan = None
//   //     return exp
//   at::Tensor y = f(at::rand({3}));              // the same lambda, eagerly
//   at::Tensor z = (*gm({at::rand({3})})).toTensor();  // the traced graph
//
// The callable may return a Proxy, a std::tuple or std::vector of Proxies, or
// a value that converts to an Argument.
#ifndef FX_TRACER_SYMBOLIC_TRACE_H_
#define FX_TRACER_SYMBOLIC_TRACE_H_

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "runtime/graph_module.h"
#include "tracer/proxy.h"

namespace fx {
namespace symbolic_trace_internal {

inline Argument to_output(const Proxy& p) { return p; }
inline Argument to_output(const std::vector<Proxy>& ps) {
  return Argument::List(std::vector<Argument>(ps.begin(), ps.end()));
}
template <typename... T>
Argument to_output(const std::tuple<T...>& t) {
  return std::apply([](const auto&... e) { return Argument::Tuple({to_output(e)...}); }, t);
}
inline Argument to_output(const Argument& a) { return a; }

template <typename Fn, size_t... I>
auto call_with_proxies(Fn& fn, const std::vector<Proxy>& inputs, std::index_sequence<I...>) {
  return fn(inputs[I]...);
}

}  // namespace symbolic_trace_internal

// Traces `fn` called with one Proxy per name in `input_names` (the
// placeholders, in order) into a GraphModule whose root is an empty module of
// class `SymbolicTraced`.
template <typename Fn, typename... Names>
GraphModule symbolic_trace(Fn&& fn, Names&&... input_names) {
  auto graph = std::make_unique<Graph>();
  GraphAppendingTracer tracer(*graph);
  std::vector<Proxy> inputs;
  for (const std::string& name : {std::string(input_names)...}) {
    inputs.emplace_back(tracer.create_proxy(Op::kPlaceholder, name, {}, {}), &tracer);
  }
  auto result = symbolic_trace_internal::call_with_proxies(
      fn, inputs, std::make_index_sequence<sizeof...(Names)>());
  graph->output(symbolic_trace_internal::to_output(result));
  return GraphModule(empty_module("SymbolicTraced"), std::move(graph), "SymbolicTraced");
}

}  // namespace fx

#endif  // FX_TRACER_SYMBOLIC_TRACE_H_
