// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/corpus.h"

#include <torch/csrc/jit/api/module.h>

#include "tests/testing/fixtures.h"
#include "tests/testing/real_models.h"
#include "tests/testing/values.h"

namespace fx {
namespace testing {

std::vector<CorpusModel> traceable_models() {
  std::vector<CorpusModel> out;
  for (const char* name : {"exp_tan", "m1", "m2", "m_relu_add", "multi_io", "my_module",
                           "simple_model", "frozen_linear", "inplace_input", "ops", "train_mode",
                           "uses_pair", "resnet18", "mobilenet_v2", "shufflenet_v2_x1_0",
                           "googlenet"}) {
    out.push_back({name, example_inputs(name), {}});
  }
  CorpusModel leaf{"leaf_function", example_inputs("leaf_function"), {}};
  leaf.options.leaf_functions = {"clip"};
  out.push_back(std::move(leaf));
  for (const std::string& name : real_model_names()) {
    if (!Tracer(real_model_trace_options(name)).trace(load_fixture(name + ".pt")).ok()) {
      continue;  // a refusal
    }
    out.push_back({name, load_inputs(fixture_path(name + ".inputs.pt")),
                   real_model_trace_options(name)});
  }
  return out;
}

}  // namespace testing
}  // namespace fx
