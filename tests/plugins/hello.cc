// Copyright 2026 The FX for C++ Authors.
// A test plugin: a pass, a tracer extension and a table entry named "hello".
#include "plugins/fx_plugin.h"

namespace {

class Hello : public fx::Pass {
 public:
  explicit Hello(std::string who) : who_(std::move(who)) {}
  absl::Status run(fx::GraphModule& gm, fx::PassContext& ctx) override {
    gm.meta().set("hello", who_);
    ctx.warn("hello says hi to " + who_);
    return absl::OkStatus();
  }

 private:
  std::string who_;
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
  registrar.add_pass("hello", "says hello in the graph meta", {{"who", "whom to greet", "world"}},
                     [](const fx::Options& o) -> absl::StatusOr<std::unique_ptr<fx::Pass>> {
                       return std::make_unique<Hello>(o.get("who", "world"));
                     });
  registrar.add_tracer_extension(
      "hello", "marks every node with meta['hello']", {},
      [](const fx::Options&) -> absl::StatusOr<std::shared_ptr<fx::TracerExtension>> {
        return std::make_shared<HelloExtension>();
      });
  registrar.add_table_entry("invert.inverses", "erf", "erfinv");
}
