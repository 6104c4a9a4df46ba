// Copyright 2026 The FX for C++ Authors.
#include "exported_program/torch_load.h"

#include <ATen/ATen.h>

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
