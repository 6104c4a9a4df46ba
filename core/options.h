// Copyright 2026 The FX for C++ Authors.
//
// options.h: named options of a pass or tracer extension.
//
// A pipeline names passes with options, `inline{modules=relu,layer1.0.conv1
// recurse=true}` (passes/pipeline.h); the pass receives them as Options. A pass
// declares the options it takes as OptionSpecs, which `fxrun --list-plugins`
// prints and the pass manager checks names against.
//
//   int64_t depth = *options.get_int("depth", 1);
//   std::vector<std::string> modules = options.get_list("modules");  // "a,b" -> {a, b}
#ifndef FX_CORE_OPTIONS_H_
#define FX_CORE_OPTIONS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

// An option a pass or extension takes.
struct OptionSpec {
  std::string name;
  std::string description;
  std::string default_value;  // as text; empty when there is none
};

class Options {
 public:
  Options() = default;
  explicit Options(std::vector<std::pair<std::string, std::string>> values)
      : values_(std::move(values)) {}
  Options(std::initializer_list<std::pair<std::string, std::string>> values) : values_(values) {}

  bool has(absl::string_view key) const;
  // The value of `key` as text, or `default_value`.
  std::string get(absl::string_view key, absl::string_view default_value = "") const;
  // `true`/`false`/`1`/`0` (and `key` given without a value means true).
  absl::StatusOr<bool> get_bool(absl::string_view key, bool default_value) const;
  absl::StatusOr<int64_t> get_int(absl::string_view key, int64_t default_value) const;
  // A comma-separated list; empty when `key` is absent.
  std::vector<std::string> get_list(absl::string_view key) const;

  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }
  bool empty() const { return values_.empty(); }

 private:
  // The value of `key`, or nullptr.
  const std::string* find(absl::string_view key) const;

  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace fx

#endif  // FX_CORE_OPTIONS_H_
