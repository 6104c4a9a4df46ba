// Copyright 2026 The FX for C++ Authors.
//
// interpreter.h: runs a GraphModule node by node, on CPU (torch.fx's Interpreter).
//
// Like torch.fx's Interpreter, every node goes through `run_node`, which fetches
// the node's argument values and calls one overridable step per opcode:
// `placeholder`, `get_attr`, `call_function`, `call_method`, `call_module`,
// `output`. Subclass and override a step to observe or change execution:
//
//   class Tracing : public fx::Interpreter {
//     using Interpreter::Interpreter;
//     absl::StatusOr<c10::IValue> run_node(const fx::Node& n) override {
//       std::cout << n.name() << "\n";
//       return Interpreter::run_node(n);
//     }
//   };
//
// How targets run:
//   * call_function `ns::op.overload` (`aten::add.Tensor`): that exact operator,
//     found once per node in TorchScript's operator registry (which holds the
//     dispatcher's operators and TorchScript's builtins such as `aten::len.t`);
//   * Python-level targets (`operator.add`, `torch.exp`, call_method `relu`):
//     the overload of the aten operator of that name that accepts the first
//     call's argument types, resolved once and kept for the node;
//   * a few builtins run natively: `operator.getitem`, `operator.not_`,
//     `operator.pos`, `getattr` (shape, dtype, device, ndim) and `torch._assert`;
//   * call_module: the submodule's TorchScript `forward`;
//   * get_attr: read once per plan from the GraphModule.
// Values live in slots indexed by node position and are released after their
// last use. Errors name the placeholder or the node (and its target) that
// failed; libtorch exceptions become statuses.
#ifndef FX_RUNTIME_INTERPRETER_INTERPRETER_H_
#define FX_RUNTIME_INTERPRETER_INTERPRETER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"
#include "core/graph.h"
#include "runtime/graph_module.h"
#include "runtime/operator_binding.h"

namespace fx {

class FX_API Interpreter {
 public:
  // `module` must outlive the interpreter. The execution plan is built at the
  // first run and rebuilt when the graph changes.
  explicit Interpreter(GraphModule& module);
  virtual ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs the graph: `inputs` bind to the placeholders in order; trailing
  // placeholders with a default value may be left out.
  absl::StatusOr<c10::IValue> run(std::vector<c10::IValue> inputs);

  GraphModule& module() { return module_; }

 protected:
  // Runs one node: fetches its argument values and calls the step for its
  // opcode. Returns the node's value.
  virtual absl::StatusOr<c10::IValue> run_node(const Node& node);

  // The steps (torch.fx's Interpreter methods of the same names).
  // `input` is the caller's value for this placeholder, if any.
  virtual absl::StatusOr<c10::IValue> placeholder(const Node& node,
                                                  std::optional<c10::IValue> input);
  virtual absl::StatusOr<c10::IValue> get_attr(const Node& node);
  virtual absl::StatusOr<c10::IValue> call_function(const Node& node,
                                                    std::vector<c10::IValue> args,
                                                    IValueKwargs kwargs);
  virtual absl::StatusOr<c10::IValue> call_method(const Node& node,
                                                  std::vector<c10::IValue> args,
                                                  IValueKwargs kwargs);
  virtual absl::StatusOr<c10::IValue> call_module(const Node& node,
                                                  std::vector<c10::IValue> args,
                                                  IValueKwargs kwargs);
  virtual absl::StatusOr<c10::IValue> output(const Node& node, c10::IValue value);

  // The values of a node's args and kwargs (torch.fx: fetch_args_kwargs_from_env).
  absl::Status fetch_args(const Node& node, std::vector<c10::IValue>* args,
                          IValueKwargs* kwargs) const;
  // The value a node produced in this run.
  absl::StatusOr<c10::IValue> value_of(const Node& node) const;

 private:
  struct Plan;
  absl::Status build_plan();

  GraphModule& module_;
  std::unique_ptr<Plan> plan_;
  uint64_t plan_version_ = 0;
  // Node values of the current run, indexed by node order.
  std::vector<c10::IValue> env_;
  std::vector<char> has_value_;
  // The caller's inputs of the current run.
  std::vector<c10::IValue> inputs_;
};

}  // namespace fx

#endif  // FX_RUNTIME_INTERPRETER_INTERPRETER_H_
