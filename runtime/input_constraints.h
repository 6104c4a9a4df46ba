// Copyright 2026 The FX for C++ Authors.
//
// input_constraints.h: the input shapes a graph read from a torch.export
// program accepts, checked before each run.
//
// A program exported with `dynamic_shapes` has sizes that are symbols
// (`s0`) with ranges (`s0` in [2, 64]) and sizes fixed at export; ep.module()
// refuses inputs outside them before running anything, since the program's
// operators were specialised for them. The reader records them in graph meta
// (`input_constraints`, core/well_known.h); the plan and the Interpreter
// check them here.
//
//   auto constraints = fx::InputConstraints::from_graph(gm.graph());
//   if (absl::Status s = constraints->check(inputs); !s.ok()) ...
//   // input 0 ('x'): dimension 0 is 100, outside [2, 64], the range of s0
//
// Contracts:
//   * A dimension written as an integer must be that integer; one that is a
//     symbol takes its value from the first input dimension that is that
//     symbol alone, must lie in the symbol's range, and must equal it
//     wherever else it appears; an expression (`2*s0`) must equal its value,
//     and one whose value cannot be computed (it overflows, divides by zero)
//     is an error naming the dimension: no input can have that size.
//   * Expressions the reader cannot evaluate (core/sym_expr.h)
//     are not checked; unchecked() lists them, so that whoever reads the
//     program can say so.
//   * Inputs that are not tensors, and inputs beyond those given (defaults),
//     are not checked here.
//   * A graph without the meta key has no constraints; check() is then free.
#ifndef FX_RUNTIME_INPUT_CONSTRAINTS_H_
#define FX_RUNTIME_INPUT_CONSTRAINTS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph.h"
#include "core/sym_expr.h"

namespace fx {

class InputConstraints {
 public:
  static absl::StatusOr<InputConstraints> from_graph(const Graph& graph);

  bool empty() const { return inputs_.empty(); }
  absl::Status check(const std::vector<c10::IValue>& inputs) const;
  // "x: dimension 1 (Mod(s0, 3))" for each size that is not checked.
  const std::vector<std::string>& unchecked() const { return unchecked_; }

 private:
  struct Dim {
    std::optional<int64_t> value;                  // a fixed size
    std::shared_ptr<const SymExpr> expr;  // or a symbolic one
    std::string text;                              // as printed
  };
  struct Input {
    size_t index = 0;
    std::string placeholder;
    std::vector<Dim> dims;
  };
  std::vector<Input> inputs_;
  std::map<std::string, std::pair<std::optional<int64_t>, std::optional<int64_t>>> ranges_;
  std::vector<std::string> unchecked_;
};

}  // namespace fx

#endif  // FX_RUNTIME_INPUT_CONSTRAINTS_H_
