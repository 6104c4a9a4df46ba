// Copyright 2026 The FX for C++ Authors.
//
// The graphs Python's torch.fx.symbolic_trace records (torchvision's
// families at small sizes, modules calling torch.nn.functional's common
// functions), written as graph files by tools/fx_graph_file.py
// (tests/fixtures/torch_fx_graphs.py), read over the scripted model's state:
// each runs like the model through the execution plan call after call and
// through the Interpreter, runs like it after a CPU pipeline, and, saved as
// TorchScript, loads back and runs like it.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/csrc/jit/serialization/import.h>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "runtime/torchscript/script_module.h"
#include "runtime/torchscript/torchscript_export.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/pipelines.h"
#include "tests/testing/values.h"
#include "tools/graph_file.h"

namespace fx {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class TorchFxGraphsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    model_ = testing::load_fixture(GetParam() + ".pt");
    model_.eval();
    inputs_ = testing::load_inputs(testing::fixture_path(GetParam() + ".inputs.pt"));
  }

  // The torch.fx graph, read over the model's state.
  absl::StatusOr<GraphModule> read() {
    const std::string file = GetParam() + ".fx_graph.json";
    const std::string text = read_text(testing::fixture_path(file));
    EXPECT_FALSE(text.empty()) << file;
    return read_graph_file(text, module_from_torchscript(model_).value(), file);
  }

  torch::jit::Module model_;
  std::vector<c10::IValue> inputs_;
};

TEST_P(TorchFxGraphsTest, RunsLikeTheModelCallAfterCall) {
  auto gm = read();
  ASSERT_TRUE(gm.ok()) << gm.status();
  testing::expect_serves_like_the_module(*gm, model_, inputs_, GetParam());
}

TEST_P(TorchFxGraphsTest, RunsLikeTheModelAfterTheCpuPipeline) {
  auto gm = read();
  ASSERT_TRUE(gm.ok()) << gm.status();
  const char* pipeline = "normalize_args,cse,dce,shape_prop,fuse_elementwise,dce";
  absl::Status ran = testing::run_pipeline(*gm, pipeline, inputs_);
  ASSERT_TRUE(ran.ok()) << ran;
  testing::expect_runs_like_the_module(*gm, model_, inputs_, GetParam() + " after " + pipeline);
}

TEST_P(TorchFxGraphsTest, SavedAsTorchScriptRunsLikeTheModel) {
  auto gm = read();
  ASSERT_TRUE(gm.ok()) << gm.status();
  auto exported = export_to_torchscript(*gm);
  ASSERT_TRUE(exported.ok()) << exported.status();
  // Through a file, as PyTorch reads what --save writes.
  std::ostringstream bytes;
  exported->save(bytes);
  std::istringstream in(bytes.str());
  torch::jit::Module loaded = torch::jit::load(in);
  std::vector<c10::IValue> copy;
  for (const c10::IValue& v : inputs_) copy.push_back(testing::deep_clone(v));
  const c10::IValue want = model_.forward(copy);
  copy.clear();
  for (const c10::IValue& v : inputs_) copy.push_back(testing::deep_clone(v));
  const c10::IValue got = loaded.forward(copy);
  std::string why;
  EXPECT_TRUE(testing::all_close(got, want, &why)) << why;
}

INSTANTIATE_TEST_SUITE_P(
    Models, TorchFxGraphsTest,
    ::testing::Values("fx_resnet18", "fx_squeezenet1_1", "fx_densenet_small",
                      "fx_shufflenet_v2_x0_5", "fx_mobilenet_v2", "fx_mobilenet_v3_small",
                      "fx_mnasnet0_5", "fx_regnet_x_400mf",
                      "fx_convnext_small", "fx_vit_small", "fx_swin_small", "fx_maxvit_small",
                      "fx_activations_and_norms", "fx_shapes_and_scalars",
                      "fx_padding_pooling_resizing", "fx_indexing_and_reductions",
                      "fx_basic_indexing"),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace fx
