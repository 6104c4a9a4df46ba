// Copyright 2026 The FX for C++ Authors.
#include "passes/pipeline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

TEST(PipelineTest, ParsesNamesAndOptions) {
  auto p = parse_pipeline(" inline{modules=relu,layer1.0.conv1 recurse=true} , dce,invert ");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[0].name, "inline");
  EXPECT_EQ((*p)[0].options.get_list("modules"),
            (std::vector<std::string>{"relu", "layer1.0.conv1"}));
  EXPECT_TRUE(*(*p)[0].options.get_bool("recurse", false));
  EXPECT_EQ((*p)[1].name, "dce");
  EXPECT_TRUE((*p)[1].options.empty());
  EXPECT_EQ((*p)[2].position, 56u);  // 0-based offset of "invert"
}

TEST(PipelineTest, PrintsWhatItParsesCanonically) {
  auto p = parse_pipeline("inline{ modules=relu  recurse },dce{submodules=true},tag{name='a b'}");
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string text = print_pipeline(*p);
  EXPECT_EQ(text, "inline{modules=relu recurse},dce{submodules=true},tag{name='a b'}");
  auto again = parse_pipeline(text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(print_pipeline(*again), text);
  EXPECT_EQ((*again)[2].options.get("name"), "a b");
}

TEST(PipelineTest, EmptyPipelineIsEmpty) {
  auto p = parse_pipeline("  ");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->empty());
}

TEST(PipelineTest, MalformedTextGivesThePosition) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"dce,", "at character 5: expected a pass name after ','"},
           Case{"inline{modules=relu", "at character 20: expected '}' to close the options of 'inline'"},
           Case{"dce invert", "at character 5: expected ',' between passes"},
           Case{"dce{=1}", "at character 5: expected an option name"},
           Case{"tag{name='a}", "unterminated quoted value"},
           Case{",dce", "at character 1: expected a pass name"},
           Case{"a{b=c{d}}", "unexpected '{' in an option value"},
       }) {
    auto p = parse_pipeline(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_THAT(std::string(p.status().message()), HasSubstr(c.message)) << c.text;
    EXPECT_THAT(std::string(p.status().message()), HasSubstr("malformed pipeline")) << c.text;
  }
}

TEST(PipelineTest, CheckOptionsNamesTheUnknownOption) {
  auto p = parse_pipeline("inline{module=relu}");
  ASSERT_TRUE(p.ok());
  absl::Status s = check_options("pass", (*p)[0],
                                 {{"modules", "", ""}, {"types", "", ""}, {"recurse", "", "false"}});
  EXPECT_EQ(std::string(s.message()),
            "pass 'inline' has no option 'module' (did you mean 'modules'?); its options: "
            "modules, types, recurse");
}

TEST(OptionsTest, TypedAccess) {
  Options o({{"n", "3"}, {"flag", ""}, {"off", "false"}, {"bad", "maybe"}, {"list", "a,,b"}});
  EXPECT_EQ(*o.get_int("n", 0), 3);
  EXPECT_EQ(*o.get_int("missing", 7), 7);
  EXPECT_TRUE(*o.get_bool("flag", false));
  EXPECT_FALSE(*o.get_bool("off", true));
  EXPECT_THAT(std::string(o.get_bool("bad", false).status().message()),
              HasSubstr("option 'bad' takes true or false, not 'maybe'"));
  EXPECT_FALSE(o.get_int("bad", 0).ok());
  EXPECT_EQ(o.get_list("list"), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace fx
