// Copyright 2026 The FX for C++ Authors.
#include "exported_program/treespec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace exported {
namespace {

using ::testing::HasSubstr;

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

const char kLeaf[] = R"({"type": null, "context": null, "children_spec": []})";

// (args, kwargs) with one positional leaf and kwargs of `context` (JSON text,
// escaped as a string of the spec) over `values`.
std::string args_and_kwargs(const std::string& context, const std::string& values) {
  return absl::StrCat(R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)",
                      R"({"type": "builtins.tuple", "context": "null", "children_spec": [)", kLeaf, "]}, ",
                      R"({"type": "builtins.dict", "context": ")", context, R"(", "children_spec": [)", values,
                      "]}]}]");
}

std::string error_of(const std::string& text) {
  auto spec = parse_treespec(text);
  EXPECT_FALSE(spec.ok()) << text.substr(0, 200);
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(TreeSpecTest, ReadsAndWritesBack) {
  const std::string text = args_and_kwargs(R"([\"a\", 2])", absl::StrCat(kLeaf, ", ", kLeaf));
  auto spec = parse_treespec(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->num_leaves(), 3u);
  EXPECT_EQ(spec->children[1].keys, (std::vector<nlohmann::json>{"a", 2}));
  auto back = parse_treespec(to_string(*spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(to_string(*back), to_string(*spec));
}

// The spec is a JSON string inside the program, parsed again here: the
// program's own bound on nesting never saw into it. Each of these overflowed
// the stack (nlohmann's dump() and copies recurse once per level).
TEST(TreeSpecTest, NestingWithoutEndIsAnError) {
  EXPECT_THAT(error_of(absl::StrCat("[1, ", repeat("[", 100000), repeat("]", 100000), "]")),
              HasSubstr("the tree spec: the JSON nests arrays and objects deeper than 204 levels"));
  EXPECT_THAT(error_of(absl::StrCat("[1, ", repeat(R"({"type": "builtins.list", "children_spec": [)", 100000),
                                    repeat("]}", 100000), "]")),
              HasSubstr("deeper than 204 levels"));
  // Within the text's bound, the tree's own.
  EXPECT_THAT(error_of(absl::StrCat("[1, ", repeat(R"({"type": "builtins.list", "children_spec": [)", 101),
                                    repeat("]}", 101), "]")),
              HasSubstr("the tree spec nests deeper than 100 levels"));
  // A dict's context (its keys) is JSON text again.
  EXPECT_THAT(error_of(args_and_kwargs(repeat("[", 100000) + repeat("]", 100000), kLeaf)),
              HasSubstr("[1].children_spec[1].context: builtins.dict without its keys"));
}

TEST(TreeSpecTest, DictKeysAreStringsOrIntsEachOnce) {
  for (const char* key : {"null", "1.5", "true", "[\\\"a\\\"]", "{}", "18446744073709551615"}) {
    EXPECT_THAT(error_of(args_and_kwargs(absl::StrCat("[", key, "]"), kLeaf)),
                HasSubstr("[1].children_spec[1].context[0]: a dict key that is "))
        << key;
  }
  EXPECT_THAT(error_of(args_and_kwargs(R"([\"a\", \"a\"])", absl::StrCat(kLeaf, ", ", kLeaf))),
              HasSubstr("[1].children_spec[1].context[1]: dict key \"a\" appears twice"));
  EXPECT_THAT(error_of(args_and_kwargs(R"([\"a\"])", absl::StrCat(kLeaf, ", ", kLeaf))),
              HasSubstr("[1].children_spec[1]: a dict with 1 keys and 2 values"));
}

}  // namespace
}  // namespace exported
}  // namespace fx
