// Copyright 2026 The FX for C++ Authors.
//
// A plugin whose entry point or registration misbehaves as the environment
// variable FX_TEST_MISBEHAVE says, for the loader's and fxrun's tests:
//   entry_throws_std, entry_throws_int   fxGetPluginInfo throws
//   register_throws_int                  the registration callback throws an int
//   empty_name, escape_name              FxPluginInfo::name is "" or holds an escape sequence
//   comma_pass, brace_pass, space_pass, fixpoint_pass
//                                        a pass name no pipeline can name
//   duplicate_option                     a pass declares option 'level' twice
//   default_not_a_choice                 an option's default is not one of its choices
//   second_inverse                       a second inverse for invert's key 'exp'
//   two_line_description                 a description with a newline
//   static_abort                         a static initializer aborts, while dlopen loads it
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "plugins/fx_plugin.h"

namespace {

std::string misbehaviour() {
  const char* how = std::getenv("FX_TEST_MISBEHAVE");
  return how == nullptr ? "" : how;
}

class Nothing : public fx::Pass {
 public:
  absl::Status run(fx::GraphModule&, fx::PassContext&) override { return absl::OkStatus(); }
};

class TwoLevels : public fx::Pass {
 public:
  fx::Option<int64_t> level{*this, "level", "a level", 1};
  fx::Option<int64_t> level_again{*this, "level", "the same name again", 2};
  absl::Status run(fx::GraphModule&, fx::PassContext&) override { return absl::OkStatus(); }
};

class BadDefault : public fx::Pass {
 public:
  fx::Option<std::string> mode{*this, "mode", "fast or slow", "medium", {"fast", "slow"}};
  absl::Status run(fx::GraphModule&, fx::PassContext&) override { return absl::OkStatus(); }
};

// Runs when the library is loaded, before its entry point is looked up.
const int kLoaded = [] {
  if (misbehaviour() == "static_abort") std::abort();
  return 0;
}();

void register_misbehaving(fx::PluginRegistrar* registrar) {
  const std::string how = misbehaviour();
  if (how == "register_throws_int") throw 7;
  std::string pass = "nothing";
  if (how == "comma_pass") pass = "a,b";
  if (how == "brace_pass") pass = "a{b";
  if (how == "space_pass") pass = "a b";
  if (how == "fixpoint_pass") pass = "fixpoint";
  registrar->add_pass<Nothing>(pass, how == "two_line_description" ? "first line\nsecond line"
                                                                    : "does nothing");
  if (how == "duplicate_option") registrar->add_pass<TwoLevels>("two_levels", "declares level twice");
  if (how == "default_not_a_choice") registrar->add_pass<BadDefault>("bad_default", "medium?");
  if (how == "second_inverse") registrar->add_table_entry("invert.inverses", "exp", "my_log");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) FxPluginInfo fxGetPluginInfo() {
  static std::string name;
  const std::string how = misbehaviour();
  if (how == "entry_throws_std") throw std::runtime_error("the entry point's own exception");
  if (how == "entry_throws_int") throw 3;
  name = how == "empty_name" ? "" : how == "escape_name" ? "bad\x1b[2Jname" : "misbehaving";
  return FxPluginInfo{FX_PLUGIN_API_VERSION, name.c_str(), "1.0", &register_misbehaving};
}
