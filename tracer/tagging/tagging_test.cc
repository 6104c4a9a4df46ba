// Copyright 2026 The FX for C++ Authors.
#include "tracer/tagging/tagging.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/tracing.h"

namespace fx {
namespace {

TEST(TaggingTest, EveryNodeOfM2IsTaggedFooByDefault) {
  Registry registry;
  PluginRegistrar r({"tagging", "1.0", ""});
  register_tagging(r);
  ASSERT_TRUE(registry.commit(r).ok());
  for (const char* tag : {"", "bar"}) {
    OptionValues options;
    if (*tag != '\0') options = {{"tag", tag}};
    auto ext = registry.find_tracer_extension("tagging")->factory(options);
    ASSERT_TRUE(ext.ok());
    Tracer tracer;
    tracer.add_extension(*ext);
    auto gm = testing::trace_fixture_result("m2.pt", tracer);
    ASSERT_TRUE(gm.ok()) << gm.status();
    for (const Node* n : gm->graph().nodes()) {
      ASSERT_NE(n->meta().find("tag"), nullptr) << n->name();
      EXPECT_EQ(n->meta().find("tag")->to_string(), *tag ? tag : "foo") << n->name();
    }
  }
}

}  // namespace
}  // namespace fx
