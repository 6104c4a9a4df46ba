// Copyright 2026 The FX for C++ Authors.
//
// message_text.h: putting what a user typed into an error message.
//
// Every error a user can cause names the thing and the fix. The thing is
// often text the user gave (a pass name, a path, a target), which may be long
// or hold control characters and terminal escape sequences:
//
//   quote_for_message("inlin")          'inlin'
//   quote_for_message("a\x1b[2Jb")      'a\x1b[2Jb'   (escaped, never raw)
//   quote_for_message(one_megabyte)     'xxxx... (1048576 characters)'
//   did_you_mean("inlin", {"inline", "dce"})   " (did you mean 'inline'?)"
//
// Contracts: the results are printable ASCII and at most ~130 characters for
// any input; functions are pure and thread-safe.
#ifndef FX_CORE_MESSAGE_TEXT_H_
#define FX_CORE_MESSAGE_TEXT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// At most this many characters of user text are shown in a message; paths,
// which are long for good reasons, up to PATH_MAX.
inline constexpr size_t kMaxQuotedChars = 100;
inline constexpr size_t kMaxPathChars = 4096;

// `text` quoted as Python's repr quotes a str (control characters and bytes
// outside printable ASCII escaped), cut to kMaxQuotedChars characters of text
// with `...` and the full length appended when longer.
// The first non-empty line of a message (libtorch's carry a C++ backtrace
// after it), trimmed; "no reason given" when there is none.
FX_API std::string first_line_of(absl::string_view message);

FX_API std::string quote_for_message(absl::string_view text);

// The same without the quotes, for names and paths set off by the message's
// wording (`cannot open model /tmp/m.pt: ...`).
FX_API std::string escape_for_message(absl::string_view text, size_t max_chars = kMaxQuotedChars);
// A path for a message: escaped, cut only beyond kMaxPathChars.
inline std::string path_for_message(absl::string_view path) {
  return escape_for_message(path, kMaxPathChars);
}

// Appends `text` as it is written inside a Python string literal quoted with
// `quote`: the quote and backslash escaped, \n \r \t, other control
// characters as \xNN; with `escape_non_ascii`, every byte outside printable
// ASCII as \xNN too (for terminals; Python's repr keeps printable Unicode).
FX_API void append_python_escaped(std::string& out, absl::string_view text, char quote,
                                  bool escape_non_ascii);
// The quote Python's repr picks for `text`: ' unless `text` holds ' and no ".
FX_API char python_quote_for(absl::string_view text);

// The candidate closest to `name` by edit distance (empty when none is close).
FX_API std::string closest_name(absl::string_view name, const std::vector<std::string>& candidates);
// ` (did you mean 'closest'?)` for an error message, or "" when none is close.
FX_API std::string did_you_mean(absl::string_view name, const std::vector<std::string>& candidates);

}  // namespace fx

#endif  // FX_CORE_MESSAGE_TEXT_H_
