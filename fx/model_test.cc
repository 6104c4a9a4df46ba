// Copyright 2026 The FX for C++ Authors.
//
// fx::Model as a program that embeds FX for C++ uses it, linked with libfx.so:
// torch.export programs (both layouts) and TorchScript modules loaded, passed,
// run against PyTorch's own outputs, saved and loaded back.
#include "fx/model.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/relu.h>
#include <torch/csrc/jit/serialization/import.h>

#include "absl/strings/str_cat.h"
#include "exported_program/torch_load.h"
#include "fx/model_values.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/pass.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

// The committed programs: torch 2.6 wrote the legacy layout, 2.14 the PT2 archive.
const char* const kProgramFolders[] = {"torch2.6", "torch2.14"};

std::string program_path(const std::string& folder, const std::string& name) {
  return testing::runfile(absl::StrCat("tests/exported_programs/", folder, "/", name, ".pt2"));
}

// The outputs PyTorch saved beside a program (NAME.expected.pt): a list of
// the output's leaves.
std::vector<at::Tensor> saved_outputs(const std::string& folder, const std::string& name) {
  const std::string bytes = testing::read_file(testing::runfile(
      absl::StrCat("tests/exported_programs/", folder, "/", name, ".expected.pt")));
  auto saved = exported::torch_load(bytes, name);
  EXPECT_TRUE(saved.ok()) << saved.status();
  std::vector<at::Tensor> out;
  for (const auto& item : saved->toGenericDict()) {
    if (item.key().toStringRef() != "outputs") continue;
    const c10::IValue& leaves = item.value();
    for (const c10::IValue& v : leaves.isList() ? leaves.toListRef().vec()
                                                : leaves.toTupleRef().elements().vec()) {
      out.push_back(v.toTensor());
    }
  }
  return out;
}

std::vector<at::Tensor> leaves(const c10::IValue& v) {
  std::vector<std::pair<std::string, at::Tensor>> flat;
  flatten_tensors(v, "", flat);
  std::vector<at::Tensor> out;
  for (auto& [name, t] : flat) out.push_back(t);
  return out;
}

at::Tensor only_tensor(const c10::IValue& v) {
  std::vector<at::Tensor> all = leaves(v);
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? at::Tensor() : all[0];
}

void expect_close(const c10::IValue& got, const std::vector<at::Tensor>& want) {
  std::vector<at::Tensor> all = leaves(got);
  ASSERT_EQ(all.size(), want.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_TRUE(at::allclose(all[i], want[i], 1e-4, 1e-5)) << "output " << i;
  }
}

std::string temporary_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ModelTest, AProgramRunsPassesOnItsOwnInputsAndMatchesPyTorch) {
  for (const char* folder : kProgramFolders) {
    SCOPED_TRACE(folder);
    auto model = Model::load(program_path(folder, "conv_net"));
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(model->format(), ModelFormat::kExportedProgram);
    auto inputs = model->example_inputs();
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    ASSERT_EQ(inputs->size(), 1u);
    const std::vector<at::Tensor> want = saved_outputs(folder, "conv_net");
    ASSERT_EQ(want.size(), 1u);

    auto before = model->run(*inputs);
    ASSERT_TRUE(before.ok()) << before.status();
    EXPECT_TRUE(at::allclose(only_tensor(*before), want[0], 1e-4, 1e-5));

    const size_t nodes = model->graph().size();
    ASSERT_TRUE(model->run_passes("fold_bn,const_fold,dce").ok());
    EXPECT_LT(model->graph().size(), nodes) << "fold_bn folded nothing";
    EXPECT_TRUE(model->graph_module().lint().ok());
    auto after = model->run(*inputs);
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_TRUE(at::allclose(only_tensor(*after), want[0], 1e-4, 1e-5));
    EXPECT_THAT(describe_outputs(*after), HasSubstr("output 0: float[1, 8] sum "));
    // Read, passed and run, the program's state is FX's own: no module of it
    // carries TorchScript code, and the GraphModule keeps no TorchScript code.
    for (const auto& [path, m] : model->graph_module().root().named_modules()) {
      EXPECT_EQ(m->code(), nullptr) << "module '" << path << "'";
    }
    EXPECT_EQ(model->graph_module().script_functions(), nullptr);
  }
}

TEST(ModelTest, ASavedProgramLoadsBackWithItsInputsAndTheSameOutputs) {
  for (const char* folder : kProgramFolders) {
    SCOPED_TRACE(folder);
    auto model = Model::load(program_path(folder, "linear_bn"));
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(model->run_passes("fold_bn,dce").ok());
    const std::string saved = temporary_path(absl::StrCat("linear_bn_", folder, ".pt2"));
    ASSERT_TRUE(model->save(saved).ok());
    auto loaded = Model::load(saved);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->format(), ModelFormat::kExportedProgram);
    auto inputs = loaded->example_inputs();
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    auto out = loaded->run(*inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    expect_close(*out, saved_outputs(folder, "linear_bn"));
  }
}

TEST(ModelTest, ATorchScriptModuleNeedsInputsOfTheCallersAndSavesAsTorchScript) {
  const std::string path = testing::fixture_path("m_relu_add.pt");
  auto model = Model::load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->format(), ModelFormat::kTorchScript);
  auto none = model->example_inputs();
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("inputs of your own"));

  const at::Tensor x = at::randn({2, 5});
  auto out = model->run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(only_tensor(*out), at::relu(x) + 1.0));

  ASSERT_TRUE(model->run_passes("inline{recurse=true},dce").ok());
  const std::string saved = temporary_path("m_relu_add_inlined.pt");
  ASSERT_TRUE(model->save(saved).ok());
  // PyTorch's own loader reads it, and it computes the same.
  torch::jit::Module reloaded = torch::jit::load(saved);
  EXPECT_TRUE(at::equal(reloaded.forward({x}).toTensor(), at::relu(x) + 1.0));
}

// Issue 54: a server calls run() on one Model from many threads, the first
// calls on a fresh model and the first after a pass included (each compiles
// the plan: one does, the others wait for it and run it). Every call gets
// what one thread gets. --config=tsan runs it under ThreadSanitizer.
TEST(ModelTest, SixteenThreadsRunOneModelFreshAfterAPassAndWarm) {
  auto program = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(program.ok()) << program.status();
  auto script = Model::load(testing::fixture_path("m_relu_add.pt"));
  ASSERT_TRUE(script.ok()) << script.status();
  auto program_inputs = program->example_inputs();
  ASSERT_TRUE(program_inputs.ok()) << program_inputs.status();
  const at::Tensor want_program = saved_outputs("torch2.14", "conv_net")[0];
  std::vector<at::Tensor> xs;
  for (int i = 0; i < 4; ++i) xs.push_back(at::randn({2, 5}));

  constexpr int kThreads = 16;
  auto call_from_threads = [&](const std::string& phase) {
    std::vector<int> wrong(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 4; ++round) {
          auto a = program->run(*program_inputs);
          const at::Tensor& x = xs[(t + round) % xs.size()];
          auto b = script->run({x});
          if (!a.ok() || !b.ok()) {
            errors[t] = std::string(!a.ok() ? a.status().message() : b.status().message());
            return;
          }
          if (!at::allclose(only_tensor(*a), want_program, 1e-4, 1e-5)) ++wrong[t];
          if (!at::equal(only_tensor(*b), at::relu(x) + 1.0)) ++wrong[t];
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_THAT(wrong, ::testing::Each(0)) << phase;
    EXPECT_THAT(errors, ::testing::Each("")) << phase;
  };
  call_from_threads("fresh");
  call_from_threads("warm");
  ASSERT_TRUE(program->run_passes("fold_bn,const_fold,dce").ok());
  ASSERT_TRUE(script->run_passes("inline{recurse=true},dce").ok());
  call_from_threads("after passes");
}

// Issue 55: a model whose bytes the program already holds (downloaded,
// embedded, decrypted) loads without a file, both kinds, and runs as the
// file does; bytes that are no model are refused as a file's are.
TEST(ModelTest, AModelLoadsFromTheBytesOfItsFile) {
  for (const char* folder : kProgramFolders) {
    SCOPED_TRACE(folder);
    auto model = Model::load_from_bytes(testing::read_file(program_path(folder, "linear_bn")));
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(model->format(), ModelFormat::kExportedProgram);
    auto inputs = model->example_inputs();
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    auto out = model->run(*inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    expect_close(*out, saved_outputs(folder, "linear_bn"));
  }

  auto script = Model::load_from_bytes(testing::read_file(testing::fixture_path("m_relu_add.pt")));
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ(script->format(), ModelFormat::kTorchScript);
  const at::Tensor x = at::randn({2, 5});
  auto out = script->run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(only_tensor(*out), at::relu(x) + 1.0));

  auto empty = Model::load_from_bytes("");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("from memory: no bytes were given"));
  auto garbage = Model::load_from_bytes("hello");
  EXPECT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), HasSubstr("cannot load model from memory"));
  // A cut-short archive is refused, not read past its end.
  std::string cut = testing::read_file(program_path("torch2.14", "conv_net"));
  cut.resize(cut.size() / 2);
  EXPECT_FALSE(Model::load_from_bytes(cut).ok());
}

// A pass of the caller's, given to a PassManager as an object.
class CountCalls : public Pass {
 public:
  explicit CountCalls(int* calls) : calls_(calls) {}
  absl::Status run(GraphModule& gm, PassContext& context) override {
    ++*calls_;
    context.warn(absl::StrCat(gm.graph().size(), " nodes"));
    return absl::OkStatus();
  }

 private:
  int* calls_;
};

TEST(ModelTest, APassManagerOfTheCallersRunsAndItsWarningsAreKept) {
  auto model = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(model.ok()) << model.status();
  int calls = 0;
  PassManager passes{PassManagerOptions()};
  ASSERT_TRUE(passes.add(std::make_unique<CountCalls>(&calls), "count_calls").ok());
  ASSERT_TRUE(model->run_passes(passes).ok());
  EXPECT_EQ(calls, 1);
  ASSERT_FALSE(model->warnings().empty());
  EXPECT_THAT(model->warnings().back(), HasSubstr(" nodes"));
}

TEST(ModelTest, MistakesAreStatusesNamingTheCause) {
  auto missing = Model::load(temporary_path("no_such_model.pt2"));
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_model.pt2"));

  auto empty = Model::load("");
  EXPECT_THAT(empty.status().message(), HasSubstr("model is empty"));

  const std::string not_a_model = temporary_path("not_a_model.pt");
  std::ofstream(not_a_model) << "hello";
  auto garbage = Model::load(not_a_model);
  EXPECT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), HasSubstr("not_a_model.pt"));

  auto model = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(model->run_passes("no_such_pass").message(), HasSubstr("no_such_pass"));

  auto wrong = model->run({at::randn({1, 5})});
  EXPECT_FALSE(wrong.ok());

  EXPECT_THAT(model->save(temporary_path("no_such_dir/out.pt2")).message(),
              HasSubstr("does not exist"));
}

// Issue 54 (5): every method of a moved-from Model dereferenced null. Those
// that return a status say it was moved from; the others show an empty
// model; assigning a Model to it makes it usable again.
TEST(ModelTest, AMovedFromModelSaysSoFromEveryMethod) {
  auto loaded = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Model model = *std::move(loaded);
  const size_t nodes = model.graph().size();
  Model taken = std::move(model);
  EXPECT_EQ(taken.graph().size(), nodes);
  const auto expect_moved_from = [](const absl::Status& s, const char* method) {
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << method << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr("fx::Model::")) << method;
    EXPECT_THAT(s.message(), HasSubstr("was moved from")) << method;
  };
  // The const accessors first, on a Model no mutable accessor has touched.
  const Model& still = model;
  EXPECT_EQ(still.format(), ModelFormat::kTorchScript);
  EXPECT_EQ(still.graph().size(), 0u);
  EXPECT_EQ(still.graph_module().graph().size(), 0u);
  EXPECT_TRUE(still.warnings().empty());
  expect_moved_from(still.example_inputs().status(), "example_inputs");
  expect_moved_from(still.save(temporary_path("moved_from.pt2")), "save");
  EXPECT_FALSE(std::ifstream(temporary_path("moved_from.pt2")).good());
  expect_moved_from(model.run({at::randn({1, 3, 8, 8})}).status(), "run");
  expect_moved_from(model.run_passes("dce"), "run_passes");
  PassManager passes{PassManagerOptions()};
  expect_moved_from(model.run_passes(passes), "run_passes(PassManager&)");
  // The mutable accessors: an empty graph of its own, which does not make
  // the Model usable.
  EXPECT_EQ(model.graph().size(), 0u);
  model.graph().output(Argument::None());
  EXPECT_EQ(model.graph_module().graph().size(), 1u);
  EXPECT_EQ(still.graph().size(), 1u);
  EXPECT_EQ(still.format(), ModelFormat::kTorchScript);
  expect_moved_from(model.run({}).status(), "run after graph()");
  expect_moved_from(model.run_passes("dce"), "run_passes after graph()");
  expect_moved_from(still.save(temporary_path("moved_from.pt")), "save after graph()");
  expect_moved_from(still.example_inputs().status(), "example_inputs after graph()");
  // Another moved-from Model's accessors are not this one's.
  Model other = std::move(taken);
  EXPECT_EQ(taken.graph().size(), 0u);
  // Assigned to, it is that Model.
  model = std::move(other);
  EXPECT_EQ(model.format(), ModelFormat::kExportedProgram);
  EXPECT_EQ(model.graph().size(), nodes);
  auto inputs = model.example_inputs();
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_TRUE(model.run(*inputs).ok());
}

// Issue 55: a program chooses where and how run() runs the model, as fxrun's
// --device and --cuda-graphs do. The meta device stands for another device
// here (it runs what needs no data): the outputs come back there, with the
// shapes of the CPU's.
TEST(ModelTest, RunOptionsChooseTheDeviceAndFollowPasses) {
  auto model = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(model.ok()) << model.status();
  auto inputs = model->example_inputs();
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  auto on_cpu = model->run(*inputs);
  ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();
  EXPECT_TRUE(model->run_options().device.is_cpu());

  PlanOptions meta;
  meta.device = c10::Device(c10::kMeta);
  ASSERT_TRUE(model->set_run_options(meta).ok());
  EXPECT_TRUE(model->run_options().device.is_meta());
  const std::vector<c10::IValue> meta_inputs = to_device(*inputs, meta.device);
  auto on_meta = model->run(meta_inputs);
  ASSERT_TRUE(on_meta.ok()) << on_meta.status();
  EXPECT_TRUE(only_tensor(*on_meta).is_meta());
  EXPECT_EQ(only_tensor(*on_meta).sizes(), only_tensor(*on_cpu).sizes());
  // Inputs left on the CPU are refused, naming the placeholder.
  auto wrong_device = model->run(*inputs);
  ASSERT_FALSE(wrong_device.ok());
  EXPECT_THAT(wrong_device.status().message(), HasSubstr("meta"));

  // A pass changes the graph: the next run compiles it again, on the device
  // chosen.
  ASSERT_TRUE(model->run_passes("fold_bn,const_fold,dce").ok());
  auto after = model->run(meta_inputs);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(only_tensor(*after).is_meta());

  // Back on the CPU, the values are PyTorch's.
  ASSERT_TRUE(model->set_run_options(PlanOptions()).ok());
  auto back = model->run(*inputs);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(at::allclose(only_tensor(*back), saved_outputs("torch2.14", "conv_net")[0], 1e-4, 1e-5));
}

TEST(ModelTest, RunOptionsThisMachineCannotTakeAreRefusedChangingNothing) {
  auto model = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(model.ok()) << model.status();
  auto inputs = model->example_inputs();
  ASSERT_TRUE(inputs.ok()) << inputs.status();

  PlanOptions graphs_on_cpu;
  graphs_on_cpu.cuda_graphs = true;
  absl::Status refused = model->set_run_options(graphs_on_cpu);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("cuda_graphs"));
  EXPECT_FALSE(model->run_options().cuda_graphs);
  EXPECT_TRUE(model->run(*inputs).ok());

  if (!at::hasCUDA()) {
    PlanOptions cuda;
    cuda.device = c10::Device(c10::kCUDA, 0);
    refused = model->set_run_options(cuda);
    EXPECT_FALSE(refused.ok());
    EXPECT_THAT(refused.message(), HasSubstr("CUDA"));
    // (A program's remedy, not only fxrun's flag.)
    EXPECT_THAT(refused.message(), HasSubstr("or run on the CPU"));
    EXPECT_TRUE(model->run_options().device.is_cpu());
    EXPECT_TRUE(model->run(*inputs).ok());
  }

  Model moved = *std::move(model);
  EXPECT_EQ(model->set_run_options(PlanOptions()).code(), absl::StatusCode::kFailedPrecondition);
}

// Issue 54 (13): an undefined tensor given to run() failed inside libtorch
// ("strides() called on an undefined Tensor"), naming no input.
TEST(ModelTest, UndefinedInputTensorsAreRefusedNamingTheInput) {
  auto model = Model::load(testing::fixture_path("m_relu_add.pt"));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<Node*> placeholders = model->graph().placeholders();
  ASSERT_EQ(placeholders.size(), 1u);
  const std::string x = placeholders[0]->name();

  auto plain = model->run({at::Tensor()});
  EXPECT_EQ(plain.status().code(), absl::StatusCode::kInvalidArgument) << plain.status();
  EXPECT_THAT(plain.status().message(),
              HasSubstr(absl::StrCat("input 0 (placeholder '", x, "') is an undefined tensor")));

  c10::List<at::Tensor> list;
  list.push_back(at::randn({2}));
  list.push_back(at::Tensor());
  auto nested = model->run({c10::ivalue::Tuple::create({at::randn({2}), list})});
  EXPECT_EQ(nested.status().code(), absl::StatusCode::kInvalidArgument) << nested.status();
  EXPECT_THAT(nested.status().message(),
              HasSubstr(absl::StrCat("input 0 (placeholder '", x,
                                     "') holds an undefined tensor at [1][1]")));

  // An input past the placeholders has no name to give.
  auto extra = model->run({at::randn({2}), at::Tensor()});
  EXPECT_THAT(extra.status().message(), HasSubstr("input 1 is an undefined tensor"));

  // Defined ones run as before.
  const at::Tensor t = at::randn({2, 5});
  auto out = model->run({t});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(at::equal(only_tensor(*out), at::relu(t) + 1.0));
}

TEST(ModelTest, AFailedSaveLeavesTheFileItWouldReplaceAsItWas) {
  auto model = Model::load(program_path("torch2.14", "conv_net"));
  ASSERT_TRUE(model.ok()) << model.status();
  // An MKLDNN tensor (as mkldnn_layout's reordered weights) is in no file
  // format: writing fails after the file was prepared.
  GraphModule& gm = model->graph_module();
  const std::string name = gm.add_tensor_constant(at::randn({4, 4}).to_mkldnn());
  {
    auto at = gm.graph().inserting_before(gm.graph().output_node());
    gm.graph().get_attr(name);
  }
  for (const char* file : {"kept.pt2", "kept.pt"}) {
    const std::string path = temporary_path(file);
    std::ofstream(path) << "the user's file";
    absl::Status saved = model->save(path);
    EXPECT_FALSE(saved.ok()) << file;
    EXPECT_THAT(saved.message(), HasSubstr("MKLDNN")) << file;
    EXPECT_TRUE(file_text(path) == "the user's file") << file << " was changed";
  }
}

}  // namespace
}  // namespace fx
