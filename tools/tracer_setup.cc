// Copyright 2026 The FX for C++ Authors.
#include "tools/tracer_setup.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "plugins/pipeline_text.h"
#include "plugins/registry.h"

namespace fx {

Argument python_literal(const std::string& text) {
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  if (text == "None") return Argument();
  int64_t i = 0;
  if (absl::SimpleAtoi(text, &i)) return i;
  double d = 0;
  if (absl::SimpleAtod(text, &d)) return d;
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

absl::Status configure_tracer(Tracer& tracer, const TracerSettings& settings) {
  TraceOptions& options = tracer.mutable_options();
  options.training = settings.training;
  if (settings.assertions == "drop") {
    options.assertions = AssertionMode::kDrop;
  } else if (settings.assertions != "keep") {
    return absl::InvalidArgumentError(
        absl::StrCat("--assertions takes keep or drop, not '", settings.assertions, "'"));
  }
  options.leaf_functions = settings.leaf_functions;
  options.trace_through_functions = settings.trace_through;
  for (const std::string& item : settings.concrete_args) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--concrete-args takes name=value pairs, not ", quote_for_message(item)));
    }
    options.concrete_args.emplace_back(item.substr(0, eq), python_literal(item.substr(eq + 1)));
  }
  auto elements = parse_pipeline(settings.extensions);
  if (!elements.ok()) return absl::InvalidArgumentError(absl::StrCat("--tracer: ", elements.status().message()));
  for (const PipelineElement& e : *elements) {
    auto extension = Registry::global().make_tracer_extension(e);
    if (!extension.ok()) return extension.status();
    tracer.add_extension(*extension);
  }
  return absl::OkStatus();
}

}  // namespace fx
