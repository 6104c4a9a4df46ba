// Copyright 2026 The FX for C++ Authors.
#include "plugins/registry.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/plugin_guard.h"

namespace fx {
namespace {

using ::testing::HasSubstr;

class Nothing : public Pass {
 public:
  absl::Status run(GraphModule&, PassContext&) override { return absl::OkStatus(); }
};

class NoExtension : public TracerExtension {};

class TwoLevels : public Nothing {
 public:
  Option<int64_t> level{*this, "level", "a level", 1};
  Option<int64_t> level_again{*this, "level", "the same name again", 2};
};

class BadDefault : public Nothing {
 public:
  Option<std::string> mode{*this, "mode", "fast or slow", "medium", {"fast", "slow"}};
};

class BadOptionName : public Nothing {
 public:
  Option<bool> flag{*this, "a flag", "a name with a space", false};
};

// Commits what `add` stages for plugin `name` into a fresh registry; the
// refusal's message, or "" when it was committed.
std::string refusal(const std::string& plugin_name,
                    const std::function<void(PluginRegistrar&)>& add) {
  Registry registry;
  PluginRegistrar registrar({plugin_name, "1.0", ""});
  add(registrar);
  const absl::Status s = registry.commit(registrar);
  if (!s.ok()) {
    // A refused plugin registers nothing.
    EXPECT_TRUE(registry.passes().empty());
    EXPECT_TRUE(registry.plugins().empty());
  }
  return std::string(s.message());
}

TEST(RegistryTest, RefusesNamesNoPipelineCanUse) {
  for (const char* name : {"", "a,b", "a{b", "a b", "a(b", "tab\tname"}) {
    EXPECT_THAT(refusal("p", [&](PluginRegistrar& r) { r.add_pass<Nothing>(name, "d"); }),
                HasSubstr("plugin 'p' (built in) registers pass"))
        << name;
    EXPECT_THAT(refusal("p", [&](PluginRegistrar& r) { r.add_tracer_extension<NoExtension>(name, "d"); }),
                HasSubstr("what a pipeline can name"))
        << name;
  }
  EXPECT_THAT(refusal("p", [](PluginRegistrar& r) { r.add_pass<Nothing>("fixpoint", "d"); }),
              HasSubstr("'fixpoint' is the pass manager's group"));
  EXPECT_THAT(refusal("p", [](PluginRegistrar& r) { r.add_pass<BadOptionName>("ok", "d"); }),
              HasSubstr("option 'a flag': a name of letters"));
  EXPECT_EQ(refusal("p", [](PluginRegistrar& r) { r.add_pass<Nothing>("dots.and-dashes_1", "d"); }),
            "");
}

TEST(RegistryTest, RefusesWhatAListingCannotShow) {
  for (const char* name : {"", "bad\x1b[2Jname", "two words"}) {
    EXPECT_THAT(refusal(name, [](PluginRegistrar& r) { r.add_pass<Nothing>("ok", "d"); }),
                HasSubstr("(FxPluginInfo::name); a plugin's name is letters"))
        << name;
  }
  EXPECT_THAT(refusal("p", [](PluginRegistrar& r) { r.add_pass<Nothing>("ok", "one\ntwo"); }),
              HasSubstr("its description is not one line of printable text"));
}

TEST(RegistryTest, RefusesOptionsNoPipelineCanSetAsDeclared) {
  EXPECT_THAT(refusal("p", [](PluginRegistrar& r) { r.add_pass<TwoLevels>("two", "d"); }),
              HasSubstr("registers pass 'two': option 'level' is declared twice"));
  EXPECT_THAT(refusal("p", [](PluginRegistrar& r) { r.add_pass<BadDefault>("bad", "d"); }),
              HasSubstr("option 'mode': its default 'medium' is not one of its choices (fast|slow)"));
}

TEST(RegistryTest, ATableKeyHasOneValue) {
  Registry registry;
  PluginRegistrar first({"first", "1.0", "/lib/libfirst.so"});
  first.add_table_entry("invert.inverses", "exp", "log");
  ASSERT_TRUE(registry.commit(first).ok());
  PluginRegistrar second({"second", "1.0", "/lib/libsecond.so"});
  second.add_table_entry("other.table", "exp", "anything");  // another table: fine
  second.add_table_entry("invert.inverses", "exp", "my_log");
  const absl::Status s = registry.commit(second);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("plugin 'second' (/lib/libsecond.so) adds key 'exp' to table "
                        "'invert.inverses', which plugin 'first' (/lib/libfirst.so) already added"));
  EXPECT_EQ(registry.table("invert.inverses"),
            (std::vector<std::pair<std::string, std::string>>{{"exp", "log"}}));
  EXPECT_TRUE(registry.table("other.table").empty());
  // Twice in one plugin too.
  EXPECT_THAT(refusal("p",
                      [](PluginRegistrar& r) {
                        r.add_table_entry("t", "k", "v");
                        r.add_table_entry("t", "k", "w");
                      }),
              HasSubstr("which plugin 'p' (built in) already added"));
}

TEST(RegistryTest, AFactoryThatThrowsIsAnErrorNamingThePlugin) {
  Registry registry;
  PluginRegistrar registrar({"p", "1.0", "/lib/libp.so"});
  registrar.add_pass("std", "throws", {},
                     [](const OptionValues&) -> absl::StatusOr<std::unique_ptr<Pass>> {
                       throw std::runtime_error("no memory for my tables");
                     });
  registrar.add_pass("int", "throws an int", {},
                     [](const OptionValues&) -> absl::StatusOr<std::unique_ptr<Pass>> { throw 1; });
  ASSERT_TRUE(registry.commit(registrar).ok());
  PipelineElement element;
  element.name = "std";
  EXPECT_EQ(registry.make_pass(element).status().message(),
            "plugin 'p' (/lib/libp.so) threw while making pass 'std': no memory for my tables");
  element.name = "int";
  EXPECT_THAT(std::string(registry.make_pass(element).status().message()),
              HasSubstr("threw while making pass 'int': an exception that is not a std::exception"));
}

class ThrowingExtension : public TracerExtension {
 public:
  Node* create_node(Tracer&, Op, absl::string_view, Arguments, Kwargs, absl::string_view,
                    CreateNodeNext) override {
    throw std::out_of_range("vector::at");
  }
  absl::Status end_trace(Tracer&, GraphModule&) override { throw 5; }
};

TEST(RegistryTest, TracerExtensionHooksThatThrowAreDescribed) {
  Registry registry;
  PluginRegistrar registrar({"p", "1.0", "/lib/libp.so"});
  registrar.add_tracer_extension<ThrowingExtension>("thrower", "throws");
  ASSERT_TRUE(registry.commit(registrar).ok());
  PipelineElement element;
  element.name = "thrower";
  auto extension = registry.make_tracer_extension(element);
  ASSERT_TRUE(extension.ok()) << extension.status();
  Tracer tracer;
  auto next = [](Op, absl::string_view, Arguments, Kwargs, absl::string_view) -> Node* {
    return nullptr;
  };
  // A hook without a Status throws the error, described, for the host to catch.
  try {
    (*extension)->create_node(tracer, Op::kPlaceholder, "x", {}, {}, "x", next);
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "plugin 'p' (/lib/libp.so) threw while in create_node of tracer extension 'thrower': "
              "vector::at");
  }
  // A hook with one returns it.
  GraphModule gm(std::make_shared<Module>("m"), std::make_unique<Graph>());
  EXPECT_THAT(std::string((*extension)->end_trace(tracer, gm).message()),
              HasSubstr("threw while in end_trace of tracer extension 'thrower': an exception that "
                        "is not a std::exception"));
}

}  // namespace
}  // namespace fx
