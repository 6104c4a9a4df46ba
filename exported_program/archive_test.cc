// Copyright 2026 The FX for C++ Authors.
#include "exported_program/archive.h"

#include <ATen/core/Tensor.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "exported_program/zip_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace exported {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::string program_bytes(const std::string& version, const std::string& name) {
  return testing::read_file(testing::runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, ".pt2")));
}

const at::Tensor* find(const std::vector<std::pair<std::string, at::Tensor>>& named, const std::string& fqn) {
  for (const auto& [n, t] : named) {
    if (n == fqn) return &t;
  }
  return nullptr;
}

// A copy of an archive with one member replaced (or removed when `bytes` is
// nullptr), written by our own zip writer.
std::string with_member(const std::string& archive, const std::string& member, const std::string* bytes) {
  auto zip = ZipReader::open(archive, "test");
  EXPECT_TRUE(zip.ok()) << zip.status();
  ZipWriter out;
  for (const std::string& name : zip->names()) {
    if (name == member) {
      if (bytes != nullptr) out.add(name, *bytes);
      continue;
    }
    out.add(name, *zip->read(name));
  }
  return *out.finish();
}

class ArchiveTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ArchiveTest, ReadsEveryProgramOfTheLayoutItsTorchWrites) {
  for (const char* name : {"linear_bn", "dynamic_batch", "conv_net", "special_floats"}) {
    const std::string bytes = program_bytes(GetParam(), name);
    ASSERT_FALSE(bytes.empty()) << name;
    EXPECT_TRUE(looks_like_zip(bytes));
    EXPECT_TRUE(is_exported_program(bytes)) << name;
    auto p = load_program(bytes, name);
    ASSERT_TRUE(p.ok()) << name << ": " << p.status();
    EXPECT_EQ(p->layout, GetParam() == "2.6" ? ArchiveLayout::kLegacy : ArchiveLayout::kPt2Archive);
    EXPECT_THAT(p->program.torch_version, ::testing::StartsWith(GetParam()));
    EXPECT_FALSE(p->program.graph_module.graph.nodes.empty());
    EXPECT_TRUE(p->example_inputs.has_value()) << name;
    EXPECT_TRUE(p->warnings.empty()) << name << ": " << p->warnings.front();
  }
}

TEST_P(ArchiveTest, KeepsWhatWasWrittenOfEachTensor) {
  auto p = load_program(program_bytes(GetParam(), "linear_bn"), "linear_bn");
  ASSERT_TRUE(p.ok()) << p.status();
  const at::Tensor* w = find(p->state, "lin.weight");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->sizes(), at::IntArrayRef({3, 4}));
  EXPECT_EQ(w->strides(), at::IntArrayRef({4, 1}));
  EXPECT_EQ(w->scalar_type(), at::kFloat);
  EXPECT_TRUE(w->requires_grad());  // a parameter
  const at::Tensor* count = find(p->state, "count");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->dim(), 0);
  EXPECT_FALSE(count->requires_grad());
  const at::Tensor* batches = find(p->state, "bn.num_batches_tracked");
  ASSERT_NE(batches, nullptr);
  EXPECT_EQ(batches->scalar_type(), at::kLong);
}

TEST_P(ArchiveTest, TensorsThatSharedAStorageShareOne) {
  auto p = load_program(program_bytes(GetParam(), "conv_net"), "conv_net");
  ASSERT_TRUE(p.ok()) << p.status();
  const at::Tensor* a = find(p->state, "fc1.weight");
  const at::Tensor* b = find(p->state, "fc2.weight");
  ASSERT_NE(a, nullptr);
  if (b != nullptr) {
    EXPECT_TRUE(a->is_alias_of(*b));
  }
}

TEST_P(ArchiveTest, ReadsSymbolicSizesAndRanges) {
  auto p = load_program(program_bytes(GetParam(), "dynamic_batch"), "dynamic_batch");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->program.range_constraints.size(), 1u);
  const RangeConstraint& r = p->program.range_constraints.begin()->second;
  EXPECT_EQ(r.min_val, 2);
  EXPECT_EQ(r.max_val, 64);
  EXPECT_FALSE(p->program.graph_module.graph.sym_int_values.empty());
}

TEST_P(ArchiveTest, ATruncatedArchiveIsAnError) {
  const std::string bytes = program_bytes(GetParam(), "linear_bn");
  for (size_t keep : {bytes.size() / 2, bytes.size() - 30, size_t{100}}) {
    auto p = load_program(bytes.substr(0, keep), "cut.pt2");
    ASSERT_FALSE(p.ok()) << keep;
    EXPECT_THAT(std::string(p.status().message()), HasSubstr("cut.pt2"));
  }
}

TEST_P(ArchiveTest, ASchemaOfAnotherMajorVersionIsRefusedNamingBoth) {
  const std::string bytes = program_bytes(GetParam(), "linear_bn");
  auto zip = ZipReader::open(bytes, "t");
  ASSERT_TRUE(zip.ok());
  std::string member;
  for (const std::string& n : zip->names()) {
    if (absl::EndsWith(n, "model.json") || n == "serialized_exported_program.json") member = n;
  }
  ASSERT_FALSE(member.empty());
  std::string json = *zip->read(member);
  const std::string major9 = absl::StrReplaceAll(json, {{"\"major\": 8", "\"major\": 9"}});
  ASSERT_NE(major9, json);
  auto p = load_program(with_member(bytes, member, &major9), "next.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("written in torch.export's schema version 9."));
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("reads version 8.x"));

  // A newer minor version is read, with a warning for what is unknown in it.
  std::string newer = absl::StrReplaceAll(json, {{"\"minor\": ", "\"minor\": 9"}});
  newer = absl::StrReplaceAll(newer, {{"\"tensor_values\":", "\"future_values\": {}, \"tensor_values\":"}});
  auto q = load_program(with_member(bytes, member, &newer), "newer.pt2");
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_GE(q->warnings.size(), 2u);
  EXPECT_THAT(q->warnings[0], HasSubstr("newer than 8.20"));
  EXPECT_THAT(q->warnings[1], HasSubstr("'future_values' is from a newer schema version"));

  // The same unknown key in a file of a known version is an error.
  const std::string unknown_key =
      absl::StrReplaceAll(json, {{"\"tensor_values\":", "\"future_values\": {}, \"tensor_values\":"}});
  auto r = load_program(with_member(bytes, member, &unknown_key), "odd.pt2");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("graph_module.graph: unknown key 'future_values'"));
}

TEST_P(ArchiveTest, AnUnknownArgumentKindIsRefusedByName) {
  const std::string bytes = program_bytes(GetParam(), "linear_bn");
  auto zip = ZipReader::open(bytes, "t");
  std::string member;
  for (const std::string& n : zip->names()) {
    if (absl::EndsWith(n, "model.json") || n == "serialized_exported_program.json") member = n;
  }
  std::string json = *zip->read(member);
  const std::string odd = absl::StrReplaceAll(json, {{"\"as_float\":", "\"as_quaternion\":"}});
  ASSERT_NE(odd, json);
  auto p = load_program(with_member(bytes, member, &odd), "odd.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("unknown key 'as_quaternion'"));
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("graph_module.graph.nodes["));
}

// A copy of an archive with a second member of the name of `member`, holding
// `bytes` (written under a name of the same length, then renamed in place).
std::string with_duplicate(const std::string& archive, const std::string& member, const std::string& bytes) {
  auto zip = ZipReader::open(archive, "test");
  EXPECT_TRUE(zip.ok()) << zip.status();
  const std::string stand_in = member.substr(0, member.size() - 1) + "\x7f";
  ZipWriter out;
  for (const std::string& name : zip->names()) out.add(name, *zip->read(name));
  out.add(stand_in, bytes);
  return absl::StrReplaceAll(*out.finish(), {{stand_in, member}});
}

// Damaged or crafted archives are still told apart from TorchScript files by
// their members' names, and the error says what is wrong with the archive.
TEST_P(ArchiveTest, ADamagedOrCraftedArchiveIsAProgramThatSaysWhatIsWrong) {
  const std::string bytes = program_bytes(GetParam(), "linear_bn");
  auto zip = ZipReader::open(bytes, "t");
  ASSERT_TRUE(zip.ok());
  std::string program, weight;
  for (const std::string& n : zip->names()) {
    if (absl::EndsWith(n, "model.json") || n == "serialized_exported_program.json") program = n;
    if (absl::EndsWith(n, "weights/weight_0") || n == "serialized_state_dict.pt") weight = n;
  }
  struct Case {
    std::string what, bytes, message;
  };
  const std::string json = *zip->read(program);
  for (const Case& c : std::vector<Case>{
           // PyTorch reads the last of two members, and would compute other
           // numbers than a reader that takes the first.
           {"two programs", with_duplicate(bytes, program, json + " "),
            absl::StrCat("it holds two members named '", program, "'")},
           {"two weights", with_duplicate(bytes, weight, *zip->read(weight)),
            absl::StrCat("it holds two members named '", weight, "'")},
           {"names under ..", absl::StrReplaceAll(bytes, {{weight, "../" + weight.substr(3)}}),
            absl::StrCat("member '../", weight.substr(3), "' climbs out of the archive's folder")},
           {"absolute names", absl::StrReplaceAll(bytes, {{weight, "/" + weight.substr(1)}}),
            absl::StrCat("member '/", weight.substr(1), "' has an absolute path")},
       }) {
    EXPECT_TRUE(is_exported_program(c.bytes)) << c.what;
    auto p = load_program(c.bytes, "crafted.pt2");
    ASSERT_FALSE(p.ok()) << c.what;
    EXPECT_THAT(std::string(p.status().message()),
                HasSubstr(absl::StrCat("crafted.pt2 is a damaged or crafted zip archive: ", c.message)))
        << c.what;
  }
  // A directory libzip cannot read at all (sizes pointing to zip64 records
  // that are not there): still a program, a damaged one. Newer libzip (sid's)
  // reads such a directory, and then our own size check names the member.
  std::string damaged = bytes;
  const std::string record = "PK\x01\x02";
  for (size_t at = damaged.find(record); at != std::string::npos; at = damaged.find(record, at + 4)) {
    if (damaged.compare(at + 46, program.size(), program) == 0) damaged.replace(at + 20, 8, 8, '\xff');
  }
  EXPECT_TRUE(is_exported_program(damaged));
  auto p = load_program(damaged, "damaged.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              AnyOf(HasSubstr("damaged.pt2 is a damaged zip archive: libzip cannot read its directory"),
                    HasSubstr(absl::StrCat("damaged.pt2 is a damaged or crafted zip archive: member '", program,
                                           "' claims 4294967295 stored bytes"))));
}

INSTANTIATE_TEST_SUITE_P(Torch, ArchiveTest, ::testing::Values("2.6", "2.14"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return absl::StrReplaceAll(info.param, {{".", "_"}});
                         });

// PT2 archives only (torch 2.8 and later): raw weights described by a config.
TEST(Pt2ArchiveTest, AWeightConfigPointingPastTheDataIsAnError) {
  const std::string bytes = program_bytes("2.14", "linear_bn");
  auto zip = ZipReader::open(bytes, "t");
  ASSERT_TRUE(zip.ok());
  const std::string config = "linear_bn/data/weights/model_weights_config.json";
  std::string text = *zip->read(config);
  // lin.weight is 3x4 floats; say it is 30x4.
  const std::string bad = absl::StrReplaceAll(
      text, {{"\"sizes\": [{\"as_int\": 3}, {\"as_int\": 4}]", "\"sizes\": [{\"as_int\": 30}, {\"as_int\": 4}]"}});
  ASSERT_NE(bad, text);
  auto p = load_program(with_member(bytes, config, &bad), "bad.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("'lin.weight'"));
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("reaches past its data: 480 bytes needed, 48 stored"));
}

// libtorch throws making an integer tensor require grad (found by
// pt2_archive_fuzzer: an exception out of load_program).
TEST(Pt2ArchiveTest, AnIntegerParameterThatRequiresGradIsAnError) {
  const std::string bytes = program_bytes("2.14", "linear_bn");
  auto zip = ZipReader::open(bytes, "t");
  ASSERT_TRUE(zip.ok());
  const std::string config = "linear_bn/data/weights/model_weights_config.json";
  nlohmann::json j = nlohmann::json::parse(*zip->read(config));
  nlohmann::json& weight = j["config"]["lin.weight"];
  ASSERT_TRUE(weight["is_param"].get<bool>());
  ASSERT_TRUE(weight["tensor_meta"]["requires_grad"].get<bool>());
  weight["tensor_meta"]["dtype"] = 4;  // int32: as many bytes as the float32 written
  const std::string edited = j.dump();
  auto p = load_program(with_member(bytes, config, &edited), "int.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("'lin.weight' (linear_bn/data/weights/model_weights_config.json) is a parameter of dtype Int "
                        "that requires grad"));
}

TEST(Pt2ArchiveTest, AMissingWeightFileIsAnError) {
  const std::string bytes = program_bytes("2.14", "linear_bn");
  auto p = load_program(with_member(bytes, "linear_bn/data/weights/weight_0", nullptr), "gone.pt2");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("gone.pt2 has no member 'linear_bn/data/weights/weight_0'"));
}

TEST(ArchiveErrorsTest, OtherZipsAreNotPrograms) {
  ZipWriter w;
  w.add("archive/data.pkl", "x");
  const std::string torchscript_like = *w.finish();
  EXPECT_TRUE(looks_like_zip(torchscript_like));
  EXPECT_FALSE(is_exported_program(torchscript_like));
  auto p = load_program(torchscript_like, "m.pt");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("m.pt is a zip archive but not a torch.export program"));
  EXPECT_FALSE(load_program("not a zip", "x.pt2").ok());
}

}  // namespace
}  // namespace exported
}  // namespace fx
