// Copyright 2026 The FX for C++ Authors.
//
// corpus.h: every fixture model that traces, with inputs and the trace
// options it needs, for tests that check something of every graph (printed
// code that runs, export, the graph file).
#ifndef FX_TESTS_TESTING_CORPUS_H_
#define FX_TESTS_TESTING_CORPUS_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "tracer/tracer.h"

namespace fx {
namespace testing {

struct CorpusModel {
  std::string name;  // the fixture's file name without ".pt"
  std::vector<c10::IValue> inputs;
  TraceOptions options;
};

// The seed and tracer fixtures, torchvision's classification models
// (ResNet-18 first among them) and the real-model corpus, less the models
// the tracer refuses (real_models_test checks those messages).
std::vector<CorpusModel> traceable_models();

}  // namespace testing
}  // namespace fx

#endif  // FX_TESTS_TESTING_CORPUS_H_
