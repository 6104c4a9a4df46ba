// Copyright 2026 The FX for C++ Authors.
//
// Writing GraphModules as torch.export programs, read back by this reader.
// (That torch.export.load reads them too is checked in the platforms with a
// torch 2.x: tests/exported_programs_test.)
#include "exported_program/writer.h"

#include <ATen/ATen.h>

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/graph_module.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/values.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

GraphModule read_program(const exported::LoadedProgram& p) {
  Tracer tracer;
  auto gm = tracer.trace(p);
  EXPECT_TRUE(gm.ok()) << gm.status();
  return std::move(*gm);
}

void expect_same_leaves(const c10::IValue& a, const std::vector<c10::IValue>& expected, const std::string& what) {
  const auto leaves = testing::flatten_outputs(a);
  ASSERT_EQ(leaves.size(), expected.size()) << what;
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::string why;
    EXPECT_TRUE(testing::all_close(leaves[i], expected[i], &why)) << what << " output " << i << ": " << why;
  }
}

class WriterTest : public ::testing::TestWithParam<std::tuple<std::string, exported::WriteLayout>> {};

TEST_P(WriterTest, WritesWhatReadsBackAndComputesTheSame) {
  const auto& [version, layout] = GetParam();
  for (const std::string& name : testing::exported_program_names()) {
    const exported::LoadedProgram original = testing::load_exported_program(version, name);
    GraphModule gm = read_program(original);
    exported::WriteOptions options;
    options.layout = layout;
    options.archive_name = name;
    options.example_inputs = original.example_inputs;
    auto bytes = exported::write_program(gm, options);
    ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status();
    auto again = exported::load_program(*bytes, name + ".pt2");
    ASSERT_TRUE(again.ok()) << name << ": " << again.status();
    EXPECT_EQ(again->layout, layout == exported::WriteLayout::kLegacy ? exported::ArchiveLayout::kLegacy
                                                                      : exported::ArchiveLayout::kPt2Archive);
    EXPECT_TRUE(again->example_inputs.has_value()) << name << ": " << (again->warnings.empty() ? "" : again->warnings[0]);
    // The same signature and the same nodes, in the same order.
    const auto& a = original.program.graph_module;
    const auto& b = again->program.graph_module;
    ASSERT_EQ(a.graph.nodes.size(), b.graph.nodes.size()) << name;
    for (size_t i = 0; i < a.graph.nodes.size(); ++i) {
      EXPECT_EQ(a.graph.nodes[i].target, b.graph.nodes[i].target) << name << " node " << i;
    }
    // The same inputs (a tied weight, lifted by torch once per module that
    // uses it, is lifted once).
    std::set<std::string> targets_a, targets_b;
    for (const auto& spec : a.input_specs) targets_a.insert(spec.target);
    for (const auto& spec : b.input_specs) targets_b.insert(spec.target);
    EXPECT_EQ(targets_a, targets_b) << name;
    EXPECT_EQ(a.output_specs.size(), b.output_specs.size()) << name;
    EXPECT_EQ(again->program.range_constraints.size(), original.program.range_constraints.size());
    // Every tensor the written program names has its metadata.
    for (const auto& input : b.graph.inputs) {
      if (input.kind == exported::Argument::Kind::kTensor) {
        EXPECT_EQ(b.graph.tensor_values.count(input.names[0]), 1u) << name << ": " << input.names[0];
      }
    }
    for (const auto& node : b.graph.nodes) {
      for (const auto& out : node.outputs) {
        if (out.kind != exported::Argument::Kind::kTensor && out.kind != exported::Argument::Kind::kTensors) continue;
        for (const std::string& value : out.names) {
          EXPECT_EQ(b.graph.tensor_values.count(value), 1u) << name << ": " << value;
        }
      }
    }
    // And computes what the model computed.
    const testing::ExpectedRun expected = testing::load_expected_run(version, name);
    GraphModule back = read_program(*again);
    auto out = back(expected.inputs);
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    expect_same_leaves(*out, expected.outputs, name);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Programs, WriterTest,
    ::testing::Combine(::testing::ValuesIn(testing::exported_program_versions()),
                       ::testing::Values(exported::WriteLayout::kPt2Archive, exported::WriteLayout::kLegacy)),
    [](const ::testing::TestParamInfo<WriterTest::ParamType>& info) {
      return absl::StrCat("torch", absl::StrReplaceAll(std::get<0>(info.param), {{".", "_"}}), "_",
                          std::get<1>(info.param) == exported::WriteLayout::kLegacy ? "legacy" : "pt2");
    });

TEST(WriterErrorsTest, WhatAProgramCannotHoldIsRefusedNamingTheNode) {
  GraphModule gm(empty_module("M"), std::make_unique<Graph>());
  Node* x = gm.graph().placeholder("x");
  Node* call = gm.graph().call_module("sub", {x});
  gm.graph().output(call);
  auto bytes = exported::write_program(gm);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("cannot write node 'x' (placeholder x) to a torch.export program: its value has no tensor metadata"));
  x->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{2}}, {"dtype", "torch.float32"}, {"stride", MetaValue::List{1}}});
  bytes = exported::write_program(gm);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("cannot write node 'sub' (call_module sub) to a torch.export program: it calls a submodule"));
}

}  // namespace
}  // namespace fx
