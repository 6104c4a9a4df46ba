// Copyright 2026 The FX for C++ Authors.
//
// The corpus of real models (tests/fixtures/real_models.py): torchvision
// segmentation, video and detection backbones, torch.nn's transformer and RNN
// layers, hand-written blocks with the patterns real code has, seed 003's
// tensor product. Each is traced with the default options and its graph
// called five times, as a server calls a model, with other inputs each time
// (the saved inputs scaled), against the TorchScript module on the same
// inputs, then once by the Interpreter: outputs and inputs mutated in place
// must be equal, as traced and after each pipeline below. Tests below check what some
// of them add: Optional arguments, parameter state, grad mode.
#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>
#include <torch/version.h>

#include <map>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/real_models.h"
#include "core/printer.h"
#include "runtime/plan/execution_plan.h"
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
  testing::expect_serves_like_the_module(*gm, module, inputs, "traced");

  // Each pipeline on a trace of its own: inlining one level and all levels;
  // every call in one spelling (ATen operators, arguments by schema) with the
  // shapes shape_prop records; the CPU speed pipeline (oneDNN post-op fusion of
  // convolutions and linear layers on libtorch 2.x, nothing on 1.13; then
  // elementwise chains).
  for (const char* pipeline :
       {"inline,dce", "inline{recurse=true},dce{submodules=true}",
        "inline{recurse=true},shape_prop,normalize_args",
        "inline{recurse=true},fold_bn,const_fold,cse,dce,shape_prop,mkldnn_fusion,fuse_elementwise,dce"}) {
    auto traced = Tracer(testing::real_model_trace_options(name)).trace(module);
    ASSERT_TRUE(traced.ok()) << traced.status();
    absl::Status ran = testing::run_pipeline(*traced, pipeline, inputs);
    ASSERT_TRUE(ran.ok()) << ran;
    testing::expect_serves_like_the_module(*traced, module, inputs, pipeline);
  }
}

torch::jit::Module load_model(const std::string& name) {
  torch::jit::Module module = testing::load_fixture(name + ".pt");
  module.eval();
  return module;
}

// An Optional argument the model tests for None is traced as given, as
// torch.fx traces it; the graph then checks it is given, so that a call
// without it is refused (naming --concrete-args) instead of computing what
// the model computes for another input.
TEST(OptionalArgumentsTest, TracedAsGivenAndRefusedWithoutIt) {
  struct Case {
    std::string model;
    std::string argument;
    std::vector<c10::IValue> full;  // every argument given
    size_t given_alone;             // how many of `full` a call without the argument passes
  };
  const std::vector<c10::IValue> saved_bias_model =
      testing::load_inputs(testing::fixture_path("optional_default_bias.inputs.pt"));
  const std::vector<Case> cases = {
      {"optional_default_bias", "bias", {saved_bias_model[0], at::randn({4})}, 1},
      {"cross_attention", "context",
       testing::load_inputs(testing::fixture_path("cross_attention.inputs.pt")), 1},
  };
  for (const Case& c : cases) {
    torch::jit::Module module = load_model(c.model);
    auto gm = Tracer().trace(module);
    ASSERT_TRUE(gm.ok()) << c.model << ": " << gm.status();
    testing::expect_runs_like_the_module(*gm, module, c.full, c.model + " given");
    const std::vector<c10::IValue> without(c.full.begin(), c.full.begin() + c.given_alone);
    auto refused = (*gm)(without);
    ASSERT_FALSE(refused.ok()) << c.model << ": a call without " << c.argument
                               << " computed something the model does not";
    EXPECT_THAT(std::string(refused.status().message()),
                ::testing::HasSubstr(absl::StrCat("--concrete-args=", c.argument, "=None")));
  }
}

// A condition on a parameter's dtype (Hugging Face's T5LayerNorm) is decided
// while tracing, from the dtype the parameter has, and checked when the
// graph runs: a module whose weight became half precision is refused.
TEST(ParameterStateTest, ConditionsOnAParametersDtypeAreDecidedAndChecked) {
  torch::jit::Module module = load_model("t5_feed_forward");
  auto gm = Tracer().trace(module);
  ASSERT_TRUE(gm.ok()) << gm.status();
  const std::vector<c10::IValue> inputs =
      testing::load_inputs(testing::fixture_path("t5_feed_forward.inputs.pt"));
  testing::expect_runs_like_the_module(*gm, module, inputs, "float weights");
  // `dtype in [torch.float16, torch.bfloat16]`, which TorchScript compiles to
  // ints, is recorded with dtypes: Python compares a torch.dtype with them.
  const auto contains = gm->graph().find_nodes(Op::kCallFunction, "aten::__contains__.int_list");
  ASSERT_EQ(contains.size(), 1u) << format_graph(gm->graph());
  EXPECT_EQ(contains[0]->args().at(0),
            Argument::List({c10::ScalarType::Half, c10::ScalarType::BFloat16}));
  auto norm = gm->get_submodule("layer_norm");
  ASSERT_TRUE(norm.ok()) << norm.status();
  auto weight = (*norm)->get_attr("weight");
  ASSERT_TRUE(weight.ok()) << weight.status();
  ASSERT_TRUE((*norm)->set_value("weight", weight->toTensor().to(at::kHalf)).ok());
  gm->touch();
  auto plan = ExecutionPlan::compile(*gm);  // reads the parameters afresh
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto refused = (*plan)->run(inputs);
  ASSERT_FALSE(refused.ok()) << "the graph ignored the weight's new dtype";
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("trace the model again"));
}

// `with torch.no_grad():` is traced: the block's operations between grad-mode
// nodes that set it off and restore what it was.
TEST(GradModeTest, NoGradBlocksAreTracedBetweenGradModeNodes) {
  torch::jit::Module module = load_model("no_grad_teacher");
  auto gm = Tracer().trace(module);
  ASSERT_TRUE(gm.ok()) << gm.status();
  std::vector<const Node*> order;
  for (const Node* n : gm->graph().nodes()) {
    if (n->target() == "aten::set_grad_enabled" || n->target() == "teacher") order.push_back(n);
  }
  ASSERT_EQ(order.size(), 3u) << format_graph(gm->graph());
  EXPECT_EQ(order[0]->args().at(0), Argument(false));
  EXPECT_EQ(order[1]->target(), "teacher");
  ASSERT_TRUE(order[2]->args().at(0).is_node());
  EXPECT_EQ(order[2]->args()[0].to_node()->target(), "aten::is_grad_enabled");
  // Run with autograd: grad mode is what it was after the run.
  PlanOptions options;
  options.inference_mode = false;
  auto plan = ExecutionPlan::compile(*gm, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::vector<c10::IValue> inputs =
      testing::load_inputs(testing::fixture_path("no_grad_teacher.inputs.pt"));
  for (bool enabled : {true, false}) {
    c10::AutoGradMode mode(enabled);
    auto out = (*plan)->run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(c10::GradMode::is_enabled(), enabled);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, RealModelsTest,
                         ::testing::ValuesIn(testing::real_model_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace fx
