// Copyright 2026 The FX for C++ Authors.
#include "fx/archive_check.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;
using namespace std::string_literals;  // "\x00"s keeps its NUL bytes

std::string repeat(absl::string_view text, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) absl::StrAppend(&out, text);
  return out;
}

// A protocol-2 pickle around `body`.
std::string pickle(const std::string& body) { return absl::StrCat("\x80\x02", body, "."); }

// [[[...]]] `n` deep, as libtorch's unpickler reads lists: EMPTY_LIST MARK ... APPENDS.
std::string nested_lists(int n) { return pickle(repeat("](", n) + repeat("e", n)); }

TEST(ArchiveCheckTest, PicklesNestedDeeperThanAnyModelAreRefused) {
  EXPECT_TRUE(check_pickle(nested_lists(100)).ok());
  const absl::Status deep = check_pickle(nested_lists(kMaxSavedNesting + 1));
  EXPECT_THAT(deep.message(), HasSubstr("nests values deeper than 1000 levels"));
  // Tuples of one, which keep the stack one value high.
  EXPECT_THAT(check_pickle(pickle("K\x01" + repeat("\x85", 5000))).message(),
              HasSubstr("deeper than 1000"));
  // Tuples to a mark: MARK ... MARK EMPTY_TUPLE TUPLE ... TUPLE.
  EXPECT_THAT(check_pickle(pickle(repeat("(", 5000) + ")" + repeat("t", 5000))).message(),
              HasSubstr("deeper than 1000"));
  // Dicts filled item by item: EMPTY_DICT KEY (EMPTY_DICT KEY ...) SETITEM.
  EXPECT_THAT(check_pickle(pickle(repeat("}K\x01", 5000) + "N" + repeat("s", 5000))).message(),
              HasSubstr("deeper than 1000"));
  // A value shared by reference: [a, a] with a = [1].
  EXPECT_TRUE(check_pickle(pickle("](]q\x01K\x01" "ah\x01" "e"s)).ok());
}

TEST(ArchiveCheckTest, ValuesThatContainThemselvesAreRefused) {
  // A list appended into itself through the memo while it is being filled.
  EXPECT_THAT(check_pickle(pickle("]q\x00(h\x00" "e"s)).message(), HasSubstr("contain themselves"));
  // ... or through DUP.
  EXPECT_THAT(check_pickle(pickle("]2a")).message(), HasSubstr("contain themselves"));
  // A finished list fetched from the memo and filled with a tuple holding it.
  EXPECT_THAT(check_pickle(pickle("]q\x00\x85q\x01h\x00(h\x01" "e"s)).message(),
              HasSubstr("fills a list or dict after referring to it"));
}

TEST(ArchiveCheckTest, TypeNamesNestedTooDeeplyAreRefused) {
  const std::string type = repeat("List[", 5000) + "int" + repeat("]", 5000);
  std::string body = "X";
  const uint32_t n = type.size();
  body.append(reinterpret_cast<const char*>(&n), 4);
  body += type;
  EXPECT_THAT(check_pickle(pickle(body)).message(), HasSubstr("a string nests '['"));
}

TEST(ArchiveCheckTest, StreamsItCannotFollowAreLeftToLibtorch) {
  EXPECT_TRUE(check_pickle("").ok());
  EXPECT_TRUE(check_pickle("\x80\x02\xff").ok());   // an unknown opcode
  EXPECT_TRUE(check_pickle("\x80\x02X\xff\xff").ok());  // a truncated string
  EXPECT_TRUE(check_pickle("\x80\x02h\x07").ok());  // an unknown memo entry
}

TEST(ArchiveCheckTest, WhatTorchSavesPasses) {
  c10::IValue nested = c10::ivalue::Tuple::create(
      {at::ones({2, 3}), c10::List<at::Tensor>({at::zeros({4})}),
       c10::ivalue::Tuple::create({at::ones({1}), int64_t{3}, std::string("List[int]")})});
  const std::vector<char> saved = torch::jit::pickle_save(nested);
  EXPECT_TRUE(check_archive_bytes(absl::string_view(saved.data(), saved.size())).ok());

  torch::jit::Module m("m");
  m.register_parameter("weight", at::ones({3}), false);
  m.define(R"(
def forward(self, x, y: int = 3):
    # a comment (((((
    s = "a string (((((((("
    if y > 2:
        for i in range(y):
            x = -x * self.weight + x.neg().relu()
    return [x, x + 1, torch.tensor([1.5, -2.0, 3e4])][0]
)");
  std::stringstream file;
  m.save(file);
  EXPECT_TRUE(check_archive_bytes(file.str()).ok());
  EXPECT_TRUE(check_module_tensors(m).ok());
}

TEST(ArchiveCheckTest, SourceNestedDeeperThanAnyModelIsRefused) {
  const std::string header = "def forward(self, x):\n    return ";
  EXPECT_TRUE(check_torchscript_source(header + repeat("(", 100) + "x" + repeat(")", 100)).ok());
  for (const std::string& expression :
       {repeat("(", 2000) + "x" + repeat(")", 2000), repeat("-", 2000) + "x",
        "x" + repeat(" + x", 2000), "x" + repeat(".neg()", 2000),
        repeat("x if True else ", 2000) + "x", repeat("not ", 2000) + "x",
        "f" + repeat("(x)", 2000)}) {
    const absl::Status s = check_torchscript_source(header + expression + "\n");
    EXPECT_THAT(s.message(), HasSubstr("line 2 nests brackets, operators and blocks deeper than 1000"))
        << expression.substr(0, 20);
  }
  // Blocks in blocks.
  std::string blocks = "def f(x):\n";
  for (int i = 1; i <= 1001; ++i) absl::StrAppend(&blocks, std::string(i, ' '), "if x:\n");
  blocks += std::string(1002, ' ') + "pass\n";
  EXPECT_THAT(check_torchscript_source(blocks).message(), HasSubstr("line 1001 nests"));
  // Long but flat: a list of 5000 negative numbers, a sum split over lines.
  std::string flat = header + "[";
  for (int i = 0; i < 5000; ++i) absl::StrAppend(&flat, "-", i, ".5, ");
  flat += "]\n";
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&flat, "    y = x + ", i, "\n");
  EXPECT_TRUE(check_torchscript_source(flat).ok());
  // Brackets inside strings and comments are not code.
  EXPECT_TRUE(check_torchscript_source(header + "'" + repeat("(", 5000) + "'  # " +
                                       repeat("(", 5000) + "\n")
                  .ok());
}

TEST(ArchiveCheckTest, ArchiveErrorsNameTheRecord) {
  std::string zip;
  caffe2::serialize::PyTorchStreamWriter writer([&zip](const void* data, size_t size) {
    zip.append(static_cast<const char*>(data), size);
    return size;
  });
  const std::string deep = nested_lists(5000);
  writer.writeRecord("data.pkl", deep.data(), deep.size());
  writer.writeEndOfFile();
  EXPECT_THAT(check_archive_bytes(zip).message(),
              HasSubstr("its data.pkl: it nests values deeper than 1000 levels"));
  // Not a zip archive: libtorch's error will say so.
  EXPECT_TRUE(check_archive_bytes("not a zip archive").ok());
}

TEST(ArchiveCheckTest, TensorsReachingPastTheirStorageAreRefused) {
  at::Tensor t = at::ones({100});
  EXPECT_TRUE(check_tensors_in_bounds(t).ok());
  t.storage().set_nbytes(16);
  const absl::Status s = check_tensors_in_bounds(c10::ivalue::Tuple::create({int64_t{1}, c10::List<at::Tensor>({t})}));
  EXPECT_THAT(s.message(), HasSubstr("a tensor reaches past its storage (400 bytes of 16)"));

  torch::jit::Module m("m");
  at::Tensor weight = at::ones({8});
  m.register_parameter("weight", weight, false);
  weight.storage().set_nbytes(4);
  EXPECT_THAT(check_module_tensors(m).message(), HasSubstr("reaches past its storage"));
}

}  // namespace
}  // namespace fx
