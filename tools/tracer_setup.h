// Copyright 2026 The FX for C++ Authors.
//
// tracer_setup.h: a Tracer configured as fxrun's tracing flags say (--tracer,
// --training, --assertions, --leaf-functions, --trace-through,
// --concrete-args).
//
//   fx::TracerSettings settings;
//   settings.extensions = "module_path,tagging{tag=bar}";
//   absl::Status s = fx::configure_tracer(tracer, settings);
//
// Contracts: errors name the flag and the value at fault; extensions come
// from the global Registry (plugins loaded first).
#ifndef FX_TOOLS_TRACER_SETUP_H_
#define FX_TOOLS_TRACER_SETUP_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "tracer/tracer.h"

namespace fx {

struct TracerSettings {
  bool training = false;
  std::string assertions = "keep";  // keep or drop
  std::vector<std::string> leaf_functions;
  std::vector<std::string> trace_through;
  std::vector<std::string> concrete_args;  // name=value
  std::string extensions;                  // the pipeline text of --tracer
};

// A value as Python would read it: True, False, None, an int, a float, a
// quoted string; anything else is a string as written.
Argument python_literal(const std::string& text);

absl::Status configure_tracer(Tracer& tracer, const TracerSettings& settings);

}  // namespace fx

#endif  // FX_TOOLS_TRACER_SETUP_H_
