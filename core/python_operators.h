// Copyright 2026 The FX for C++ Authors.
//
// python_operators.h: Python's operators as graphs name them
// (`operator.add`, `operator.getitem`, `operator.iadd`), looked up in the one
// table, python_operators.def.
//
//   const fx::PythonOperator* op = fx::find_python_operator("operator.floordiv");
//   op->form      // "{} // {}": how the code printer writes it
//   op->aten      // "aten::floor_divide|aten::floordiv": what the runtime calls
//
// Contracts: the table is constant; lookups are thread-safe and allocate
// nothing.
#ifndef FX_CORE_PYTHON_OPERATORS_H_
#define FX_CORE_PYTHON_OPERATORS_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/export.h"

namespace fx {

struct FX_API PythonOperator {
  enum class Kind { kBinary, kUnary, kInplace };
  Kind kind;
  absl::string_view name;       // "add": the target is "operator.add"
  absl::string_view form;       // "{} + {}"
  absl::string_view aten;       // "aten::add" ("" when the runtime computes it natively)
  absl::string_view reflected;  // binary: aten operator for `number op tensor`, operands swapped
  absl::string_view mirror;     // binary: what `number op value` records ("" keeps the order)

  int arity() const { return kind == Kind::kUnary ? 1 : 2; }
};

// The prefix of every Python operator target.
inline constexpr absl::string_view kOperatorModulePrefix = "operator.";

// The operator a call_function target names ("operator.add"), or nullptr.
FX_API const PythonOperator* find_python_operator(absl::string_view target);

// Every entry of the table, in its order.
FX_API absl::Span<const PythonOperator> python_operators();

}  // namespace fx

#endif  // FX_CORE_PYTHON_OPERATORS_H_
