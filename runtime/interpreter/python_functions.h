// Copyright 2026 The FX for C++ Authors.
//
// python_functions.h: Python-level functions that torch.fx's symbolic_trace
// records and that no aten operator takes as recorded, as operators of the
// `fx_python` namespace whose schemas are the Python signatures.
//
//   F.softmax(x, dim=1, _stacklevel=5, dtype=None)   fx_python::softmax
//   F.relu(x, inplace=True)                          fx_python::relu.inplace
//   x.float()                                        fx_python::Tensor_float
//   torch.norm(x, p=2, dim=1, keepdim=False, out=None, dtype=None)
//                                                    fx_python::norm
//   F.max_pool2d(x, 2, stride=None, ..., return_indices=False)
//                                                    fx_python::max_pool2d
//
// Each runs what the Python function runs (torch 1.13's torch/nn/functional.py
// and torch/functional.py), by the aten operators it calls; what the Python
// function would compute differently (an `out=` tensor) is refused. Being
// operators, they bind a node's arguments as they are, in the Interpreter and
// in the execution plan alike; node_calls.cc's resolve_call picks them.
#ifndef FX_RUNTIME_INTERPRETER_PYTHON_FUNCTIONS_H_
#define FX_RUNTIME_INTERPRETER_PYTHON_FUNCTIONS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// The namespace of the operators below.
inline constexpr absl::string_view kPythonFunctionNamespace = "fx_python";

// The fx_python operators (without overload) a call_function target or a
// call_method name means, to try before aten's of the same name; empty when
// none. `method` is true for call_method names (`float`, `norm`).
FX_API std::vector<std::string> python_function_operators(absl::string_view target, bool method);

// Whether the operator named `schema_name` ("fx_python::relu") takes
// `inplace` and has an `.inplace` overload, chosen by the literal the node
// gives for it.
FX_API bool has_inplace_overload(absl::string_view schema_name);

}  // namespace fx

#endif  // FX_RUNTIME_INTERPRETER_PYTHON_FUNCTIONS_H_
