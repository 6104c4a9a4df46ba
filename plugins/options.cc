// Copyright 2026 The FX for C++ Authors.
#include "plugins/options.h"

#include <algorithm>
#include <type_traits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "core/printer.h"

namespace fx {

OptionBase::OptionBase(OptionSet& owner, std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {
  owner.options_.push_back(this);
}

OptionSpec OptionBase::spec() const {
  return OptionSpec{name_, description_, type_name(), default_text()};
}

absl::Status OptionBase::parse(absl::string_view text) {
  absl::Status s = parse_value(text);
  if (s.ok()) {
    mark_set();
    return s;
  }
  return absl::InvalidArgumentError(absl::StrCat("option '", name_, "' ", s.message()));
}

namespace {

// `'text'` quoted for a message.
std::string quoted(absl::string_view text) { return quote_for_message(text); }

}  // namespace

template <typename T>
std::string Option<T>::type_name() const {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return "int";
  } else if constexpr (std::is_same_v<T, double>) {
    return "float";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return choices_.empty() ? "string" : absl::StrJoin(choices_, "|");
  } else {
    return "list";
  }
}

template <typename T>
std::string Option<T>::default_text() const {
  if constexpr (std::is_same_v<T, bool>) {
    return default_ ? "true" : "false";
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return absl::StrCat(default_);
  } else if constexpr (std::is_same_v<T, double>) {
    return python_float_repr(default_);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return default_;
  } else {
    return absl::StrJoin(default_, ",");
  }
}

template <typename T>
absl::Status Option<T>::parse_value(absl::string_view text) {
  if constexpr (std::is_same_v<T, bool>) {
    if (text.empty() || text == "true" || text == "1") {
      value_ = true;
    } else if (text == "false" || text == "0") {
      value_ = false;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("takes true or false, not ", quoted(text)));
    }
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!absl::SimpleAtoi(text, &value_)) {
      return absl::InvalidArgumentError(absl::StrCat("takes an integer, not ", quoted(text)));
    }
  } else if constexpr (std::is_same_v<T, double>) {
    if (!absl::SimpleAtod(text, &value_)) {
      return absl::InvalidArgumentError(absl::StrCat("takes a number, not ", quoted(text)));
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!choices_.empty() && std::find(choices_.begin(), choices_.end(), text) == choices_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("takes ", absl::StrJoin(choices_, " or "), ", not ", quoted(text)));
    }
    value_ = std::string(text);
  } else {
    if (text.empty()) {
      return absl::InvalidArgumentError("needs at least one name (a comma-separated list)");
    }
    std::vector<std::string> items = absl::StrSplit(text, ',');
    for (const std::string& item : items) {
      if (item.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("has an empty name in ", quoted(text), " (a comma-separated list)"));
      }
    }
    value_ = std::move(items);
  }
  return absl::OkStatus();
}

template class Option<bool>;
template class Option<int64_t>;
template class Option<double>;
template class Option<std::string>;
template class Option<std::vector<std::string>>;

// ---- OptionSet --------------------------------------------------------------

absl::Status OptionSet::set_options(const OptionValues& values) {
  for (const auto& entry : values) {
    const std::string& key = entry.first;
    const std::string& text = entry.second;
    auto it = std::find_if(options_.begin(), options_.end(),
                           [&](const OptionBase* o) { return o->name() == key; });
    if (it == options_.end()) {
      // The registry checks names before; this is a caller's mistake.
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", key, "'"));
    }
    if (absl::Status s = (*it)->parse(text); !s.ok()) return s;
  }
  return validate_options();
}

std::vector<OptionSpec> OptionSet::option_specs() const {
  std::vector<OptionSpec> out;
  out.reserve(options_.size());
  for (const OptionBase* o : options_) out.push_back(o->spec());
  return out;
}

}  // namespace fx
