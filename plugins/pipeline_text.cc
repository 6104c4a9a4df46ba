// Copyright 2026 The FX for C++ Authors.
#include "plugins/pipeline_text.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/message_text.h"

namespace fx {
namespace {

constexpr int kMaxGroupNesting = 32;

bool is_name_char(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.';
}

// Characters that end an unquoted option value.
bool ends_value(char c) { return absl::ascii_isspace(c) || c == '}'; }

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<PipelineElement>> parse() {
    auto out = parse_list(/*nested=*/false);
    if (!out.ok()) return out.status();
    if (!at_end()) return error("expected ',' between passes");
    return out;
  }

 private:
  // Elements up to the end of the text, or up to ')' when nested.
  absl::StatusOr<std::vector<PipelineElement>> parse_list(bool nested) {
    std::vector<PipelineElement> out;
    skip_spaces();
    if (at_end() || (nested && peek() == ')')) return out;
    while (true) {
      auto element = parse_element();
      if (!element.ok()) return element.status();
      out.push_back(std::move(*element));
      skip_spaces();
      if (at_end() || (nested && peek() == ')')) return out;
      if (peek() != ',') return error("expected ',' between passes");
      ++pos_;
      skip_spaces();
      if (at_end()) return error("expected a pass name after ','");
    }
  }

  absl::StatusOr<PipelineElement> parse_element() {
    PipelineElement element;
    element.position = pos_;
    while (!at_end() && is_name_char(peek())) element.name += text_[pos_++];
    if (element.name.empty()) return error("expected a pass name");
    skip_spaces();
    if (!at_end() && peek() == '{') {
      ++pos_;
      if (absl::Status s = parse_options(element); !s.ok()) return s;
      skip_spaces();
    }
    if (!at_end() && peek() == '(') {
      // Groups are parsed (and run) recursively: a bound keeps a crafted
      // pipeline from exhausting the stack.
      if (++depth_ > kMaxGroupNesting) {
        return error(absl::StrCat("groups nest deeper than ", kMaxGroupNesting,
                                  " levels; no pipeline needs that"));
      }
      ++pos_;
      auto nested = parse_list(/*nested=*/true);
      --depth_;
      if (!nested.ok()) return nested.status();
      if (at_end()) return error("expected ')' to close the group of '" + element.name + "'");
      ++pos_;
      element.nested = std::move(*nested);
      element.has_nested = true;
    }
    return element;
  }

  absl::Status parse_options(PipelineElement& element) {
    while (true) {
      skip_spaces();
      if (at_end()) return error("expected '}' to close the options of '" + element.name + "'");
      if (peek() == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      std::string key;
      while (!at_end() && is_name_char(peek())) key += text_[pos_++];
      if (key.empty()) return error("expected an option name");
      std::string value;
      if (!at_end() && peek() == '=') {
        ++pos_;
        auto v = parse_value();
        if (!v.ok()) return v.status();
        value = std::move(*v);
      }
      if (!at_end() && !ends_value(peek())) {
        return error("expected a space or '}' after option '" + key + "'");
      }
      element.options.emplace_back(std::move(key), std::move(value));
    }
  }

  absl::StatusOr<std::string> parse_value() {
    std::string value;
    if (!at_end() && (peek() == '\'' || peek() == '"')) {
      // A quoted value; a backslash takes the next character as it is.
      const char quote = text_[pos_++];
      while (!at_end() && peek() != quote) {
        if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
        value += text_[pos_++];
      }
      if (at_end()) return error(std::string("unterminated quoted value (missing ") + quote + ")");
      ++pos_;
      return value;
    }
    while (!at_end() && !ends_value(peek())) {
      if (peek() == '{') return error("unexpected '{' in an option value (quote the value)");
      value += text_[pos_++];
    }
    return value;
  }

  absl::Status error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("malformed pipeline ", quote_for_message(text_),
                                                   " at character ", pos_ + 1, ": ", what));
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  void skip_spaces() {
    while (!at_end() && absl::ascii_isspace(peek())) ++pos_;
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // groups open at pos_
};

// `value` as it must be written to read back: as it is, or quoted (with
// backslashes before the quote and backslashes) when it holds a space, a
// brace or a parenthesis, or starts with a quote.
std::string quote_if_needed(const std::string& value) {
  bool needs = !value.empty() && (value[0] == '\'' || value[0] == '"');
  for (char c : value) {
    needs = needs || absl::ascii_isspace(c) || c == '{' || c == '}' || c == '(' || c == ')';
  }
  if (!needs) return value;
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

bool is_pipeline_name(absl::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), is_name_char);
}

absl::StatusOr<std::vector<PipelineElement>> parse_pipeline(absl::string_view text) {
  return Parser(text).parse();
}

std::string print_pipeline(const std::vector<PipelineElement>& pipeline) {
  std::vector<std::string> parts;
  for (const PipelineElement& e : pipeline) {
    std::string part = e.name;
    if (!e.options.empty()) {
      std::vector<std::string> options;
      for (const auto& [key, value] : e.options) {
        options.push_back(value.empty() ? key : absl::StrCat(key, "=", quote_if_needed(value)));
      }
      absl::StrAppend(&part, "{", absl::StrJoin(options, " "), "}");
    }
    if (e.has_nested) absl::StrAppend(&part, "(", print_pipeline(e.nested), ")");
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, ",");
}

absl::Status check_option_names(absl::string_view kind, const PipelineElement& element,
                                const std::vector<OptionSpec>& specs) {
  std::vector<std::string> names;
  for (const OptionSpec& s : specs) names.push_back(s.name);
  for (size_t i = 0; i < element.options.size(); ++i) {
    const std::string& key = element.options[i].first;
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          kind, " '", element.name, "' has no option ", quote_for_message(key),
          did_you_mean(key, names),
          names.empty() ? "; it takes no options"
                        : absl::StrCat("; its options: ", absl::StrJoin(names, ", "))));
    }
    for (size_t j = 0; j < i; ++j) {
      if (element.options[j].first == key) {
        return absl::InvalidArgumentError(absl::StrCat(kind, " '", element.name,
                                                       "' has option '", key,
                                                       "' twice; give it once"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace fx
