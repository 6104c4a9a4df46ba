// Copyright 2026 The FX for C++ Authors.
//
// exec_order_reference.h: the seed's execution order (FSDP's _ExecOrderTracer,
// seed 001) for torchvision's ResNet-18, as tests/fixtures/exec_order_reference.py
// recorded it with the platform's Python, compared with what the exec_order
// tracer extension left in a GraphModule's meta.
#ifndef FX_TESTS_TESTING_EXEC_ORDER_REFERENCE_H_
#define FX_TESTS_TESTING_EXEC_ORDER_REFERENCE_H_

#include "runtime/graph_module.h"

namespace fx {
namespace testing {

// Expects gm.meta()["exec_order"] to hold the seed's module order, parameter
// order and per-module parameter usage for ResNet-18 (gtest failures name the
// first difference).
void expect_seed_exec_order_of_resnet18(const GraphModule& gm);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_EXEC_ORDER_REFERENCE_H_
