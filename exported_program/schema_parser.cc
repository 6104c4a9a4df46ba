// Copyright 2026 The FX for C++ Authors.
//
// The readers' common ground: the Parser, which decides what keys a schema
// version allows, typed getters that fail naming the place in the document,
// and those places' paths.
#include "exported_program/schema_parser.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace exported {
namespace schema_internal {

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw SchemaError{path, message};
}

const char* json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "something else";
  }
}

void Parser::check_object(const json& j, const std::string& path, std::initializer_list<const char*> known,
                          std::initializer_list<const char*> required) {
  if (!j.is_object()) fail(path, absl::StrCat("expected an object, found ", json_kind(j)));
  for (const char* key : required) {
    if (!j.contains(key)) fail(path, absl::StrCat("the required key '", key, "' is missing"));
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool found = false;
    for (const char* key : known) found = found || it.key() == key;
    if (!found) unknown(path, it.key());
  }
}

void Parser::unknown(const std::string& path, const std::string& key) {
  if (!newer_minor_) {
    fail(path, absl::StrCat("unknown key ", quote_for_message(key),
                            " (not in torch.export's schema version ", kSchemaMajor, ".",
                            kSchemaMinor, " or older)"));
  }
  if (warnings_ != nullptr && warned_.insert(key).second) {
    warnings_->push_back(absl::StrCat(path, ": key ", quote_for_message(key),
                                      " is from a newer schema version and was ignored"));
  }
}

std::pair<std::string, const json*> Parser::union_member(const json& j, const std::string& path) {
  if (!j.is_object() || j.size() != 1) {
    fail(path, absl::StrCat("expected a union (an object with one key), found ",
                            j.is_object() ? absl::StrCat("an object with ", j.size(), " keys")
                                          : json_kind(j)));
  }
  return {j.begin().key(), &j.begin().value()};
}

int64_t get_int(const json& j, const std::string& path) {
  if (!j.is_number_integer()) fail(path, absl::StrCat("expected an integer, found ", json_kind(j)));
  return j.get<int64_t>();
}

double get_float(const json& j, const std::string& path) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  fail(path, absl::StrCat("expected a number, found ", json_kind(j)));
}

bool get_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) fail(path, absl::StrCat("expected true or false, found ", json_kind(j)));
  return j.get<bool>();
}

const std::string& get_string(const json& j, const std::string& path) {
  if (!j.is_string()) fail(path, absl::StrCat("expected a string, found ", json_kind(j)));
  return j.get_ref<const std::string&>();
}

const json& get_array(const json& j, const std::string& path) {
  if (!j.is_array()) fail(path, absl::StrCat("expected an array, found ", json_kind(j)));
  return j;
}

absl::Status check_json_nesting(absl::string_view text, int max_nesting) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_nesting) {
        return absl::InvalidArgumentError(absl::StrCat("the JSON nests arrays and objects deeper than ",
                                                       max_nesting, " levels (at byte ", i, ")"));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return absl::OkStatus();
}

std::string item(const std::string& path, size_t i) { return absl::StrCat(path, "[", i, "]"); }
std::string member(const std::string& path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

}  // namespace schema_internal
}  // namespace exported
}  // namespace fx
