// Copyright 2026 The FX for C++ Authors.
#include "plugins/pipeline_text.h"

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
  EXPECT_EQ((*p)[0].options,
            (OptionValues{{"modules", "relu,layer1.0.conv1"}, {"recurse", "true"}}));
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
  EXPECT_EQ((*again)[2].options, (OptionValues{{"name", "a b"}}));
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

TEST(PipelineTest, NestedGroupsRoundTrip) {
  auto p = parse_pipeline("fixpoint{max_iterations=3}( inline{recurse} , dce ),invert");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_TRUE((*p)[0].has_nested);
  ASSERT_EQ((*p)[0].nested.size(), 2u);
  EXPECT_EQ((*p)[0].nested[1].name, "dce");
  EXPECT_EQ(print_pipeline(*p), "fixpoint{max_iterations=3}(inline{recurse},dce),invert");
  EXPECT_THAT(std::string(parse_pipeline("fixpoint(dce").status().message()),
              HasSubstr("expected ')' to close the group of 'fixpoint'"));
  EXPECT_THAT(std::string(parse_pipeline("dce)").status().message()),
              HasSubstr("expected ',' between passes"));
}

TEST(PipelineTest, GroupsNestAtMost32Deep) {
  auto nested = [](int depth, bool closed) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "fixpoint(";
    text += "dce";
    if (closed) text += std::string(depth, ')');
    return text;
  };
  EXPECT_TRUE(parse_pipeline(nested(32, true)).ok());
  // Parsed (and run, and destroyed) recursively: 10,000 deep would exhaust the stack.
  for (bool closed : {true, false}) {
    const absl::Status s = parse_pipeline(nested(100000, closed)).status();
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("at character 297: groups nest deeper than 32 levels"));
  }
}

TEST(PipelineTest, ValuesWithQuotesAndBackslashesRoundTrip) {
  // Found by the fuzzer: a value starting with a quote printed unquoted.
  for (const std::string& value :
       {std::string("\"a"), std::string("it's"), std::string("a\\b"), std::string("'\" {}")}) {
    std::vector<PipelineElement> p(1);
    p[0].name = "tag";
    p[0].options = {{"name", value}};
    auto again = parse_pipeline(print_pipeline(p));
    ASSERT_TRUE(again.ok()) << print_pipeline(p) << ": " << again.status();
    EXPECT_EQ((*again)[0].options, (OptionValues{{"name", value}})) << print_pipeline(p);
  }
}

TEST(PipelineTest, LongTextIsCutInMessages) {
  const std::string text = "dce " + std::string(100000, 'x');
  auto p = parse_pipeline(text);
  ASSERT_FALSE(p.ok());
  EXPECT_LT(p.status().message().size(), 300u);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("(100004 characters)"));
}

}  // namespace
}  // namespace fx
