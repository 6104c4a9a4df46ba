// Copyright 2026 The FX for C++ Authors.
//
// pipeline_text.h: the textual form of a pass pipeline or a tracer list.
//
// A pipeline is a comma-separated list of names, each optionally followed by
// options in braces, MLIR style: options are `key=value` separated by spaces,
// and a value may itself contain commas. An element may also hold a nested
// pipeline in parentheses (the pass manager's `fixpoint(...)` group):
//
//   inline{modules=relu,layer1.0.conv1 recurse=true},dce,invert
//   fixpoint{max_iterations=4}(inline,dce)
//
// `fxrun --tracer=` takes the same form: `module_path,tagging{tag=bar}`.
// A value with spaces, braces or parentheses is quoted, `tag{name='a b'}`; in a
// quoted value a backslash takes the next character as it is (`'it\'s'`).
// parse_pipeline and print_pipeline round-trip; errors give the character
// position and show at most ~100 characters of the text around it. Groups
// nest at most 32 deep.
#ifndef FX_PLUGINS_PIPELINE_TEXT_H_
#define FX_PLUGINS_PIPELINE_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"
#include "plugins/options.h"

namespace fx {

struct FX_API PipelineElement {
  std::string name;
  OptionValues options;
  // The elements in parentheses after the name, if any.
  std::vector<PipelineElement> nested;
  bool has_nested = false;
  size_t position = 0;  // where the name starts in the text, for messages
};

FX_API absl::StatusOr<std::vector<PipelineElement>> parse_pipeline(absl::string_view text);

// True when `name` can be written in pipeline text as a pass, tracer
// extension or option name: letters, digits, '_', '-' and '.', at least one.
FX_API bool is_pipeline_name(absl::string_view name);
FX_API std::string print_pipeline(const std::vector<PipelineElement>& pipeline);

// Checks `element`'s option names against `specs`: an unknown option names the
// closest and the valid ones; an option given twice is an error. `kind` is
// "pass" or "tracer extension" (the Registry checks every element it makes).
FX_API absl::Status check_option_names(absl::string_view kind, const PipelineElement& element,
                                       const std::vector<OptionSpec>& specs);

}  // namespace fx

#endif  // FX_PLUGINS_PIPELINE_TEXT_H_
