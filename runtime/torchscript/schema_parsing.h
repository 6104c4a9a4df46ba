// Copyright 2026 The FX for C++ Authors.
//
// schema_parsing.h: operator schemas and type annotations in TorchScript's
// syntax, read with TorchScript's own parsers, for code of the runtime that
// includes none of their headers (node_calls.cc: the schema of a builtin FX
// runs itself; a placeholder's TorchScript type, to check a caller's input).
//
//   c10::FunctionSchema s = fx::parse_schema("aten::relu(Tensor self) -> Tensor");
//   c10::TypePtr t = fx::parse_type("List[Optional[Tensor]]");
//
// Contracts: both throw on text they do not read, what TorchScript's parsers
// throw (a std::exception: torch::jit::ErrorReport, c10::Error); nothing
// else.
#ifndef FX_RUNTIME_TORCHSCRIPT_SCHEMA_PARSING_H_
#define FX_RUNTIME_TORCHSCRIPT_SCHEMA_PARSING_H_

#include <string>

#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type_base.h>

namespace fx {

// `schema` ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
// -> Tensor") as torch::jit::parseSchema reads it.
c10::FunctionSchema parse_schema(const std::string& schema);

// `annotation` ("Tensor", "int", "List[int]", "Optional[Tensor]",
// "Dict[str, Tensor]", "Tuple[Tensor, int]") as c10::parseType, the type
// parser of TorchScript's mobile format, reads it: some types as mobile's
// DynamicType, whose static form is DynamicType::fallback().
c10::TypePtr parse_type(const std::string& annotation);

}  // namespace fx

#endif  // FX_RUNTIME_TORCHSCRIPT_SCHEMA_PARSING_H_
