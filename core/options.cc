// Copyright 2026 The FX for C++ Authors.
#include "core/options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace fx {

const std::string* Options::find(absl::string_view key) const {
  for (const auto& kv : values_) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

bool Options::has(absl::string_view key) const { return find(key) != nullptr; }

std::string Options::get(absl::string_view key, absl::string_view default_value) const {
  const std::string* v = find(key);
  return v != nullptr ? *v : std::string(default_value);
}

absl::StatusOr<bool> Options::get_bool(absl::string_view key, bool default_value) const {
  const std::string* v = find(key);
  if (v == nullptr) return default_value;
  if (v->empty() || *v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' takes true or false, not '", *v, "'"));
}

absl::StatusOr<int64_t> Options::get_int(absl::string_view key, int64_t default_value) const {
  const std::string* v = find(key);
  if (v == nullptr) return default_value;
  int64_t out = 0;
  if (!absl::SimpleAtoi(*v, &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("option '", key, "' takes an integer, not '", *v, "'"));
  }
  return out;
}

std::vector<std::string> Options::get_list(absl::string_view key) const {
  const std::string* v = find(key);
  if (v == nullptr) return {};
  return absl::StrSplit(*v, ',', absl::SkipEmpty());
}

}  // namespace fx
