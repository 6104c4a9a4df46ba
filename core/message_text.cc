// Copyright 2026 The FX for C++ Authors.
#include "core/message_text.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fx {

std::string first_line_of(absl::string_view message) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) return std::string(line);
  }
  return "no reason given";
}
namespace {

// Escapes `text`, cut once the escaped form reaches `max_chars` (an escape
// such as \xff counts as the four characters it prints as).
std::string escaped(absl::string_view text, char quote, size_t max_chars) {
  std::string out;
  size_t i = 0;
  for (; i < text.size() && out.size() < max_chars; ++i) {
    append_python_escaped(out, text.substr(i, 1), quote, /*escape_non_ascii=*/true);
  }
  if (i < text.size()) absl::StrAppend(&out, "... (", text.size(), " characters)");
  return out;
}

size_t edit_distance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void append_python_escaped(std::string& out, absl::string_view text, char quote,
                           bool escape_non_ascii) {
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\' || (quote != 0 && c == quote)) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f || (escape_non_ascii && u > 0x7f)) {
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", u));
    } else {
      out += c;
    }
  }
}

char python_quote_for(absl::string_view text) {
  return text.find('\'') != absl::string_view::npos && text.find('"') == absl::string_view::npos
             ? '"'
             : '\'';
}

std::string quote_for_message(absl::string_view text) {
  const char quote = python_quote_for(text);
  return absl::StrCat(std::string(1, quote), escaped(text, quote, kMaxQuotedChars),
                      std::string(1, quote));
}

std::string escape_for_message(absl::string_view text, size_t max_chars) {
  return escaped(text, 0, max_chars);
}

std::string closest_name(absl::string_view name, const std::vector<std::string>& candidates) {
  // Long inputs are not names anyone meant to type: no suggestion, and no
  // quadratic work on a megabyte of text.
  if (name.size() > 4 * kMaxQuotedChars) return "";
  std::string best;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(absl::string_view name, const std::vector<std::string>& candidates) {
  const std::string closest = closest_name(name, candidates);
  return closest.empty() ? "" : absl::StrCat(" (did you mean '", closest, "'?)");
}

}  // namespace fx
