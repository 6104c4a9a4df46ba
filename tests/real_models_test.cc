// Copyright 2026 The FX for C++ Authors.
//
// The corpus of real models (tests/fixtures/real_models.py): torchvision
// segmentation, video and detection backbones, torch.nn's transformer and RNN
// layers, hand-written blocks with the patterns real code has, seed 003's
// tensor product. Each is traced with the default options and its graph run
// against the TorchScript module on the saved inputs, by its execution plan
// and by the Interpreter: outputs and inputs mutated in place must be equal,
// before and after `inline,dce` and
// `inline{recurse=true},dce{submodules=true}`.
#include <ATen/ATen.h>
#include <torch/version.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/real_models.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

// Models the tracer refuses, as Python's torch.fx does, and what the message
// must say. Each refusal names the source line and what to do.
const std::map<std::string, std::string>& refusals() {
  static const auto* table = new std::map<std::string, std::string>{
      // A dict of feature maps as forward's input: its keys, and so the loop
      // over them, are not known while tracing.
      {"feature_pyramid_network", "feature_pyramid_network.py:"},
#if TORCH_VERSION_MAJOR >= 2
      // torchvision 0.21's CorrBlock first checks the feature maps' sizes in a
      // loop over fmap1.shape[-2:] (torch.fx cannot iterate a Proxy either).
      {"raft_small", "in CorrBlock.build_pyramid"},
      // The layers used as the root first canonicalise their masks, whose
      // dtype checks depend on the mask given as input.
      {"transformer_encoder_layer_bf", "torch.nn.functional._canonical_mask"},
      {"transformer_encoder_layer_sf", "torch.nn.functional._canonical_mask"},
      {"transformer_encoder", "torch.nn.functional._canonical_mask"},
#else
      // RAFT's CorrBlock stores its pyramid in a module attribute.
      {"raft_small", "forward assigns module attribute 'corr_pyramid'"},
      // The fast-path checks (`if not src.dim() == 3`) of the layers used as
      // the root (as submodules they are leaves).
      {"transformer_encoder_layer_bf", "transformer.py:"},
      {"transformer_encoder_layer_sf", "transformer.py:"},
      {"transformer_encoder", "transformer.py:"},
#endif
  };
  return *table;
}

class RealModelsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModelsTest, GraphComputesWhatTheModelComputesBeforeAndAfterPasses) {
  const std::string& name = GetParam();
  torch::jit::Module module = testing::load_fixture(name + ".pt");
  module.eval();
  const std::vector<c10::IValue> inputs =
      testing::load_inputs(testing::fixture_path(name + ".inputs.pt"));

  auto gm = Tracer(testing::real_model_trace_options(name)).trace(module);
  if (auto refused = refusals().find(name); refused != refusals().end()) {
    ASSERT_FALSE(gm.ok()) << name << " traces now: take it off the list of refusals";
    EXPECT_THAT(std::string(gm.status().message()), ::testing::HasSubstr(refused->second));
    EXPECT_THAT(std::string(gm.status().message()), ::testing::ContainsRegex("\\.py:[0-9]+:[0-9]+"));
    return;
  }
  ASSERT_TRUE(gm.ok()) << gm.status();
  ASSERT_TRUE(gm->lint().ok()) << gm->lint();
  testing::expect_runs_like_the_module(*gm, module, inputs, "traced");

  for (const char* pipeline : {"inline,dce", "inline{recurse=true},dce{submodules=true}"}) {
    auto traced = Tracer(testing::real_model_trace_options(name)).trace(module);
    ASSERT_TRUE(traced.ok()) << traced.status();
    absl::Status ran = testing::run_pipeline(*traced, pipeline);
    ASSERT_TRUE(ran.ok()) << ran;
    testing::expect_runs_like_the_module(*traced, module, inputs, pipeline);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealModelsTest,
                         ::testing::ValuesIn(testing::real_model_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace fx
