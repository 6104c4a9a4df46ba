// Copyright 2026 The FX for C++ Authors.
#include "tools/command_line.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "fx/input_file.h"

namespace fx {
namespace {

constexpr int kMaxFlagfileDepth = 10;

std::string dashed(absl::string_view name) { return absl::StrReplaceAll(name, {{"_", "-"}}); }

class Parser {
 public:
  Parser(const FlagsOfFile& flags, const std::vector<std::string>& repeatable)
      : repeatable_(repeatable) {
    for (const auto& [name, flag] : absl::GetAllFlags()) {
      if (absl::EndsWith(flag->Filename(), flags.filename)) {
        flags_.emplace(std::string(name), flag);
        names_.push_back(dashed(name));
      }
    }
  }

  absl::Status parse(const std::vector<std::string>& args, int depth) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& arg = args[i];
      if (arg == "--") {
        if (i + 1 < args.size()) return positional(args[i + 1]);
        return absl::OkStatus();
      }
      if (arg == "-h") {
        result_.help = true;
        continue;
      }
      if (!absl::StartsWith(arg, "-") || arg == "-") return positional(arg);
      absl::string_view body = arg;
      body.remove_prefix(absl::StartsWith(body, "--") ? 2 : 1);
      const size_t eq = body.find('=');
      std::string name = absl::StrReplaceAll(body.substr(0, eq), {{"-", "_"}});
      const bool has_value = eq != absl::string_view::npos;
      std::string value = has_value ? std::string(body.substr(eq + 1)) : std::string();
      if (name.empty()) return bad_syntax(arg);
      if (name == "help") {
        if (!has_value || value == "true" || value == "1") {
          result_.help = true;
        } else if (value != "false" && value != "0") {
          return absl::InvalidArgumentError(
              absl::StrCat("--help takes true or false, not ", quote_for_message(value)));
        }
        continue;
      }
      if (name == "flagfile") {
        if (!has_value) {
          if (i + 1 >= args.size()) return missing_value("flagfile");
          value = args[++i];
        }
        if (absl::Status s = read_flagfile(value, depth); !s.ok()) return s;
        continue;
      }
      auto it = flags_.find(name);
      if (it == flags_.end() && absl::StartsWith(name, "no")) {
        // --noverify_each: a bool flag set to false.
        auto negated = flags_.find(name.substr(2));
        if (negated != flags_.end() && negated->second->IsOfType<bool>() && !has_value) {
          if (absl::Status s = set(negated->first, "false"); !s.ok()) return s;
          continue;
        }
      }
      if (it == flags_.end()) return unknown(name);
      absl::CommandLineFlag* flag = it->second;
      if (!has_value) {
        if (flag->IsOfType<bool>()) {
          value = "true";
        } else if (i + 1 < args.size()) {
          value = args[++i];
        } else {
          return missing_value(name);
        }
      }
      if (absl::Status s = set(name, value); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Sets the parsed values in Abseil's registry, all or none.
  absl::StatusOr<CommandLine> commit() {
    // Check every value first.
    for (const auto& [name, value] : values_) {
      std::string error;
      absl::CommandLineFlag* flag = flags_.at(name);
      const std::string before = flag->CurrentValue();
      if (!flag->ParseFrom(value, &error)) {
        return absl::InvalidArgumentError(absl::StrCat("--", dashed(name), ": ",
                                                       quote_for_message(value), " is not valid (",
                                                       escape_for_message(error), ")"));
      }
      std::string ignored;
      flag->ParseFrom(before, &ignored);
    }
    for (const auto& [name, value] : values_) {
      std::string error;
      flags_.at(name)->ParseFrom(value, &error);
      result_.given.insert(name);
    }
    return result_;
  }

 private:
  absl::Status set(const std::string& name, const std::string& value) {
    const bool is_repeatable =
        std::find(repeatable_.begin(), repeatable_.end(), name) != repeatable_.end();
    auto [it, inserted] = values_.emplace(name, value);
    if (is_repeatable) {
      result_.occurrences.emplace_back(name, value);
      if (!inserted) it->second = absl::StrCat(it->second, ",", value);
      return absl::OkStatus();
    }
    if (!inserted && it->second != value) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", dashed(name), " is given twice, as ", quote_for_message(it->second),
                       " and ", quote_for_message(value), "; give it once"));
    }
    return absl::OkStatus();
  }

  absl::Status read_flagfile(const std::string& path, int depth) {
    if (depth >= kMaxFlagfileDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--flagfile ", path_for_message(path), ": flagfiles nest deeper than ",
          kMaxFlagfileDepth, " (does one include itself?)"));
    }
    // A regular file only: a FIFO would block, /dev/zero never end, and a
    // directory read as no flags at all.
    auto text = read_regular_file(path, "--flagfile");
    if (!text.ok()) return text.status();
    result_.flagfiles.push_back(path);
    std::vector<std::string> args;
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      absl::string_view l = absl::StripAsciiWhitespace(line);
      if (l.empty() || absl::StartsWith(l, "#")) continue;
      args.emplace_back(l);
    }
    return parse(args, depth + 1);
  }

  absl::Status unknown(const std::string& name) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown flag ", quote_for_message(absl::StrCat("--", dashed(name))),
        did_you_mean(dashed(name), names_), "; see --help for the flags"));
  }
  absl::Status missing_value(const std::string& name) const {
    return absl::InvalidArgumentError(
        absl::StrCat("--", dashed(name), " needs a value: --", dashed(name), "=VALUE"));
  }
  absl::Status positional(const std::string& arg) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected argument ", quote_for_message(arg), "; flags start with -- (see --help)"));
  }
  absl::Status bad_syntax(const std::string& arg) const {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read argument ", quote_for_message(arg), " as a flag (see --help)"));
  }

  std::map<std::string, absl::CommandLineFlag*> flags_;
  std::vector<std::string> names_;
  std::vector<std::string> repeatable_;
  std::map<std::string, std::string> values_;
  CommandLine result_;
};

}  // namespace

absl::StatusOr<CommandLine> parse_arguments(const std::vector<std::string>& args,
                                            const FlagsOfFile& flags,
                                            const std::vector<std::string>& repeatable) {
  Parser parser(flags, repeatable);
  if (absl::Status s = parser.parse(args, 0); !s.ok()) return s;
  return parser.commit();
}

absl::StatusOr<CommandLine> parse_command_line(int argc, const char* const* argv,
                                               const FlagsOfFile& flags,
                                               const std::vector<std::string>& repeatable) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_arguments(args, flags, repeatable);
}

}  // namespace fx
