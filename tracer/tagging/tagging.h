// Copyright 2026 The FX for C++ Authors.
//
// tagging.h: the seed's TaggingTracer as a tracer extension.
//
// Every node, placeholders and output included (it overrides create_node),
// gets `meta["tag"]`: "foo" as in the seed, or the value of option `tag`.
#ifndef FX_TRACER_TAGGING_TAGGING_H_
#define FX_TRACER_TAGGING_TAGGING_H_

#include <string>

#include "core/export.h"
#include "plugins/registry.h"
#include "tracer/tracer.h"

namespace fx {

class FX_API TaggingTracer : public TracerExtension, public OptionSet {
 public:
  Option<std::string> tag{*this, "tag", "the tag to set", "foo"};

  TaggingTracer() = default;
  explicit TaggingTracer(std::string value) { tag = std::move(value); }
  Node* create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                    Kwargs kwargs, absl::string_view name, CreateNodeNext next) override;
};

// Registers tracer extension "tagging" (option `tag`).
FX_API void register_tagging(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_TRACER_TAGGING_TAGGING_H_
