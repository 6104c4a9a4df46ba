// Copyright 2026 The FX for C++ Authors.
//
// values.h: comparing what a GraphModule computes with what the TorchScript
// module it was traced from computes.
#ifndef FX_TESTS_TESTING_VALUES_H_
#define FX_TESTS_TESTING_VALUES_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "runtime/graph_module.h"

namespace torch {
namespace jit {
struct Module;  // fixtures.h says why this header includes no TorchScript header
}  // namespace jit
}  // namespace torch

namespace fx {
namespace testing {

// True when `a` and `b` have the same structure (tuples, lists) and their
// tensors are allclose; `why` says where they differ.
bool all_close(const c10::IValue& a, const c10::IValue& b, std::string* why);

// Runs the module and, on copies of `inputs`, `gm` three ways: its execution
// plan three times (the first run specialises it, the later ones run its
// compiled steps and reuse its arena) and the Interpreter once. Every
// output, and every input after the run (in-place operations on inputs keep
// their effect), must equal the module's (allclose); gtest failures say
// which run differs, prefixed by `what`.
void expect_runs_like_the_module(GraphModule& gm, torch::jit::Module module,
                                 const std::vector<c10::IValue>& inputs,
                                 const std::string& what = "");
// The same against fixture `fixture` ("m1.pt", loaded by fixtures.h's
// load_fixture).
void expect_runs_like_the_fixture(GraphModule& gm, const std::string& fixture,
                                  const std::vector<c10::IValue>& inputs,
                                  const std::string& what = "");

// As a server calls a model: `calls` calls of `gm` through its execution plan
// (GraphModule::operator(), one plan and its arena for all of them), each
// with other inputs (the floating-point tensors of `inputs` scaled by
// 1 + k/8 at call k; integer and bool tensors, indices and masks, as they
// are), each compared with the module's own run on the same inputs: outputs,
// and inputs after the call. Then the Interpreter once, on `inputs`. A value
// of one call that a later call overwrote (a tensor kept past its run in
// memory the plan reuses) shows as a difference from the module.
void expect_serves_like_the_module(GraphModule& gm, torch::jit::Module module,
                                   const std::vector<c10::IValue>& inputs,
                                   const std::string& what = "", int calls = 5);
// The same against fixture `fixture` ("resnet18.pt").
void expect_serves_like_the_fixture(GraphModule& gm, const std::string& fixture,
                                    const std::vector<c10::IValue>& inputs,
                                    const std::string& what = "", int calls = 5);

// Inputs for a fixture (by file name without ".pt"): an image batch for the
// torchvision models, small tensors for the rest.
std::vector<c10::IValue> example_inputs(const std::string& fixture);

// The tensors of an output: a tensor, or a tuple of tensors.
std::vector<at::Tensor> tensors_of(const c10::IValue& v);

// A copy of `v` with every tensor in it (in tuples, lists, dicts) cloned.
c10::IValue deep_clone(const c10::IValue& v);

// The tuple of inputs saved with torch.save at `path` (a NAME.inputs.pt of
// the corpus), as a list of forward's arguments.
std::vector<c10::IValue> load_inputs(const std::string& path);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_VALUES_H_
