// Copyright 2026 The FX for C++ Authors.
//
// Fuzzes typed options through the path pipeline text takes to a component:
// parse, check names against the declared options, parse values. Any input is
// accepted or refused with a bounded message naming the option; accepted
// values read back as set.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "tests/fuzzing/fuzz_check.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "plugins/options.h"
#include "plugins/pipeline_text.h"

namespace {

class AllKinds : public fx::OptionSet {
 public:
  fx::Option<bool> flag{*this, "flag", "", false};
  fx::Option<int64_t> count{*this, "count", "", 3};
  fx::Option<double> scale{*this, "scale", "", 0.5};
  fx::Option<std::string> mode{*this, "mode", "", "warn", {"warn", "fail"}};
  fx::Option<std::string> tag{*this, "tag", "", "foo"};
  fx::ListOption names{*this, "names", ""};
};

}  // namespace

using fx::fuzzing::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = fx::parse_pipeline(absl::StrCat("p{", text, "}"));
  if (!parsed.ok() || parsed->size() != 1) return 0;
  AllKinds options;
  absl::Status names = fx::check_option_names("pass", (*parsed)[0], options.option_specs());
  if (!names.ok()) {
    check(names.message().size() < 600, "name error not cut", names.message());
    return 0;
  }
  absl::Status set = options.set_options((*parsed)[0].options);
  if (!set.ok()) {
    check(set.message().size() < 600, "value error not cut", set.message());
    check(absl::StartsWith(set.message(), "option '"), "value error does not name the option");
    return 0;
  }
  check(*options.mode == "warn" || *options.mode == "fail", "mode outside its choices");
  for (const std::string& n : *options.names) check(!n.empty(), "empty name in a list");
  return 0;
}
