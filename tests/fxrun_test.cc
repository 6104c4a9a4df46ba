// Copyright 2026 The FX for C++ Authors.
//
// fxrun end to end: the binary as users run it, its output and its errors.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fx/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::fx::testing::read_file;
using ::fx::testing::read_lines;
using ::fx::testing::runfile;

using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

std::vector<std::string> seed_table() {
  return read_lines(runfile("tests/seeds/000_resnet18_module_paths.txt"));
}

TEST(FxrunTest, WithoutFlagsPrintsResNet18WithModulePaths) {
  Result r = fxrun("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("opcode         name                   target"));
  EXPECT_THAT(r.out, HasSubstr("module_path"));
  EXPECT_THAT(r.out, HasSubstr("call_function  add_7                  aten.add.Tensor"));
  EXPECT_THAT(r.out, HasSubstr("layer4.1\n"));  // add_7's module path, last column
}

TEST(FxrunTest, JsonModulePathsAreTheSeedsTable) {
  Result r = fxrun("--tracer=module_path --emit=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json graph = nlohmann::json::parse(r.out);
  std::vector<std::string> lines;
  for (const auto& node : graph["nodes"]) {
    const std::string path =
        node["meta"].contains("module_path") ? node["meta"]["module_path"].get<std::string>() : "None";
    lines.emplace_back(absl::StripTrailingAsciiWhitespace(
        absl::StrCat("Node ", node["name"].get<std::string>(), " is from module ", path)));
  }
  EXPECT_EQ(lines, seed_table());
  // The encoding of arguments (docs/file-formats.md): node references and literals.
  const auto& flatten = graph["nodes"][68];
  EXPECT_EQ(flatten["name"], "flatten");
  EXPECT_EQ(flatten["op"], "call_function");
  EXPECT_EQ(flatten["target"], "aten::flatten.using_ints");
  EXPECT_EQ(flatten["args"], nlohmann::json::parse(R"([{"node": "avgpool"}, 1])"));
  EXPECT_EQ(flatten["users"], nlohmann::json::parse(R"(["fc"])"));
}

TEST(FxrunTest, ThreeTracerExtensionsInOneRun) {
  const std::string out_path = absl::StrCat(getenv("TEST_TMPDIR"), "/graph.json");
  Result r = fxrun(absl::StrCat("--tracer=module_path,tagging{tag=bar},exec_order --emit=json --output=",
                                out_path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const nlohmann::json graph = nlohmann::json::parse(read_file(out_path));
  const auto& conv1 = graph["nodes"][1];
  EXPECT_EQ(conv1["meta"]["module_path"], "conv1");
  EXPECT_EQ(conv1["meta"]["tag"], "bar");
  EXPECT_EQ(graph["nodes"].back()["meta"]["tag"], "bar");  // the output node too
  const auto& order = graph["meta"]["exec_order"];
  std::vector<std::string> modules = order["module_forward_order"];
  std::vector<std::string> params = order["param_forward_order"];
  EXPECT_THAT(std::vector<std::string>(modules.begin(), modules.begin() + 8),
              ElementsAre("", "conv1", "bn1", "relu", "maxpool", "layer1", "layer1.0",
                          "layer1.0.conv1"));
  EXPECT_THAT(std::vector<std::string>(params.begin(), params.begin() + 3),
              ElementsAre("conv1.weight", "bn1.weight", "bn1.bias"));
}

TEST(FxrunTest, PrintForms) {
  Result graph = fxrun("--model=" + runfile("tests/fixtures/m_relu_add.pt") + " --print=graph");
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_EQ(graph.out,
            "graph():\n"
            "    %x : [num_users=1] = placeholder[target=x]\n"
            "    %relu : [num_users=1] = call_module[target=relu](args = (%x,), kwargs = {})\n"
            "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Scalar](args = (%relu, 1.0), kwargs = {})\n"
            "    return add\n");
  Result code = fxrun("--model=" + runfile("tests/fixtures/m_relu_add.pt") + " --print=code");
  EXPECT_EQ(code.out,
            "def forward(self, x):\n"
            "    relu = self.relu(x);  x = None\n"
            "    add = torch.ops.aten.add.Scalar(relu, 1.0);  relu = None\n"
            "    return add\n");
  Result none = fxrun("--print=none");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_TRUE(none.out.empty());
}

TEST(FxrunTest, InlineAndDcePipelineShowsTheInlinedCode) {
  Result r = fxrun("--model=" + runfile("tests/fixtures/m_relu_add.pt") +
                   " --passes=inline,dce --print=code");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "def forward(self, x):\n"
            "    relu_1 = torch.nn.functional.relu(x, inplace = False);  x = None\n"
            "    add = torch.ops.aten.add.Scalar(relu_1, 1.0);  relu_1 = None\n"
            "    return add\n");
}

TEST(FxrunTest, WithoutFlagsAlsoRunsAndChecksResNet18) {
  Result r = fxrun("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("run on cpu: x float[1, 3, 224, 224]\noutput 0: float[1, 1000]"));
  EXPECT_THAT(r.out, HasSubstr("check: max abs difference"));
  EXPECT_THAT(r.out, HasSubstr("latency: median"));
}

TEST(FxrunTest, RunChecksTheGraphAfterPassesAgainstTheModel) {
  Result r = fxrun("--passes=inline,dce --check --repeat=3 --warmup=1 --print=none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("): ok\n"));
  EXPECT_THAT(r.out, HasSubstr("over 3 run(s) after 1 warmup"));
  // A pass that changes what the model computes is caught.
  Result broken = fxrun("--model=" + runfile("tests/fixtures/exp_tan.pt") +
                        " --passes=invert --check --input-shape=3,4 --print=none");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.err, StartsWith("fxrun: error: --check: output 0 differs from the original"));
  // The run's report goes to stderr when stdout carries JSON.
  Result json = fxrun("--model=" + runfile("tests/fixtures/exp_tan.pt") +
                      " --emit=json --run --input-shape=3,4");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, StartsWith("{"));
  EXPECT_THAT(json.err, HasSubstr("output 0: float[3, 4]"));
}

TEST(FxrunTest, RunFlagErrors) {
  const std::string model = " --model=" + runfile("tests/fixtures/exp_tan.pt") + " --print=none";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--run", "--run needs inputs for forward's x: --input-shape="},
      {"--device=cpu", "--device is for running the graph: add --run"},
      {"--run --input-shape=3,x", "bad size 'x' in --input-shape '3,x'"},
      {"--run --input-shape=bf17:3", "unknown dtype 'bf17'"},
      {"--run --device=tpu --input-shape=3", "unknown device 'tpu': use cpu, cuda, cuda:N or meta"},
      {"--run --input-shape=3 --input=x.pt", "give one of them"},
      {"--run --input=/no/such/inputs.pt", "cannot read --input /no/such/inputs.pt: No such file"},
      {"--run --input-shape=3,4 --repeat=0", "--repeat takes a count of at least 1"},
      {"--check --device=meta --input-shape=3,4", "the meta device has none"},
      {"--run '--input-shape=3,4;3,4'", "forward takes 1 input(s) (x) but 2 were given"},
  };
  for (const auto& [flags, message] : cases) {
    Result r = fxrun(flags + model);
    EXPECT_EQ(r.exit_code, 1) << flags;
    EXPECT_THAT(r.err, HasSubstr(message)) << flags;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
  // Refused on a machine without CUDA: a CPU libtorch says how to get one, a
  // CUDA libtorch (the trixie-cuda lane) that no GPU is present. One line.
  Result cuda = fxrun("--run --device=cuda:0 --input-shape=3,4" + model);
  if (cuda.exit_code == 1) {
    EXPECT_THAT(cuda.err, ::testing::AnyOf(HasSubstr("FX_LIBTORCH_HOME"),
                                           HasSubstr("but no CUDA device is present")));
    EXPECT_EQ(std::count(cuda.err.begin(), cuda.err.end(), '\n'), 1) << cuda.err;
  }
  // An operator failing inside a submodule: the node and TorchScript's reason,
  // not its tracebacks.
  Result shape = fxrun("--run --input-shape=3,4 --print=none");
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_THAT(shape.err, StartsWith("fxrun: error: node 'conv1' (call_module conv1): RuntimeError: "
                                    "Expected 3D (unbatched) or 4D (batched) input to conv2d"));
}

TEST(FxrunTest, ShapePropShowsShapesInTheTableAndTheJson) {
  Result table = fxrun("--passes=shape_prop --input-shape=1,3,224,224");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::vector<std::string> lines = absl::StrSplit(table.out, '\n');
  EXPECT_THAT(lines[0], ::testing::EndsWith("module_path            shape              dtype"));
  EXPECT_THAT(table.out, HasSubstr("{}        conv1                  [1, 64, 112, 112]  torch.float32\n"));
  EXPECT_THAT(table.out, HasSubstr("{}        layer4.1               [1, 512, 7, 7]     torch.float32\n"));
  EXPECT_THAT(table.out, HasSubstr("{}                               [1, 1000]          torch.float32\n"));

  // The JSON carries the whole tensor_meta; the meta device gives the same.
  Result cpu = fxrun("--passes=shape_prop --input-shape=2,3,64,64 --emit=json");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  const nlohmann::json real = nlohmann::json::parse(cpu.out);
  EXPECT_EQ(real["nodes"][1]["meta"]["tensor_meta"],
            nlohmann::json::parse(R"({"shape": [2, 64, 32, 32], "dtype": "torch.float32",
              "requires_grad": true, "stride": [65536, 1024, 32, 1],
              "memory_format": "torch.contiguous_format", "is_quantized": false,
              "device": "cpu"})"));
  EXPECT_EQ(real["meta"]["shape_prop"],
            nlohmann::json::parse(R"({"device": "cpu", "fallback_nodes": []})"));
  Result meta = fxrun("--passes='shape_prop{device=meta}' --input-shape=2,3,64,64 --emit=json");
  ASSERT_EQ(meta.exit_code, 0) << meta.err;
  EXPECT_TRUE(meta.err.empty()) << meta.err;  // nothing fell back
  const nlohmann::json shapes = nlohmann::json::parse(meta.out);
  EXPECT_EQ(shapes["meta"]["shape_prop"]["device"], "meta");
  ASSERT_EQ(shapes["nodes"].size(), real["nodes"].size());
  for (size_t i = 0; i < real["nodes"].size(); ++i) {
    EXPECT_EQ(shapes["nodes"][i]["meta"]["tensor_meta"], real["nodes"][i]["meta"]["tensor_meta"])
        << real["nodes"][i]["name"];
  }
}

TEST(FxrunTest, ShapePropInputErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--passes=shape_prop",
       "pass 'shape_prop' failed: shape_prop runs the graph and needs example inputs, one per "
       "placeholder (x): give fxrun --input-shape=SHAPES"},
      {"--passes=shape_prop '--input-shape=1,3,224,224;3'",
       "shape_prop needs 1 example input(s), one per placeholder (x), but 2 were given"},
      {"--input-shape=1,3,224,224",
       "--input-shape is for running the graph: add --run (or --check), or a pass that runs it "
       "(--passes=shape_prop)"},
      {"--input=x.pt", "--input is for running the graph"},
  };
  for (const auto& [flags, message] : cases) {
    Result r = fxrun(flags + " --print=none");
    EXPECT_EQ(r.exit_code, 1) << flags;
    EXPECT_THAT(r.err, HasSubstr(message)) << flags;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << flags << ": " << r.err;
  }
  // Inputs no pass used are not silently ignored.
  Result unused = fxrun("--passes=dce --input-shape=1,3,224,224 --print=none");
  EXPECT_EQ(unused.exit_code, 0) << unused.err;
  EXPECT_EQ(unused.err, "fxrun: warning: --input-shape was not used: no pass in --passes runs the "
                        "graph (shape_prop does), and --run was not given\n");
}

TEST(FxrunTest, InvertPipelineOnExpTan) {
  Result r = fxrun("--model=" + runfile("tests/fixtures/exp_tan.pt") + " --passes=invert --print=code");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "def forward(self, output):\n"
            "    log = torch.ops.aten.log.default(output);  output = None\n"
            "    atan = torch.ops.aten.atan.default(log);  log = None\n"
            "    return atan\n");
  Result bad = fxrun("--model=" + runfile("tests/fixtures/m2.pt") + " --passes=invert");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("pass 'invert' failed: the graph has 2 inputs (a, b)"));
}

TEST(FxrunTest, ListPluginsNamesEveryExtensionAndPassWithItsPlugin) {
  Result r = fxrun("--list-plugins");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // In-tree plugins carry the project's version (version.bzl).
  for (const char* expected : {"module_path " FX_VERSION_STRING, "libfx_module_path.so", "tagging  tags every node",
                               "tag=foo  the tag to set", "exec_order  records module and parameter",
                               "dce  removes nodes", "submodules=false"}) {
    EXPECT_THAT(r.out, HasSubstr(expected));
  }
}

TEST(FxrunTest, OutOfTreePluginsLoadWithThePluginFlag) {
  Result r = fxrun("--plugin=" + runfile("tests/plugins/libhello.so") +
                   " --passes=hello{who=fxrun} --tracer=hello --emit=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json graph = nlohmann::json::parse(r.out);
  EXPECT_EQ(graph["meta"]["hello"], "fxrun");
  EXPECT_EQ(graph["nodes"][0]["meta"]["hello"], true);
  EXPECT_EQ(r.err, "fxrun: warning: hello says hi to fxrun\n");
}

TEST(FxrunTest, InstrumentationFlags) {
  Result r = fxrun("--passes='dce{submodules=false}' --print-pipeline --time-passes "
                   "--print-after=dce --print=none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("dce{submodules=false}\n*** IR Dump After dce ***\ngraph():\n"));
  EXPECT_THAT(r.err, HasSubstr("Pass execution timing report"));
  EXPECT_THAT(r.err, HasSubstr("verify (lint after each pass)"));
  Result all = fxrun("--passes=dce,dce --print-after-all --print=none");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '*'), 12);  // two banners
}

TEST(FxrunTest, EveryBadInputIsAOneLineErrorAndExitStatusOne) {
  struct Case {
    std::string args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"--passes=dcee", "fxrun: error: unknown pass 'dcee' (did you mean 'dce'?). Known passes:"},
      {"--passes='dce{foo=1}'", "fxrun: error: pass 'dce' has no option 'foo'; its options: submodules"},
      {"--passes='dce{'", "fxrun: error: malformed pipeline 'dce{' at character 5"},
      {"--tracer=bogus", "fxrun: error: unknown tracer extension 'bogus'. Known tracer extensions:"},
      {"--tracer='tagging{color=red}'", "fxrun: error: tracer extension 'tagging' has no option 'color'"},
      {"--plugin=/no/such.so", "fxrun: error: plugin file not found: /no/such.so"},
      {"--plugin=" + runfile("tests/plugins/libwrong_version.so"),
       "was built for plugin API version 999 but this program implements version "},
      {"--plugin=" + runfile("tests/plugins/libduplicate_pass.so"),
       "registers pass 'dce', which plugin 'dce'"},
      {"--model=/no/such/model.pt",
       "fxrun: error: cannot read model /no/such/model.pt: No such file or directory"},
      {"--model=" + runfile("tests/plugins/not_a_library.txt"),
       "(is it a TorchScript file saved with torch.jit.save?)"},
      {"--model=" + runfile("tests/fixtures/control_flow.pt"),
       "control flow depends on an input value"},
      {"--print=xml", "fxrun: error: --print takes graph, tabular, code or none, not 'xml'"},
      {"--emit=yaml", "fxrun: error: --emit takes json, dot, svg or png, not 'yaml'"},
      {"--assertions=sometimes", "fxrun: error: --assertions takes keep or drop"},
      {"--output=/no/such/dir/out.txt",
       "fxrun: error: cannot write --output /no/such/dir/out.txt: No such file or directory"},
      {"extra", "fxrun: error: unexpected argument 'extra'"},
      {"--no-such-flag", "fxrun: error: unknown flag '--no-such-flag'"},
  };
  for (const Case& c : cases) {
    Result r = fxrun(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
  }
}

TEST(FxrunTest, HelpListsTheFlags) {
  Result r = fxrun("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--model", "--tracer", "--passes", "--plugin", "--list-plugins", "--print ",
                           "--emit", "--output", "--time-passes", "--print-after ",
                           "--print-after-all", "--print-pipeline", "--verify-each"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace fx
