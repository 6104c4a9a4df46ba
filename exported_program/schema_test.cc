// Copyright 2026 The FX for C++ Authors.
#include "exported_program/schema.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "exported_program/zip_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace exported {
namespace {

using ::testing::HasSubstr;

nlohmann::json program_json(const std::string& version, const std::string& name) {
  const std::string bytes = testing::read_file(
      testing::runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, ".pt2")));
  auto zip = ZipReader::open(bytes, name);
  EXPECT_TRUE(zip.ok()) << zip.status();
  for (const std::string& n : zip->names()) {
    if (absl::EndsWith(n, "models/model.json") || n == "serialized_exported_program.json") {
      return *parse_python_json(*zip->read(n));
    }
  }
  ADD_FAILURE() << "no program in " << name;
  return nullptr;
}

TEST(SchemaTest, WritesBackWhatItReads) {
  for (const char* version : {"2.6", "2.14"}) {
    for (const char* name : {"linear_bn", "dynamic_batch", "conv_net", "special_floats"}) {
      const nlohmann::json j = program_json(version, name);
      auto p = parse_program(j);
      ASSERT_TRUE(p.ok()) << version << " " << name << ": " << p.status();
      const std::string once = to_json(*p).dump();
      auto again = parse_program(nlohmann::json::parse(once));
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(to_json(*again).dump(), once) << version << " " << name;
      // Nothing of the file is lost: every node, input and output.
      const nlohmann::json back = nlohmann::json::parse(once);
      EXPECT_EQ(back["graph_module"]["graph"]["nodes"].size(), j["graph_module"]["graph"]["nodes"].size());
      EXPECT_EQ(back["graph_module"]["signature"], j["graph_module"]["signature"]);
      EXPECT_EQ(back["range_constraints"], j["range_constraints"]);
    }
  }
}

// No tensor has a negative size, stride or offset: libtorch throws making
// one (reading a program made a meta tensor of each value's tensor_meta).
TEST(SchemaTest, NegativeSizesStridesAndOffsetsAreRefusedNamingThePlace) {
  for (const auto& [key, index] : {std::make_pair("sizes", 1), std::make_pair("strides", 0)}) {
    nlohmann::json j = program_json("2.14", "linear_bn");
    j["graph_module"]["graph"]["tensor_values"]["x"][key][index] = {{"as_int", -4}};
    auto p = parse_program(j);
    ASSERT_FALSE(p.ok()) << key;
    EXPECT_THAT(std::string(p.status().message()),
                HasSubstr(absl::StrCat("graph_module.graph.tensor_values.x.", key, "[", index, "]: negative: -4")));
  }
  nlohmann::json j = program_json("2.14", "linear_bn");
  j["graph_module"]["graph"]["tensor_values"]["x"]["storage_offset"] = {{"as_int", -1}};
  EXPECT_THAT(std::string(parse_program(j).status().message()),
              HasSubstr("graph_module.graph.tensor_values.x.storage_offset: negative: -1"));
}

TEST(SchemaTest, ReadsTheFloatsPythonWritesAsStrings) {
  auto p = parse_program(program_json("2.14", "special_floats"));
  ASSERT_TRUE(p.ok()) << p.status();
  bool neg_inf = false;
  for (const Node& n : p->graph_module.graph.nodes) {
    for (const NamedArgument& a : n.inputs) {
      if (a.arg.kind == Argument::Kind::kFloat && std::isinf(a.arg.floats[0]) && a.arg.floats[0] < 0) neg_inf = true;
    }
  }
  EXPECT_TRUE(neg_inf);
  EXPECT_THAT(to_json(*p).dump(), HasSubstr("\"-Infinity\""));
}

TEST(SchemaTest, ErrorsNameThePlaceInTheDocument) {
  nlohmann::json j = program_json("2.14", "linear_bn");
  j["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = {{"as_int", "three"}};
  auto p = parse_program(j);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("graph_module.graph.nodes[1] ('linear').inputs[0].arg.as_int: expected an integer, found a string"));
  EXPECT_THAT(std::string(parse_program(nlohmann::json::object()).status().message()),
              HasSubstr("not a torch.export program"));
  nlohmann::json two_keys = program_json("2.14", "linear_bn");
  two_keys["graph_module"]["graph"]["outputs"][0] = {{"as_int", 1}, {"as_bool", true}};
  EXPECT_THAT(std::string(parse_program(two_keys).status().message()),
              HasSubstr("expected a union (an object with one key), found an object with 2 keys"));
}

TEST(SchemaTest, KindsTheIrCannotHoldAreKeptAndNamed) {
  nlohmann::json j = program_json("2.14", "linear_bn");
  j["graph_module"]["graph"]["nodes"][1]["inputs"][2]["arg"] = {{"as_complex", {{"real", 1.0}, {"imag", 2.0}}}};
  auto p = parse_program(j);
  ASSERT_TRUE(p.ok()) << p.status();
  const Argument& a = p->graph_module.graph.nodes[1].inputs[2].arg;
  EXPECT_EQ(a.kind, Argument::Kind::kUnsupported);
  EXPECT_EQ(a.names[0], "as_complex");
  EXPECT_THAT(to_json(*p).dump(), HasSubstr("\"as_complex\":{\"imag\":2.0,\"real\":1.0}"));
}

TEST(PythonJsonTest, NestingIsBoundedBeforeParsing) {
  // A million brackets would overflow the stack of a recursive parser.
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  auto j = parse_python_json(deep);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(std::string(j.status().message()), ::testing::HasSubstr("deeper than 256 levels"));
  // Brackets inside strings are text.
  auto text = parse_python_json(absl::StrCat("{\"a\": \"", std::string(1000, '['), "\"}"));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(parse_python_json(std::string(256, '[') + std::string(256, ']')).ok());
}

}  // namespace
}  // namespace exported
}  // namespace fx

namespace fx {
namespace exported {
namespace {

TEST(PythonJsonTest, ReadsPythonsLiteralsOutsideStringsOnly) {
  auto j = parse_python_json(R"({"a": -Infinity, "b": [NaN, Infinity], "c": "NaN -Infinity \"x\""})");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["a"], "-Infinity");
  EXPECT_EQ((*j)["b"][0], "NaN");
  EXPECT_EQ((*j)["b"][1], "Infinity");
  EXPECT_EQ((*j)["c"], "NaN -Infinity \"x\"");
  EXPECT_THAT(std::string(parse_python_json("{\"a\": }").status().message()),
              ::testing::HasSubstr("not valid JSON: at line 1, column 7"));
}

// A number beyond a double made nlohmann's parser throw out_of_range, which
// escaped (found by program_json_fuzzer): it is refused in one bounded line.
TEST(PythonJsonTest, ANumberBeyondADoubleIsRefusedByName) {
  for (const std::string& number : {std::string("1e999"), std::string("-1e400"), std::string(400, '9') + "e300"}) {
    auto j = parse_python_json(absl::StrCat("{\"a\": [", number, "]}"));
    ASSERT_FALSE(j.ok()) << number;
    const std::string message(j.status().message());
    EXPECT_THAT(message, ::testing::HasSubstr("not valid JSON: number overflow parsing"));
    EXPECT_THAT(message, ::testing::HasSubstr("beyond the range of a double"));
    EXPECT_LT(message.size(), 300u) << message;
  }
  // What fits in a double, however it is written, is read.
  auto big = parse_python_json("[1.7976931348623157e308, 18446744073709551616, 1e-400]");
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_TRUE((*big)[1].is_number_float());
}

}  // namespace
}  // namespace exported
}  // namespace fx
