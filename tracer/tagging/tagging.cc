// Copyright 2026 The FX for C++ Authors.
#include "tracer/tagging/tagging.h"
#include "core/well_known.h"

namespace fx {

Node* TaggingTracer::create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                                 Kwargs kwargs, absl::string_view name, CreateNodeNext next) {
  Node* n = next(op, target, std::move(args), std::move(kwargs), name);
  n->meta().set(kTagKey, *tag);
  return n;
}

void register_tagging(PluginRegistrar& registrar) {
  registrar.add_tracer_extension<TaggingTracer>(
      "tagging", "tags every node: meta['tag'] (the seed's TaggingTracer)");
}

}  // namespace fx
