// Copyright 2026 The FX for C++ Authors.
//
// Reading programs a hostile user crafted into the IR: each is a committed
// program with one thing changed in what the reader read, and each ends in a
// graph or an error, never in an exception, a crash or a hang. Most are
// what the .pt2 fuzzers (tests/fuzzing) found.
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/exported_programs.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<GraphModule> read(const exported::LoadedProgram& program) {
  Tracer tracer;
  return tracer.trace(program);
}

// The reader probed the layout of each value with a meta tensor of its
// tensor_meta, which libtorch refuses to make past int64's bytes (an
// exception out of Tracer::trace).
TEST(TraceExportedErrorsTest, SizesNoTensorCanHaveAreReadWithoutMakingOne) {
  for (const std::string& version : testing::exported_program_versions()) {
    exported::LoadedProgram p = testing::load_exported_program(version, "linear_bn");
    exported::TensorMeta& x = p.program.graph_module.graph.tensor_values.at("x");
    x.sizes[0].i = std::numeric_limits<int64_t>::max();
    x.strides[0].i = std::numeric_limits<int64_t>::max();
    auto gm = read(p);
    EXPECT_TRUE(gm.ok()) << version << ": " << gm.status();
    // Few bytes (strides 0), but more elements than int64 counts.
    x.sizes = {exported::SymValue::of_int(int64_t{1} << 40), exported::SymValue::of_int(int64_t{1} << 40)};
    x.strides = {exported::SymValue::of_int(0), exported::SymValue::of_int(0)};
    auto zero_strides = read(p);
    EXPECT_TRUE(zero_strides.ok()) << version << ": " << zero_strides.status();
  }
}

// A class or module path with an empty part ("torch.nn.", "bn..x") in a
// node's nn_module_stack was given to TorchScript's QualifiedName, which
// asserts (a c10::Error out of Tracer::trace; found by program_json_fuzzer).
TEST(TraceExportedErrorsTest, ModuleStacksNamingNoClassOrModuleAreRefused) {
  for (const std::string& version : testing::exported_program_versions()) {
    for (const auto& [from, to, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {",torch.nn.modules.batchnorm.BatchNorm1d", ",torch.nn.", "names the class 'torch.nn.', which is not"},
             {",torch.nn.modules.batchnorm.BatchNorm1d", ",", "names the class '', which is not"},
             {",bn,", ",bn..x,", "names the module 'bn..x', which is not"},
             {",,__main__.LinearBN", ",,__main__.", "names the class '__main__.', which is not"},
         }) {
      exported::LoadedProgram p = testing::load_exported_program(version, "linear_bn");
      int changed = 0;
      for (exported::Node& n : p.program.graph_module.graph.nodes) {
        auto stack = n.metadata.find("nn_module_stack");
        if (stack == n.metadata.end() || stack->second.find(from) == std::string::npos) continue;
        stack->second.replace(stack->second.find(from), from.size(), to);
        ++changed;
      }
      ASSERT_GT(changed, 0) << version << ": no stack holds " << from;
      auto gm = read(p);
      ASSERT_FALSE(gm.ok()) << version << ": " << to;
      EXPECT_THAT(std::string(gm.status().message()), HasSubstr(message)) << version;
    }
  }
}

}  // namespace
}  // namespace fx
