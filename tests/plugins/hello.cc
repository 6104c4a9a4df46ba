// Copyright 2026 The FX for C++ Authors.
// A test plugin: a pass, a tracer extension and a table entry named "hello".
#include "plugins/fx_plugin.h"

namespace {

class Hello : public fx::Pass {
 public:
  fx::Option<std::string> who{*this, "who", "whom to greet", "world"};
  absl::Status run(fx::GraphModule& gm, fx::PassContext& ctx) override {
    gm.meta().set("hello", *who);
    ctx.warn("hello says hi to " + *who);
    return absl::OkStatus();
  }
};

class HelloExtension : public fx::TracerExtension {
  fx::Node* create_node(fx::Tracer& t, fx::Op op, absl::string_view target, fx::Arguments args,
                        fx::Kwargs kwargs, absl::string_view name,
                        fx::CreateNodeNext next) override {
    fx::Node* n = next(op, target, std::move(args), std::move(kwargs), name);
    n->meta().set("hello", true);
    return n;
  }
};

}  // namespace

FX_PLUGIN("hello", "0.1") {
  registrar.add_pass<Hello>("hello", "says hello in the graph meta");
  registrar.add_tracer_extension<HelloExtension>("hello", "marks every node with meta['hello']");
  registrar.add_table_entry("invert.inverses", "erf", "erfinv");
}
