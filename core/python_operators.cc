// Copyright 2026 The FX for C++ Authors.
#include "core/python_operators.h"

#include "absl/strings/strip.h"

namespace fx {
namespace {

constexpr PythonOperator kOperators[] = {
#define FX_PYTHON_BINARY(id, name, form, aten, reflected, mirror) \
  {PythonOperator::Kind::kBinary, name, form, aten, reflected, mirror},
#define FX_PYTHON_UNARY(id, name, form, aten) {PythonOperator::Kind::kUnary, name, form, aten, "", ""},
#define FX_PYTHON_INPLACE(id, name, form, aten) \
  {PythonOperator::Kind::kInplace, name, form, aten, "", ""},
#include "core/python_operators.def"
};

}  // namespace

const PythonOperator* find_python_operator(absl::string_view target) {
  if (!absl::ConsumePrefix(&target, kOperatorModulePrefix)) return nullptr;
  for (const PythonOperator& op : kOperators) {
    if (op.name == target) return &op;
  }
  return nullptr;
}

absl::Span<const PythonOperator> python_operators() { return kOperators; }

}  // namespace fx
