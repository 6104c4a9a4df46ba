// Copyright 2026 The FX for C++ Authors.
#include "core/naming.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace fx {
namespace {

// Python 3.11's keywords, the names in `builtins.__dict__`, and the globals
// torch.fx reserves for generated code (`torch.fx.graph._custom_builtins`).
// Sorted, for binary search.
constexpr absl::string_view kReservedNames[] = {
      "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
      "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
      "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
      "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
      "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup",
      "False", "FileExistsError", "FileNotFoundError", "FloatingPointError",
      "FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning",
      "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
      "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
      "ModuleNotFoundError", "NameError", "None", "NoneType", "NotADirectoryError",
      "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
      "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
      "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
      "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError",
      "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True",
      "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
      "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
      "ValueError", "Warning", "ZeroDivisionError", "__build_class__", "__debug__",
      "__doc__", "__import__", "__loader__", "__name__", "__package__", "__spec__",
      "abs", "aiter", "all", "and", "anext", "any", "as", "ascii", "assert", "async",
      "await", "bin", "bool", "break", "breakpoint", "bytearray", "bytes", "callable",
      "chr", "class", "classmethod", "compile", "complex", "continue", "copyright",
      "credits", "def", "del", "delattr", "device", "dict", "dir", "divmod", "elif",
      "else", "enumerate", "eval", "except", "exec", "exit", "filter", "finally",
      "float", "for", "format", "from", "frozenset", "fx_pytree", "getattr", "global",
      "globals", "hasattr", "hash", "help", "hex", "id", "if", "import", "in", "inf",
      "input", "int", "is", "isinstance", "issubclass", "iter", "lambda", "len",
      "license", "list", "locals", "map", "max", "memoryview", "min", "nan", "next",
      "nonlocal", "not", "object", "oct", "open", "or", "ord", "pass", "pow", "print",
      "property", "pytree", "quit", "raise", "range", "repr", "return", "reversed",
      "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
      "super", "torch", "try", "tuple", "type", "vars", "while", "with", "yield", "zip"};

bool is_identifier_char(char c) { return absl::ascii_isalnum(c) || c == '_'; }

absl::string_view strip_magic(absl::string_view s) {
  if (is_magic_name(s)) return s.size() >= 4 ? s.substr(2, s.size() - 4) : absl::string_view();
  return s;
}

// Replaces every run of characters illegal in an identifier with one '_' (FX's
// `_illegal_char_regex.sub('_', ...)`).
std::string sanitize(absl::string_view candidate) {
  std::string out;
  out.reserve(candidate.size() + 1);
  bool in_illegal_run = false;
  for (char c : candidate) {
    if (is_identifier_char(c)) {
      out.push_back(c);
      in_illegal_run = false;
    } else if (!in_illegal_run) {
      out.push_back('_');
      in_illegal_run = true;
    }
  }
  return out;
}

}  // namespace

std::string python_qualified_name(absl::string_view torchscript_name) {
  std::vector<absl::string_view> kept;
  for (absl::string_view atom : absl::StrSplit(torchscript_name, '.')) {
    if (atom == "__torch__" || absl::StartsWith(atom, "___torch_mangle_")) continue;
    kept.push_back(atom);
  }
  return absl::StrJoin(kept, ".");
}

std::string qualified_name(absl::string_view prefix, absl::string_view atom) {
  return prefix.empty() ? std::string(atom) : absl::StrCat(prefix, ".", atom);
}

std::vector<absl::string_view> qualified_name_atoms(absl::string_view qualified_name) {
  if (qualified_name.empty()) return {};
  return absl::StrSplit(qualified_name, '.');
}

bool is_magic_name(absl::string_view name) {
  return absl::StartsWith(name, "__") && absl::EndsWith(name, "__");
}

bool is_inplace_name(absl::string_view name) {
  return name.size() >= 2 && name.back() == '_' && !is_magic_name(name);
}

bool is_reserved_python_name(absl::string_view name) {
  return std::binary_search(std::begin(kReservedNames), std::end(kReservedNames), name);
}

bool is_python_identifier(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_identifier_char);
}

bool is_python_keyword(absl::string_view s) {
  // Python 3.11's keyword.kwlist, sorted.
  static constexpr absl::string_view kKeywords[] = {
      "False", "None",   "True",    "and",      "as",       "assert", "async",  "await",
      "break", "class",  "continue", "def",     "del",      "elif",   "else",   "except",
      "finally", "for",  "from",    "global",   "if",       "import", "in",     "is",
      "lambda", "nonlocal", "not",  "or",       "pass",     "raise",  "return", "try",
      "while", "with",   "yield"};
  return std::binary_search(std::begin(kKeywords), std::end(kKeywords), s);
}

bool is_python_attribute_name(absl::string_view s) {
  return is_python_identifier(s) && !is_python_keyword(s);
}

std::string snake_case(absl::string_view s) {
  std::string out;
  out.reserve(s.size() + 4);
  bool prev_lower = false;
  for (char c : s) {
    if (prev_lower && absl::ascii_isupper(c)) out.push_back('_');
    out.push_back(absl::ascii_tolower(c));
    prev_lower = absl::ascii_islower(c);
  }
  return out;
}

absl::string_view function_base_name(absl::string_view name) {
  constexpr absl::string_view kTorchOps = "torch.ops.";
  if (name.substr(0, kTorchOps.size()) == kTorchOps) {
    // torch.ops.<namespace>.<name>[.<overload>]
    absl::string_view rest = name.substr(kTorchOps.size());
    size_t dot = rest.find('.');
    if (dot != absl::string_view::npos) rest = rest.substr(dot + 1);
    return rest.substr(0, rest.find('.'));
  }
  size_t ns = name.find("::");
  if (ns != absl::string_view::npos) {
    // <namespace>::<name>[.<overload>]
    absl::string_view rest = name.substr(ns + 2);
    return rest.substr(0, rest.find('.'));
  }
  size_t dot = name.rfind('.');
  return dot == absl::string_view::npos ? name : name.substr(dot + 1);
}

std::string candidate_name_for_target(absl::string_view target, bool is_function) {
  return sanitize(snake_case(strip_magic(is_function ? function_base_name(target) : target)));
}

namespace {

// Splits `name` into base and number when it ends in `_<digits>` (torch.fx's
// `(.*)_(\d+)$`). With `canonical`, only names spelled as create_name spells
// them (no leading zeros) split, so every name maps to one (base, number).
bool split_suffix(absl::string_view name, bool canonical, absl::string_view* base,
                  int64_t* number) {
  size_t digits_begin = name.size();
  while (digits_begin > 0 && absl::ascii_isdigit(name[digits_begin - 1])) --digits_begin;
  const size_t num_digits = name.size() - digits_begin;
  if (num_digits == 0 || num_digits > 18 || digits_begin == 0 || name[digits_begin - 1] != '_') {
    return false;
  }
  if (canonical && num_digits > 1 && name[digits_begin] == '0') return false;
  *base = name.substr(0, digits_begin - 1);
  *number = 0;
  for (char c : name.substr(digits_begin)) *number = *number * 10 + (c - '0');
  return true;
}

}  // namespace

bool split_name_suffix(absl::string_view name, absl::string_view* base, int64_t* number) {
  return split_suffix(name, /*canonical=*/true, base, number);
}

Namespace::Base& Namespace::base_entry(absl::string_view base) {
  auto [it, inserted] = bases_.try_emplace(base);
  if (inserted) it->second.reserved = is_reserved_python_name(base);
  return it->second;
}

bool Namespace::taken(const Base& b, int64_t number) {
  return (number >= 1 && number <= b.prefix) || (b.numbers && b.numbers->contains(number));
}

void Namespace::take(Base& b, int64_t number) {
  if (number != b.prefix + 1) {
    if (!b.numbers) b.numbers = std::make_unique<absl::flat_hash_set<int64_t>>();
    b.numbers->insert(number);
    return;
  }
  ++b.prefix;
  while (b.numbers && !b.numbers->empty() && b.numbers->erase(b.prefix + 1) > 0) ++b.prefix;
}

bool Namespace::is_used(absl::string_view name) const {
  absl::string_view base = name;
  int64_t number = 0;
  const bool numbered = split_suffix(name, /*canonical=*/true, &base, &number);
  auto it = bases_.find(base);
  if (it == bases_.end()) return false;
  return numbered ? taken(it->second, number) : it->second.bare_taken;
}

bool Namespace::reserve(absl::string_view name) {
  absl::string_view base = name;
  int64_t number = 0;
  const bool numbered = split_suffix(name, /*canonical=*/true, &base, &number);
  Base& b = base_entry(base);
  if (numbered) {
    if (taken(b, number)) return false;
    take(b, number);
  } else {
    if (b.bare_taken) return false;
    b.bare_taken = true;
  }
  ++size_;
  return true;
}

std::string Namespace::create_name(absl::string_view raw_candidate) {
  return create_name(std::string(raw_candidate));
}

std::string Namespace::create_name(std::string&& raw_candidate) {
  // Most candidates are identifiers already: only rewrite those that are not.
  std::string candidate = std::move(raw_candidate);
  if (!is_python_identifier(candidate)) {
    candidate = sanitize(candidate);
    if (candidate.empty() || absl::ascii_isdigit(candidate[0])) candidate.insert(0, "_");
  }

  absl::string_view base_view = candidate;
  int64_t number = 0;
  const bool numbered = split_suffix(candidate, /*canonical=*/false, &base_view, &number);
  Base& b = base_entry(base_view);
  ++size_;
  if (!numbered) {
    if (!b.bare_taken && !b.reserved) {
      b.bare_taken = true;
      return candidate;
    }
  } else if (!taken(b, number)) {
    // Names with a number suffix are never reserved words.
    take(b, number);
    return absl::StrCat(base_view, "_", number);  // normalises leading zeros
  }
  // Taken: scan base_<n+1>, base_<n+2>, ... as torch.fx does, skipping the
  // prefix known to be taken.
  number = std::max(number, b.prefix);
  do {
    ++number;
  } while (taken(b, number));
  take(b, number);
  return absl::StrCat(base_view, "_", number);
}

}  // namespace fx
