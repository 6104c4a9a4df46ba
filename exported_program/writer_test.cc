// Copyright 2026 The FX for C++ Authors.
//
// Writing GraphModules as torch.export programs, read back by this reader.
// (That torch.export.load reads them too is checked in the platforms with a
// torch 2.x: tests/exported_programs_test.)
#include "exported_program/writer.h"

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/treespec.h"
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

// rotary_block, written as GPT-2 and Llama are: its submodule `block1-0`
// (torchvision's RegNet names blocks so) is lifted under names that are
// identifiers, as torch.export names them (ep.module() generates Python
// from them); its non-persistent buffers (a causal mask, rotary tables) are
// buffers kept out of the state dict, with the constants; the
// _assert_tensor_metadata before each `.to(dtype)` keeps its keyword
// arguments, `device` included, which libtorch 1.13's schema lacks.
TEST(WriterNamesTest, LiftedNamesNonPersistentBuffersAndMetadataAssertionsAreWrittenAsTorchDoes) {
  for (const std::string& version : testing::exported_program_versions()) {
    GraphModule gm = read_program(testing::load_exported_program(version, "rotary_block"));
    exported::WriteOptions options;
    auto bytes = exported::write_program(gm, options);
    ASSERT_TRUE(bytes.ok()) << version << ": " << bytes.status();
    auto back = exported::load_program(*bytes, "written.pt2");
    ASSERT_TRUE(back.ok()) << back.status();
    // The layout it was read in: torch 2.6 reads what it wrote.
    EXPECT_EQ(back->layout, version == "2.6" ? exported::ArchiveLayout::kLegacy : exported::ArchiveLayout::kPt2Archive);
    std::map<std::string, std::string> names;
    std::set<std::string> non_persistent;
    for (const exported::InputSpec& s : back->program.graph_module.input_specs) {
      if (s.kind == exported::InputSpec::Kind::kUserInput) continue;
      names[s.target] = s.arg.names.at(0);
      if (s.kind == exported::InputSpec::Kind::kBuffer && !s.persistent) non_persistent.insert(s.target);
    }
    EXPECT_EQ(names["block1-0.weight"], "p_block1_0_weight") << version;
    EXPECT_EQ(names["block1-0.bias"], "p_block1_0_bias") << version;
    EXPECT_EQ(non_persistent, (std::set<std::string>{"causal", "cos", "sin"})) << version;
    EXPECT_EQ(back->constants.size(), 3u) << version;
    EXPECT_EQ(back->state.size(), 3u) << version;  // the weight, the bias, `steps`
    size_t assertions = 0;
    for (const exported::Node& n : back->program.graph_module.graph.nodes) {
      if (n.target != "torch.ops.aten._assert_tensor_metadata.default") continue;
      ++assertions;
      std::vector<std::string> keywords;
      for (const exported::NamedArgument& a : n.inputs) {
        if (a.name != "a") keywords.push_back(a.name);
        if (a.kind) {
          EXPECT_EQ(*a.kind, a.name == "a" ? 1 : 2) << version << ": " << a.name;
        }
      }
      EXPECT_EQ(keywords, (std::vector<std::string>{"dtype", "device", "layout"})) << version;
    }
    EXPECT_EQ(assertions, version == "2.6" ? 0u : 2u) << version;
  }
}

// structured_inputs: forward(self, feats: dict, flag: bool, *, offset), called
// with ({"a", "b", "unused"}, True, offset=...). torch.export records the
// dict's tensors as three inputs, the bool as a constant input the program
// is specialised for, and offset as a keyword argument.
class WriterInputsTest : public ::testing::TestWithParam<std::string> {
 protected:
  const std::string kName = "structured_inputs";
  exported::LoadedProgram original() const { return testing::load_exported_program(GetParam(), kName); }

  // The written program, read back by the schema's reader.
  static exported::LoadedProgram written(const GraphModule& gm, exported::WriteLayout layout) {
    exported::WriteOptions options;
    options.layout = layout;
    auto bytes = exported::write_program(gm, options);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok()) return {};
    auto p = exported::load_program(*bytes, "written.pt2");
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : exported::LoadedProgram();
  }
  static const exported::ModuleCallSignature& root(const exported::LoadedProgram& p) {
    return *p.program.graph_module.module_call_graph.at(0).signature;
  }
  // The user inputs' specs, as "user_input feats_a", "constant_input flag".
  static std::vector<std::string> user_inputs(const exported::LoadedProgram& p) {
    std::vector<std::string> out;
    for (const exported::InputSpec& s : p.program.graph_module.input_specs) {
      if (s.kind == exported::InputSpec::Kind::kUserInput) out.push_back("user_input " + s.arg.names.at(0));
      if (s.kind == exported::InputSpec::Kind::kConstantInput) out.push_back("constant_input " + s.target);
    }
    return out;
  }
};

TEST_P(WriterInputsTest, DictBoolAndKeywordInputsAreWrittenAsTheProgramHadThem) {
  const exported::LoadedProgram read = original();
  const testing::ExpectedRun expected = testing::load_expected_run(GetParam(), kName);
  for (exported::WriteLayout layout : {exported::WriteLayout::kPt2Archive, exported::WriteLayout::kLegacy}) {
    GraphModule gm = read_program(read);
    // As dce leaves it: nothing reads feats["unused"] (the caller still passes it).
    ASSERT_TRUE(gm.graph().erase_node(gm.graph().find_node("feats_unused")).ok());
    const exported::LoadedProgram back = written(gm, layout);
    ASSERT_FALSE(back.program.graph_module.module_call_graph.empty());
    // The call the model took: the same in_spec, argument names and inputs.
    auto in_spec = exported::parse_treespec(root(read).in_spec);
    ASSERT_TRUE(in_spec.ok());
    EXPECT_EQ(root(back).in_spec, exported::to_string(*in_spec));
    EXPECT_EQ(root(back).forward_arg_names, (std::vector<std::string>{"feats", "flag", "offset"}));
    EXPECT_EQ(user_inputs(back), (std::vector<std::string>{"user_input feats_a", "user_input feats_b",
                                                          "user_input feats_unused", "constant_input flag",
                                                          "user_input offset"}));
    const auto& g = back.program.graph_module.graph;
    for (const exported::InputSpec& s : back.program.graph_module.input_specs) {
      if (s.kind != exported::InputSpec::Kind::kConstantInput) continue;
      EXPECT_EQ(s.constant.kind, exported::Argument::Kind::kBool);
      EXPECT_EQ(s.constant.ints, std::vector<int64_t>{1});
    }
    const auto flag = std::find_if(g.inputs.begin(), g.inputs.end(),
                                   [](const exported::Argument& a) { return a.kind == exported::Argument::Kind::kBool; });
    ASSERT_NE(flag, g.inputs.end());
    EXPECT_EQ(flag->ints, std::vector<int64_t>{1});
    // The unread leaf keeps what the program said of it.
    ASSERT_EQ(g.tensor_values.count("feats_unused"), 1u);
    EXPECT_EQ(g.tensor_values.at("feats_unused").sizes.size(), 1u);
    // Read again, it takes and computes what the model did.
    GraphModule again = read_program(back);
    auto out = again(expected.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    expect_same_leaves(*out, expected.outputs, "written");
  }
}

// The signature follows the graph: a placeholder a pass added after the
// keyword argument is a keyword argument (the flat inputs keep the
// placeholders' order); one a pass removed is gone.
TEST_P(WriterInputsTest, PlaceholdersAddedOrRemovedChangeTheSignatureInOrder) {
  GraphModule gm = read_program(original());
  Node* offset = gm.graph().find_node("offset");
  ASSERT_NE(offset, nullptr);
  Node* extra;
  {
    auto at = gm.graph().inserting_after(offset);
    extra = gm.graph().placeholder("extra");
  }
  extra->meta().set(kTensorMetaKey, Meta{{"shape", MetaValue::List{3}}, {"dtype", "torch.float32"},
                                        {"stride", MetaValue::List{1}}});
  ASSERT_TRUE(gm.graph().erase_node(gm.graph().find_node("flag")).ok());
  const exported::LoadedProgram back = written(gm, exported::WriteLayout::kPt2Archive);
  ASSERT_FALSE(back.program.graph_module.module_call_graph.empty());
  EXPECT_EQ(root(back).forward_arg_names, (std::vector<std::string>{"feats", "offset", "extra"}));
  auto spec = exported::parse_treespec(root(back).in_spec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->children.size(), 2u);
  EXPECT_EQ(spec->children[0].children.size(), 1u);  // feats
  EXPECT_EQ(spec->children[1].keys, (std::vector<nlohmann::json>{"offset", "extra"}));
  EXPECT_EQ(user_inputs(back), (std::vector<std::string>{"user_input feats_a", "user_input feats_b",
                                                        "user_input feats_unused", "user_input offset",
                                                        "user_input extra"}));
}

TEST_P(WriterInputsTest, WhatTheProgramsInputsCannotSayIsRefusedNamingIt) {
  {
    // An item the dict does not have.
    GraphModule gm = read_program(original());
    Node* feats = gm.graph().find_node("feats");
    {
      auto at = gm.graph().inserting_after(feats);
      gm.graph().call_function(std::string(kGetItemTarget), {feats, std::string("c")});
    }
    auto bytes = exported::write_program(gm);
    ASSERT_FALSE(bytes.ok());
    EXPECT_THAT(std::string(bytes.status().message()),
                HasSubstr("it reads item 'c' of input 'feats', which the program's input does not have"));
  }
  {
    // The dict used whole.
    GraphModule gm = read_program(original());
    Node* feats = gm.graph().find_node("feats");
    Node* output = gm.graph().output_node();
    output->set_args({::fx::Argument::Tuple({output->args()[0], feats})});
    auto bytes = exported::write_program(gm);
    ASSERT_FALSE(bytes.ok());
    EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("it takes input 'feats' (or a structure in it) whole"));
  }
  {
    // A dict (or a bool) not read from a program: its structure is unknown.
    GraphModule gm = read_program(original());
    for (const char* name : {"feats", "flag"}) {
      MetaValue* e = gm.graph().find_node(name)->meta().find(kExportedValueKey);
      ASSERT_NE(e, nullptr);
      e->to_map().erase("input");
    }
    auto bytes = exported::write_program(gm);
    ASSERT_FALSE(bytes.ok());
    EXPECT_THAT(std::string(bytes.status().message()),
                HasSubstr("cannot write node 'feats' (placeholder feats) to a torch.export program: the input is a "
                          "Dict[str, Tensor]"));
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, WriterInputsTest, ::testing::ValuesIn(testing::exported_program_versions()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return absl::StrCat("torch", absl::StrReplaceAll(info.param, {{".", "_"}}));
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
