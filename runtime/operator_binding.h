// Copyright 2026 The FX for C++ Authors.
//
// operator_binding.h: finding a TorchScript operator for a call_function or
// call_method node and binding argument values to its schema.
//
// Used by the Interpreter (to run nodes) and by the tracer (to read schemas).
// An operator is looked up once per node; binding then places positional and
// keyword values in schema order, fills defaults and coerces values the way
// Python does (an int where a float is expected, one int for `int[2]`, extra
// positional ints packed into a trailing `int[]` as in `x.permute(0, 2, 1)`).
// What reads TorchScript's operator registry (find_operator, find_overloads,
// BoundOperator's run, operation and is_random) is defined in
// runtime/torchscript/operator_registry.cc; this header includes no
// TorchScript header.
#ifndef FX_RUNTIME_OPERATOR_BINDING_H_
#define FX_RUNTIME_OPERATOR_BINDING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace torch {
namespace jit {
struct Operator;
}  // namespace jit
}  // namespace torch

namespace fx {

// Evaluated keyword arguments, in a node's order.
using IValueKwargs = std::vector<std::pair<std::string, c10::IValue>>;

// A resolved operator: its schema and how to call it.
struct FX_API BoundOperator {
  std::shared_ptr<torch::jit::Operator> op;
  const c10::FunctionSchema* schema = nullptr;
  // Runs the operator on a stack of schema-ordered arguments; leaves the returns.
  void run(torch::jit::Stack& stack) const;
  // What run() calls, for callers that keep it (the plan's steps).
  torch::jit::Operation operation() const;
  // Whether libtorch tags the operator nondeterministic_seeded: it draws
  // random numbers (aten::rand, aten::dropout), so two calls with the same
  // arguments may differ.
  bool is_random() const;
  // The qualified name with overload, e.g. "aten::add.Tensor".
  std::string name() const;
};

// The qualified name of a schema's operator with its overload, as graphs spell
// call_function targets: "aten::add.Tensor", "aten::relu" (default overload).
FX_API std::string operator_name(const c10::FunctionSchema& schema);

// The operator named exactly `qualified_name` ("aten::add.Tensor", "aten::relu").
// Fails when this libtorch has no such operator.
FX_API absl::StatusOr<BoundOperator> find_operator(absl::string_view qualified_name);

// The schema of the operator named exactly `qualified_name`: this
// libtorch's, or, for an operator torch.export writes that this libtorch
// lacks (aten::_native_batch_norm_legit_no_training before libtorch 2.1), the
// schema newer libtorch has, for passes that read such programs. Null when
// neither knows it.
FX_API const c10::FunctionSchema* find_schema(absl::string_view qualified_name);

// All overloads of `qualified_name_without_overload` ("aten::add").
FX_API std::vector<BoundOperator> find_overloads(absl::string_view qualified_name_without_overload);

// Where each schema parameter takes its value from, given a call's number of
// positional arguments and its keyword names (the rules bind_arguments
// applies): a positional argument, a keyword argument, the default, or the
// positional arguments [index, end) packed into a list (`x.permute(0, 2, 1)`).
struct FX_API ParamBinding {
  enum Kind { kPositional, kKeyword, kDefault, kPacked };
  Kind kind = kDefault;
  size_t index = 0;  // kPositional, kPacked: first positional; kKeyword: keyword position
  size_t end = 0;    // kPacked: one past the last positional
};
FX_API absl::StatusOr<std::vector<ParamBinding>> bind_positions(
    const c10::FunctionSchema& schema, size_t num_args,
    const std::vector<std::string>& kwarg_names);

// Binds `args` and `kwargs` to `schema`: a stack in schema order, with defaults
// and coercions applied. The error names the argument that does not fit.
FX_API absl::StatusOr<torch::jit::Stack> bind_arguments(const c10::FunctionSchema& schema,
                                                        std::vector<c10::IValue> args,
                                                        const IValueKwargs& kwargs);

// `value` as an IValue of `type` when Python would accept it there (see the
// file comment); an error otherwise.
FX_API absl::StatusOr<c10::IValue> coerce_to_type(c10::IValue value, const c10::TypePtr& type,
                                                  c10::optional<int32_t> list_size = c10::nullopt);

// The message of a libtorch exception without its C++ backtrace. The
// dispatcher's report of an operator with no kernel for a backend (several
// lines listing every backend it has, inside TorchScript's tracebacks when a
// function called it) becomes one line: `libtorch has no kernel of
// aten::roll for the Meta backend`; so does libtorch 2.x's report from the
// Meta backend's fallback (which advises on torch.compile).
FX_API std::string exception_message(const std::exception& e);

// exception_message, and for an error raised inside TorchScript code (whose
// message is "The following operation failed in the TorchScript
// interpreter." and a traceback through the serialized and the original
// code) the error itself: the traceback's last line ("RuntimeError: a leaf
// Variable that requires grad is being used in an in-place operation.").
FX_API std::string script_error_message(const std::exception& e);

}  // namespace fx

#endif  // FX_RUNTIME_OPERATOR_BINDING_H_
