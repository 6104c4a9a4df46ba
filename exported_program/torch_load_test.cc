// Copyright 2026 The FX for C++ Authors.
#include "exported_program/torch_load.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "exported_program/torch_save.h"
#include "exported_program/zip_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/exported_programs.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace exported {
namespace {

using ::testing::HasSubstr;

// A torch.save zip around a hand-written pickle (and storages).
std::string saved(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& data = {}) {
  ZipWriter zip;
  zip.add("archive/data.pkl", pickle);
  for (const auto& [key, bytes] : data) zip.add("archive/data/" + key, bytes);
  zip.add("archive/version", "3\n");
  return *zip.finish();
}

// Pickle opcodes for hand-written pickles.
const std::string kProto = "\x80\x02";
std::string le32(uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}
std::string unicode(const std::string& text) { return "X" + le32(static_cast<uint32_t>(text.size())) + text; }
std::string small(int v) { return std::string("K") + static_cast<char>(v); }
std::string put(uint32_t i) { return "r" + le32(i); }
std::string get(uint32_t i) { return "j" + le32(i); }

std::string error_of(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& data = {}) {
  auto v = torch_load(saved(pickle, data), "crafted.pt");
  EXPECT_FALSE(v.ok());
  return v.ok() ? "" : std::string(v.status().message());
}

// A chain of `n` containers, each in the one before, made through the memo
// so that no container is ever deeper than 2 on the stack: L0 = [], then
// L(i-1).append(Li) with L(i-1) fetched from the memo, each left on the
// stack above a mark, the lot made a tuple appended to L0.
std::string memo_chain(int n, bool dicts) {
  std::string p = kProto + (dicts ? "}" : "]") + put(0) + "(";
  for (int i = 1; i < n; ++i) {
    p += get(i - 1) + (dicts ? unicode("k") : "") + (dicts ? "}" : "]") + put(i) + (dicts ? "s" : "a");
  }
  return p + "t" + (dicts ? unicode("rest") + "s" : "a") + ".";
}

TEST(TorchLoadTest, AValueThatContainsItselfOrHidesItsDepthIsRefused) {
  // l = []; l.append(l), as Python's pickler writes it; and d['a'] = d.
  EXPECT_THAT(error_of(kProto + "]" + put(0) + get(0) + "a."), HasSubstr("crafted.pt: a list or dict that contains itself"));
  EXPECT_THAT(error_of(kProto + "}" + put(0) + unicode("a") + get(0) + "s."), HasSubstr("contains itself"));
  // a = [b], b = [a].
  EXPECT_THAT(error_of(kProto + "]" + put(0) + "]" + put(1) + get(0) + "aa."),
              HasSubstr("a list or dict changed after it was placed in another value"));
  // 100,000 deep, through the memo: each walk of it (its destructor
  // included) overflowed the stack.
  for (bool dicts : {false, true}) {
    EXPECT_THAT(error_of(memo_chain(100000, dicts)), HasSubstr("changed after it was placed")) << dicts;
  }
  // A value used twice is fine: ([1], same list again).
  auto shared = torch_load(saved(kProto + "]" + put(0) + small(1) + "a" + get(0) + "\x86."), "shared.pt");
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_TRUE(shared->toTupleRef().elements()[1].toListRef()[0].isInt());
}

// What the file says reaches libtorch only once checked.
TEST(TorchLoadTest, WhatTheFileSaysIsCheckedBeforeLibtorchSeesIt) {
  // A tensor: _rebuild_tensor_v2(storage, offset 0, sizes, strides, requires_grad, OrderedDict()).
  auto tensor = [](const std::string& storage_type, const std::string& pid_type, const std::string& sizes,
                   const std::string& strides, bool requires_grad) {
    return std::string("\x80\x02") + "ctorch._utils\n_rebuild_tensor_v2\n" + "((" + unicode("storage") +
           pid_type + unicode("0") + unicode("cpu") + small(4) + "tQ" + small(0) + sizes + strides +
           (requires_grad ? "\x88" : "\x89") + "ccollections\nOrderedDict\n)R" + "tR." + storage_type;
  };
  const std::vector<std::pair<std::string, std::string>> data = {{"0", std::string(32, '\0')}};
  const std::string float_type = "ctorch\nFloatStorage\n";
  const std::string four = "(" + small(4) + "t";
  const std::string one = "(" + small(1) + "t";
  auto ok = torch_load(saved(tensor("", float_type, four, one, true), data), "ok.pt");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ok->toTensor().requires_grad());
  // The storage type as the reader once held it inside a tuple: (marker,
  // dtype number 12, a quantized dtype), which reached libtorch's quantizer
  // asserts.
  const std::string forged = "(" + unicode("fx:storage_type") + small(12) + "t";
  EXPECT_THAT(error_of(tensor("", forged, four, one, false), data), HasSubstr("a storage id without its storage type"));
  // Only floating-point and complex tensors require grad (libtorch throws).
  EXPECT_THAT(error_of(tensor("", "ctorch\nLongStorage\n", four, one, true), data),
              HasSubstr("a tensor of dtype Long that requires grad"));
  EXPECT_THAT(error_of(tensor("", float_type, "N", "N", false), data),
              HasSubstr("sizes or strides that are not a tuple of ints"));
  EXPECT_THAT(error_of(tensor("", float_type, "(" + unicode("4") + "t", one, false), data),
              HasSubstr("sizes or strides that are not a tuple of ints"));
  // A string's length past the end, however large.
  EXPECT_THAT(error_of("\x80\x02\x8d" + std::string(8, '\xff') + "."), HasSubstr("the pickle is truncated"));
  // A memo of a mark (which unbalanced the count of marks).
  EXPECT_THAT(error_of(kProto + "(" + put(0) + get(0) + "t."), HasSubstr("a memo of a mark"));
}

TEST(TorchLoadTest, ReadsWhatTorchSaveWrites) {
  // expected.pt files of the committed programs: torch 2.6's and 2.14's
  // torch.save, with one-element containers (APPEND, SETITEM).
  for (const std::string& version : testing::exported_program_versions()) {
    for (const std::string& name : testing::exported_program_names()) {
      const std::string bytes = testing::read_file(
          testing::runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, ".expected.pt")));
      auto v = torch_load(bytes, name);
      ASSERT_TRUE(v.ok()) << version << " " << name << ": " << v.status();
      ASSERT_TRUE(v->isGenericDict());
      EXPECT_TRUE(v->toGenericDict().contains("inputs"));
    }
  }
}

TEST(TorchLoadTest, ReadsBackWhatTorchSaveWritesHereWithParametersAndSharing) {
  at::Tensor w = at::randn({3, 4}).set_requires_grad(true);
  at::Tensor view = w.detach().t();  // a strided view of the same storage
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("w", w);
  dict.insert("view", view);
  dict.insert("n", int64_t{-70000});
  dict.insert("big", int64_t{1} << 40);
  dict.insert("f", 2.5);
  dict.insert("list", c10::impl::GenericList(c10::AnyType::get()));
  absl::flat_hash_set<const c10::TensorImpl*> parameters = {w.unsafeGetTensorImpl()};
  auto bytes = torch_save(c10::ivalue::Tuple::create({dict, c10::IValue(), true}), &parameters);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto v = torch_load(*bytes, "saved");
  ASSERT_TRUE(v.ok()) << v.status();
  const auto& items = v->toTupleRef().elements();
  auto back = items[0].toGenericDict();
  at::Tensor w2 = back.at("w").toTensor();
  EXPECT_TRUE(at::equal(w2, w));
  EXPECT_TRUE(w2.requires_grad());
  at::Tensor view2 = back.at("view").toTensor();
  EXPECT_EQ(view2.strides(), view.strides());
  EXPECT_TRUE(view2.is_alias_of(w2));
  EXPECT_EQ(back.at("n").toInt(), -70000);
  EXPECT_EQ(back.at("big").toInt(), int64_t{1} << 40);
  EXPECT_EQ(back.at("f").toDouble(), 2.5);
  EXPECT_TRUE(items[1].isNone());
  EXPECT_TRUE(items[2].toBool());
}

TEST(TorchLoadTest, RunsNoCodeAndRefusesWhatIsNotData) {
  // GLOBAL os.system, as a malicious pickle would.
  auto v = torch_load(saved(std::string("\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00lsR.", 25)), "evil.pt");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("evil.pt: the pickle names 'os.system'"));
  EXPECT_THAT(std::string(torch_load(saved("\x80\x02]"), "cut.pt").status().message()),
              HasSubstr("ends before its STOP"));
  EXPECT_THAT(std::string(torch_load(saved("\x80\x02\xff."), "odd.pt").status().message()),
              HasSubstr("opcode 0xff"));
  EXPECT_THAT(std::string(torch_load("not a zip", "x.pt").status().message()), HasSubstr("x.pt is not a zip"));
  std::string deep = "\x80\x02";
  for (int i = 0; i < 5000; ++i) deep += "(";
  EXPECT_THAT(std::string(torch_load(saved(deep), "deep.pt").status().message()), HasSubstr("deeper than 1000"));
  std::string lists = "\x80\x02";
  for (int i = 0; i < 3000; ++i) lists += "]";
  for (int i = 0; i < 2999; ++i) lists += "a";
  lists += ".";
  EXPECT_THAT(std::string(torch_load(saved(lists), "lists.pt").status().message()), HasSubstr("deeper than 1000"));
}

TEST(TorchLoadTest, ATensorReachingPastItsStorageIsRefused) {
  // _rebuild_tensor_v2(storage '0' of 2 floats, offset 0, size (4,), stride
  // (1,), False, OrderedDict()): four floats over two.
  auto unicode = [](const std::string& text) {
    std::string out = "X";
    for (int i = 0; i < 4; ++i) out += static_cast<char>((text.size() >> (8 * i)) & 0xff);
    return out + text;
  };
  auto small = [](int v) { return std::string("K") + static_cast<char>(v); };
  const std::string pickle = std::string("\x80\x02") + "ctorch._utils\n_rebuild_tensor_v2\n" + "((" +
                             unicode("storage") + "ctorch\nFloatStorage\n" + unicode("0") + unicode("cpu") +
                             small(2) + "tQ" + small(0) + "(" + small(4) + "t" + "(" + small(1) + "t" + "\x89" +
                             "ccollections\nOrderedDict\n)R" + "tR.";
  auto v = torch_load(saved(pickle, {{"0", std::string(8, '\0')}}), "past.pt");
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("reaches past its storage"));
  auto missing = torch_load(saved(pickle), "missing.pt");
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no member 'archive/data/0'"));
}

}  // namespace
}  // namespace exported
}  // namespace fx
