// Copyright 2026 The FX for C++ Authors.
//
// real_models.h: the corpus of real models (//tests/fixtures:real_models) as
// the tests see it: the names, and the trace options a model needs.
#ifndef FX_TESTS_TESTING_REAL_MODELS_H_
#define FX_TESTS_TESTING_REAL_MODELS_H_

#include <string>
#include <vector>

#include "tracer/tracer.h"

namespace fx {
namespace testing {

// The models of tests/fixtures/real_models.py, in its order.
const std::vector<std::string>& real_model_names();

// Default options, except where a model needs something a user would give:
// `bool_arg` branches on its argument `use_b`, saved as False, and traces with
// concrete_args use_b=False (as torch.fx does); `optional_default_bias` is
// called without its Optional `bias` and traces with bias=None.
TraceOptions real_model_trace_options(const std::string& name);

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_REAL_MODELS_H_
