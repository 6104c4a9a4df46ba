// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/schema_parsing.h"

#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/mobile/type_parser.h>

namespace fx {

c10::FunctionSchema parse_schema(const std::string& schema) {
  return torch::jit::parseSchema(schema);
}

c10::TypePtr parse_type(const std::string& annotation) { return c10::parseType(annotation); }

}  // namespace fx
