// Copyright 2026 The FX for C++ Authors.
#include "plugins/options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/pipeline_text.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Example : public OptionSet {
 public:
  Option<bool> flag{*this, "flag", "a flag", false};
  Option<int64_t> n{*this, "n", "a count", 3};
  Option<double> scale{*this, "scale", "a factor", 0.5};
  Option<std::string> mode{*this, "mode", "how", "warn", {"warn", "fail"}};
  Option<std::string> tag{*this, "tag", "a tag", "foo"};
  ListOption names{*this, "names", "some names"};
};

std::string message_of(const absl::Status& s) { return std::string(s.message()); }

TEST(OptionsTest, DeclaredOnceWithTypeDefaultAndHelp) {
  Example e;
  std::vector<std::string> rows;
  for (const OptionSpec& s : e.option_specs()) {
    rows.push_back(s.name + ":" + s.type + ":" + s.default_value + ":" + s.description);
  }
  EXPECT_THAT(rows, ElementsAre("flag:bool:false:a flag", "n:int:3:a count",
                                "scale:float:0.5:a factor", "mode:warn|fail:warn:how",
                                "tag:string:foo:a tag", "names:list::some names"));
  EXPECT_FALSE(*e.flag);
  EXPECT_EQ(*e.n, 3);
  EXPECT_TRUE(e.names->empty());
}

TEST(OptionsTest, TypedParsing) {
  Example e;
  ASSERT_TRUE(e.set_options({{"flag", ""}, {"n", "7"}, {"scale", "2.5"}, {"mode", "fail"},
                             {"names", "a,b.c"}})
                  .ok());
  EXPECT_TRUE(*e.flag);
  EXPECT_EQ(*e.n, 7);
  EXPECT_DOUBLE_EQ(*e.scale, 2.5);
  EXPECT_EQ(*e.mode, "fail");
  EXPECT_THAT(*e.names, ElementsAre("a", "b.c"));
  EXPECT_TRUE(e.names.is_set());
  EXPECT_FALSE(e.tag.is_set());
}

TEST(OptionsTest, BadValuesNameTheOptionAndWhatItTakes) {
  struct Case {
    OptionValues values;
    const char* message;
  };
  for (const Case& c : {
           Case{{{"flag", "maybe"}}, "option 'flag' takes true or false, not 'maybe'"},
           Case{{{"n", "x"}}, "option 'n' takes an integer, not 'x'"},
           Case{{{"scale", "1.2.3"}}, "option 'scale' takes a number, not '1.2.3'"},
           Case{{{"mode", "ignore"}}, "option 'mode' takes warn or fail, not 'ignore'"},
           Case{{{"names", ""}}, "option 'names' needs at least one name"},
           Case{{{"names", "a,,b"}}, "option 'names' has an empty name in 'a,,b'"},
       }) {
    Example e;
    EXPECT_EQ(message_of(e.set_options(c.values)).substr(0, std::string(c.message).size()),
              c.message);
  }
}

TEST(OptionsTest, SetFromCode) {
  Example e;
  e.n = 11;
  e.names = {"x"};
  EXPECT_EQ(*e.n, 11);
  EXPECT_TRUE(e.n.is_set());
  EXPECT_THAT(*e.names, ElementsAre("x"));
}

TEST(OptionsTest, RegistryChecksNamesOnceForEveryComponent) {
  Example e;
  auto p = parse_pipeline("thing{nn=1}");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(message_of(check_option_names("pass", (*p)[0], e.option_specs())),
            "pass 'thing' has no option 'nn' (did you mean 'n'?); its options: flag, n, scale, "
            "mode, tag, names");
  p = parse_pipeline("thing{n=1 n=2}");
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(message_of(check_option_names("tracer extension", (*p)[0], e.option_specs())),
              HasSubstr("tracer extension 'thing' has option 'n' twice"));
  p = parse_pipeline("thing{x=1}");
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(message_of(check_option_names("pass", (*p)[0], {})), HasSubstr("takes no options"));
}

}  // namespace
}  // namespace fx
