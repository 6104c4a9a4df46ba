// Copyright 2026 The FX for C++ Authors.
//
// pipeline.h: the textual form of a pass pipeline (and of a tracer list).
//
// A pipeline is a comma-separated list of names, each optionally followed by
// options in braces, MLIR style: options are `key=value` separated by spaces,
// and a value may itself contain commas.
//
//   inline{modules=relu,layer1.0.conv1 recurse=true},dce,invert
//
// `fxrun --tracer=` takes the same form: `module_path,tagging{tag=bar}`.
// A value with spaces or braces is quoted: `tag{name='a b'}`. parse_pipeline
// and print_pipeline round-trip; errors give the character position.
#ifndef FX_PASSES_PIPELINE_H_
#define FX_PASSES_PIPELINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/options.h"

namespace fx {

struct PipelineElement {
  std::string name;
  Options options;
  size_t position = 0;  // where the name starts in the text, for messages
};

absl::StatusOr<std::vector<PipelineElement>> parse_pipeline(absl::string_view text);
std::string print_pipeline(const std::vector<PipelineElement>& pipeline);

// Checks `element`'s option names against `specs`; the error names the
// unknown option, suggests the closest and lists the valid ones.
absl::Status check_options(absl::string_view kind, const PipelineElement& element,
                           const std::vector<OptionSpec>& specs);

}  // namespace fx

#endif  // FX_PASSES_PIPELINE_H_
