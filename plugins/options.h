// Copyright 2026 The FX for C++ Authors.
//
// options.h: typed options of passes and tracer extensions, declared once.
//
// A pass or tracer extension declares each option it takes as a member, with
// its name, help, default and type in one place (MLIR's `Option<T>`):
//
//   class Inline : public fx::Pass {
//    public:
//     fx::ListOption modules{*this, "modules", "inline calls of these submodules"};
//     fx::Option<bool> recurse{*this, "recurse", "also inline what inlined bodies call", false};
//     fx::Option<std::string> on_error{*this, "on_error", "warn or fail", "warn",
//                                      /*choices=*/{"warn", "fail"}};
//     ...
//   };
//
// The pipeline text `inline{modules=relu,layer1.0 recurse=true}` sets them
// (plugins/pipeline_text.h); C++ code sets them directly (`pass.recurse = true`)
// and reads them as values (`if (recurse) ...`, `for (auto& m : *modules)`).
// `fxrun --list-plugins` shows every option with its type, default and help,
// all read from the declarations.
//
// Value syntax, per type:
//   bool                      `true`, `false`, `1`, `0`; the bare key (`recurse`) is true
//   int64_t                   a decimal integer
//   double                    a decimal number
//   std::string               any text; with choices, one of them
//   std::vector<std::string>  (ListOption) comma-separated names, none empty
// An option may be given once per pipeline element. Parsing is the one place
// that checks values; the registry checks names before (registry.h).
//
// Contracts:
//   * Options register with the OptionSet they are members of, in declaration
//     order; an OptionSet is neither copyable nor movable (its options point at
//     it).
//   * After set_options() fails, the set is unchanged only in the options
//     before the failing one: discard a set whose set_options() failed.
#ifndef FX_PLUGINS_OPTIONS_H_
#define FX_PLUGINS_OPTIONS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// The text of one pipeline element's options, in the order written:
// `inline{modules=relu recurse}` is {{"modules", "relu"}, {"recurse", ""}}.
using OptionValues = std::vector<std::pair<std::string, std::string>>;

// What a pass or extension tells about one option (for listings and checks).
struct FX_API OptionSpec {
  std::string name;
  std::string description;
  std::string type;           // "bool", "int", "float", "string", "list", or "warn|fail"
  std::string default_value;  // as text; empty when there is none
};

class OptionSet;

class FX_API OptionBase {
 public:
  OptionBase(const OptionBase&) = delete;
  OptionBase& operator=(const OptionBase&) = delete;
  virtual ~OptionBase() = default;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  // True once set from text or from code.
  bool is_set() const { return set_; }
  OptionSpec spec() const;

  // Parses `text` as this option's value; the error says what was expected.
  absl::Status parse(absl::string_view text);

 protected:
  OptionBase(OptionSet& owner, std::string name, std::string description);
  virtual std::string type_name() const = 0;
  virtual std::string default_text() const = 0;
  virtual absl::Status parse_value(absl::string_view text) = 0;
  void mark_set() { set_ = true; }

 private:
  std::string name_;
  std::string description_;
  bool set_ = false;
};

// An option of type T: bool, int64_t, double or std::string (see the file
// comment); ListOption for lists. FX_API although a template: its members are
// defined in the FX library, for the types instantiated there (below).
template <typename T>
class FX_API Option : public OptionBase {
 public:
  Option(OptionSet& owner, std::string name, std::string description, T default_value = T(),
         std::vector<std::string> choices = {})
      : OptionBase(owner, std::move(name), std::move(description)),
        default_(default_value),
        value_(std::move(default_value)),
        choices_(std::move(choices)) {}

  const T& value() const { return value_; }
  operator const T&() const { return value_; }  // NOLINT: reads as its value
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }
  Option& operator=(T value) {
    value_ = std::move(value);
    mark_set();
    return *this;
  }

 protected:
  std::string type_name() const override;
  std::string default_text() const override;
  absl::Status parse_value(absl::string_view text) override;

 private:
  T default_;
  T value_;
  std::vector<std::string> choices_;  // std::string options only
};

// A comma-separated list of names (`modules=relu,layer1.0.conv1`).
using ListOption = Option<std::vector<std::string>>;

// The supported types, instantiated once in the FX library.
extern template class Option<bool>;
extern template class Option<int64_t>;
extern template class Option<double>;
extern template class Option<std::string>;
extern template class Option<std::vector<std::string>>;

// The options of one pass or extension. Derive from it (Pass does) and declare
// Options as members.
class FX_API OptionSet {
 public:
  OptionSet() = default;
  OptionSet(const OptionSet&) = delete;
  OptionSet& operator=(const OptionSet&) = delete;
  virtual ~OptionSet() = default;

  // Sets options from pipeline text values. Names must be known (the registry
  // checks them first, with suggestions); each value is parsed by its option.
  // Then validate_options() runs. Errors name the option.
  absl::Status set_options(const OptionValues& values);
  // The declared options, in declaration order.
  std::vector<OptionSpec> option_specs() const;
  const std::vector<OptionBase*>& options() const { return options_; }

 protected:
  // Checks that hold across options (e.g. "one of a= or b= is needed"), after
  // set_options(). The default accepts everything.
  virtual absl::Status validate_options() { return absl::OkStatus(); }

 private:
  friend class OptionBase;
  std::vector<OptionBase*> options_;
};

}  // namespace fx

#endif  // FX_PLUGINS_OPTIONS_H_
