// Copyright 2026 The FX for C++ Authors.
#include "tools/graph_dot.h"
#include "tools/graphviz.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "core/graph.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

Meta tensor(std::vector<int64_t> shape, const char* dtype) {
  MetaValue::List sizes;
  for (int64_t s : shape) sizes.emplace_back(s);
  return Meta{{"shape", std::move(sizes)}, {"dtype", dtype}, {"requires_grad", false}};
}

Node* in_module(Node* node, const std::string& path) {
  node->meta().set(kModulePathKey, path);
  return node;
}

// Each drawn node of `dot` with the labels of the clusters around it, outer
// first, joined by '/': {"a": "layer1/layer1.0", "x": ""}.
std::map<std::string, std::string> clusters_of_nodes(const std::string& dot) {
  std::map<std::string, std::string> result;
  std::vector<std::string> open;  // labels of the open clusters
  bool awaiting_label = false;
  for (absl::string_view line : absl::StrSplit(dot, '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(line, "subgraph cluster_")) {
      open.emplace_back();
      awaiting_label = true;
    } else if (awaiting_label && absl::ConsumePrefix(&line, "label=<")) {
      open.back() = std::string(line.substr(0, line.find(">;")));
      awaiting_label = false;
    } else if (line == "}" && !open.empty()) {
      open.pop_back();
    } else if (absl::StartsWith(line, "\"") && absl::StrContains(line, "\" [label=")) {
      result[std::string(line.substr(1, line.find("\" [label=") - 1))] = absl::StrJoin(open, "/");
    }
  }
  return result;
}

std::vector<std::string> edges(const std::string& dot) {
  std::vector<std::string> result;
  for (absl::string_view line : absl::StrSplit(dot, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (absl::StrContains(line, " -> ")) result.emplace_back(absl::StripSuffix(line, ";"));
  }
  return result;
}

// A block like ResNet's: x -> layer1.0 (conv, relu, add) -> layer1.1 (conv, add) -> out.
struct TwoBlocks {
  Graph g;
  Node* x = g.placeholder("x");
  Node* conv = in_module(g.call_module("layer1.0.conv1", {x}), "layer1.0.conv1");
  Node* relu = in_module(g.call_function("aten::relu", {conv}), "layer1.0");
  Node* add = in_module(g.call_function("aten::add.Tensor", {relu, x}), "layer1.0");
  Node* conv2 = in_module(g.call_module("layer1.1.conv1", {add}), "layer1.1.conv1");
  Node* add2 = in_module(g.call_function("aten::add.Tensor", {conv2, conv2}), "layer1.1");
  Node* out = g.output(add2);
};

TEST(GraphDotTest, ClustersNestAsTheModuleHierarchy) {
  TwoBlocks b;
  auto dot = graph_to_dot(b.g);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(*dot, StartsWith("digraph fx_graph {\n"));
  // A call_module node is its module, so it sits in the parent's cluster.
  EXPECT_THAT(clusters_of_nodes(*dot),
              UnorderedElementsAre(Pair("x", ""), Pair("layer1_0_conv1", "layer1/layer1.0"),
                                   Pair("relu", "layer1/layer1.0"), Pair("add", "layer1/layer1.0"),
                                   Pair("layer1_1_conv1", "layer1/layer1.1"),
                                   Pair("add_1", "layer1/layer1.1"), Pair("output", "")));
  // Clusters are numbered in order of first appearance.
  EXPECT_THAT(*dot, HasSubstr("  subgraph cluster_0 {\n    label=<layer1>;"));
  EXPECT_THAT(*dot, HasSubstr("    subgraph cluster_1 {\n      label=<layer1.0>;"));
  EXPECT_THAT(*dot, HasSubstr("    subgraph cluster_2 {\n      label=<layer1.1>;"));
}

TEST(GraphDotTest, AModulePathWithOneNodeIsNoCluster) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = in_module(g.get_attr("block.conv.weight"), "block.conv");
  Node* conv = in_module(g.call_function("aten::conv2d", {x, w}), "block.conv");
  Node* relu = in_module(g.call_function("aten::relu", {conv}), "block.relu");  // alone
  g.output(relu);
  auto dot = graph_to_dot(g);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(clusters_of_nodes(*dot),
              UnorderedElementsAre(Pair("x", ""), Pair("block_conv_weight", "block/block.conv"),
                                   Pair("conv2d", "block/block.conv"), Pair("relu", "block"),
                                   Pair("output", "")));
}

// A Bottleneck calls its one ReLU three times: three calls, not one cluster
// stretched over the block.
TEST(GraphDotTest, EachCallOfAModuleIsItsOwnCluster) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* prev = x;
  std::vector<std::string> names;
  for (const char* conv : {"block.conv1", "block.conv2"}) {
    prev = in_module(g.call_function("aten::conv2d", {prev}), conv);
    names.push_back(prev->name());
    prev = in_module(g.call_function("aten::relu", {prev}), "block.act");
    names.push_back(prev->name());
    prev = in_module(g.call_function("aten::clamp", {prev, 0, 6}), "block.act");
    names.push_back(prev->name());
  }
  g.output(prev);
  auto dot = graph_to_dot(g);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(clusters_of_nodes(*dot),
              UnorderedElementsAre(Pair("x", ""), Pair(names[0], "block"),
                                   Pair(names[1], "block/block.act"),
                                   Pair(names[2], "block/block.act"), Pair(names[3], "block"),
                                   Pair(names[4], "block/block.act"),
                                   Pair(names[5], "block/block.act"), Pair("output", "")));
  EXPECT_THAT(*dot, HasSubstr("subgraph cluster_1 {\n      label=<block.act>;"));
  EXPECT_THAT(*dot, HasSubstr("subgraph cluster_2 {\n      label=<block.act>;"));
  EXPECT_THAT(*dot, Not(HasSubstr("cluster_3")));
}

TEST(GraphDotTest, OneEdgeFromEachInputToEachUser) {
  TwoBlocks b;
  auto dot = graph_to_dot(b.g);
  ASSERT_TRUE(dot.ok()) << dot.status();
  // add_1 reads layer1_1_conv1 twice: one edge.
  EXPECT_THAT(edges(*dot), ElementsAre("\"x\" -> \"layer1_0_conv1\"",
                                       "\"layer1_0_conv1\" -> \"relu\"", "\"relu\" -> \"add\"",
                                       "\"x\" -> \"add\"", "\"add\" -> \"layer1_1_conv1\"",
                                       "\"layer1_1_conv1\" -> \"add_1\"", "\"add_1\" -> \"output\""));
}

TEST(GraphDotTest, LabelsShowNameOpcodeTargetShapeAndModulePath) {
  TwoBlocks b;
  b.relu->meta().set("tensor_meta", tensor({1, 64, 56, 56}, "torch.float32"));
  DotOptions scoped;
  scoped.scope = "layer1.0.conv1";  // layer1.0's relu drawn outside a layer1.0 cluster
  {
    auto before_output = b.g.inserting_before(b.out);
    in_module(b.g.call_function("aten::relu", {b.relu}), "layer1.0.conv1");
  }
  auto dot = graph_to_dot(b.g, scoped);
  ASSERT_TRUE(dot.ok()) << dot.status();
  const std::string op = "<BR/><FONT COLOR=\"#475569\">";
  EXPECT_THAT(*dot, HasSubstr("\"relu\" [label=<relu>, shape=ellipse"));  // a boundary node
  EXPECT_THAT(*dot, HasSubstr("\"layer1_0_conv1\" [label=<<B>layer1_0_conv1</B>" + op +
                              "call_module </FONT>layer1.0.conv1>, fillcolor=\"#fef3c7\"]"));
  // In a cluster of its own module path, no module path line.
  EXPECT_THAT(*dot, HasSubstr("[label=<<B>relu_1</B>" + op + "call_function </FONT>"
                              "aten.relu.default>"));

  auto whole = graph_to_dot(b.g);
  ASSERT_TRUE(whole.ok()) << whole.status();
  // The shape when tensor_meta is there; the module path where no cluster
  // says it (relu_1 sits in layer1.0's, not in a cluster of its own).
  EXPECT_THAT(*whole, HasSubstr("\"relu\" [label=<<B>relu</B>" + op + "call_function </FONT>"
                                "aten.relu.default<BR/>1&#215;64&#215;56&#215;56 float32>, "
                                "fillcolor=\"#f3f4f6\"]"));
  EXPECT_THAT(*whole, HasSubstr("[label=<<B>relu_1</B>" + op + "call_function </FONT>"
                                "aten.relu.default<BR/><I>layer1.0.conv1</I>>"));
  EXPECT_THAT(*whole, HasSubstr("[label=<<B>x</B>" + op + "placeholder </FONT>x>"));
  EXPECT_THAT(*whole, HasSubstr("[label=<<B>output</B>" + op + "output</FONT>>"));
}

TEST(GraphDotTest, DescribesTensorMeta) {
  EXPECT_EQ(describe_tensor_meta(tensor({1, 64, 56, 56}, "torch.float32")),
            "1\xC3\x97" "64\xC3\x97" "56\xC3\x97" "56 float32");
  EXPECT_EQ(describe_tensor_meta(tensor({}, "torch.int64")), "scalar int64");
  EXPECT_EQ(describe_tensor_meta(Meta{{"shape", MetaValue::List{3}}}), "3");
  EXPECT_EQ(describe_tensor_meta(Meta{{"dtype", "torch.bool"}}), "bool");
  // A multi-result node: one entry per result, `?` for one that is no tensor.
  EXPECT_EQ(describe_tensor_meta(MetaValue::List{tensor({2}, "torch.float32"), MetaValue(),
                                                 tensor({2}, "torch.int64")}),
            "2 float32, ?, 2 int64");
  EXPECT_EQ(describe_tensor_meta(MetaValue::List{MetaValue::List{tensor({2}, "torch.float16")}}),
            "(2 float16)");
  EXPECT_EQ(describe_tensor_meta(MetaValue("1x2")), "");
  EXPECT_EQ(describe_tensor_meta(MetaValue::List{MetaValue(), 3}), "");
  EXPECT_EQ(describe_tensor_meta(Meta{{"device", "cpu"}}), "");
}

TEST(GraphDotTest, EscapesWhatItQuotes) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* odd = in_module(g.call_function("my<ns>::op&\"q\"\\", {x}), "blk\"<1>");
  Node* bytes = in_module(g.call_function("caf\xC3\xA9\x01\xFF", {odd}), "blk\"<1>");
  g.output(bytes);
  auto dot = graph_to_dot(g);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(*dot, HasSubstr("my&lt;ns&gt;.op&amp;&quot;q&quot;\\"));
  EXPECT_THAT(*dot, HasSubstr("label=<blk&quot;&lt;1&gt;>;"));
  // Valid UTF-8 as its character; control characters and stray bytes as \xNN.
  EXPECT_THAT(*dot, HasSubstr("caf&#233;\\x01\\xff"));
  for (char c : *dot) {
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << "not printable ASCII: " << int{c};
  }
  // Graphviz reads it without complaint.
  auto dot_program = find_graphviz_dot();
  ASSERT_TRUE(dot_program.ok()) << dot_program.status();
  auto svg = render_with_graphviz(*dot_program, *dot, "svg");
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_THAT(svg->warnings, IsEmpty());
  EXPECT_THAT(svg->output, HasSubstr("caf\xC3\xA9\\x01\\xff"));
}

TEST(GraphDotTest, IsDeterministic) {
  TwoBlocks a, b;
  EXPECT_EQ(*graph_to_dot(a.g), *graph_to_dot(b.g));
  DotOptions scoped;
  scoped.scope = "layer1.0";
  EXPECT_EQ(*graph_to_dot(a.g, scoped), *graph_to_dot(b.g, scoped));
}

TEST(GraphDotTest, AScopeDrawsItsNodesAndTheirNeighboursAsBoundaries) {
  TwoBlocks b;
  DotOptions options;
  options.scope = "layer1.0";
  auto dot = graph_to_dot(b.g, options);
  ASSERT_TRUE(dot.ok()) << dot.status();
  // Only layer1.0, in its own cluster (layer1 is not drawn); x and
  // layer1_1_conv1 as dashed boundary nodes.
  EXPECT_THAT(clusters_of_nodes(*dot),
              UnorderedElementsAre(Pair("layer1_0_conv1", "layer1.0"), Pair("relu", "layer1.0"),
                                   Pair("add", "layer1.0"), Pair("x", ""),
                                   Pair("layer1_1_conv1", "")));
  EXPECT_THAT(*dot, HasSubstr("\"x\" [label=<x>, shape=ellipse, style=dashed"));
  EXPECT_THAT(*dot, HasSubstr("\"layer1_1_conv1\" [label=<layer1_1_conv1>, shape=ellipse"));
  EXPECT_THAT(edges(*dot), ElementsAre("\"x\" -> \"layer1_0_conv1\"",
                                       "\"layer1_0_conv1\" -> \"relu\"", "\"relu\" -> \"add\"",
                                       "\"x\" -> \"add\"", "\"add\" -> \"layer1_1_conv1\""));
}

TEST(GraphDotTest, AScopeIsAModulePathOrAPrefixAtADot) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = in_module(g.call_module("layer1.00", {x}), "layer1.00");
  Node* c = in_module(g.call_module("layer1.0.conv1", {a}), "layer1.0.conv1");
  g.output(c);
  DotOptions options;
  options.scope = "layer1.0";
  auto dot = graph_to_dot(g, options);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(clusters_of_nodes(*dot),
              UnorderedElementsAre(Pair("layer1_0_conv1", "layer1.0"), Pair(a->name(), ""),
                                   Pair("output", "")));
  options.scope = "layer";
  auto bad = graph_to_dot(g, options);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "scope 'layer' is not a module path of the graph (did you mean 'layer1'?); module "
            "paths: layer1, layer1.00, layer1.0, layer1.0.conv1");
}

TEST(GraphDotTest, AnUnknownScopeListsSomeModulePaths) {
  Graph g;
  Node* prev = g.placeholder("x");
  for (int i = 0; i < 20; ++i) {
    const std::string path = absl::StrCat("blocks.", i);
    prev = in_module(g.call_module(path, {prev}), path);
  }
  g.output(prev);
  DotOptions options;
  options.scope = "blocs";
  auto bad = graph_to_dot(g, options);
  EXPECT_EQ(bad.status().message(),
            "scope 'blocs' is not a module path of the graph (did you mean 'blocks'?); "
            "module paths: blocks, blocks.0, blocks.1, blocks.2, blocks.3, blocks.4, blocks.5, "
            "blocks.6, blocks.7, blocks.8, ... (21 in all)");
  Graph bare;
  bare.output(bare.placeholder("x"));
  EXPECT_THAT(std::string(graph_to_dot(bare, options).status().message()),
              HasSubstr("no node of this graph has a module path (trace with "
                        "--tracer=module_path to record them)"));
}

TEST(GraphDotTest, RendersSvgAndPng) {
  TwoBlocks b;
  const std::string dot = *graph_to_dot(b.g);
  auto dot_program = find_graphviz_dot();
  ASSERT_TRUE(dot_program.ok()) << dot_program.status();
  auto svg = render_with_graphviz(*dot_program, dot, "svg");
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_THAT(svg->output, HasSubstr("<svg"));
  EXPECT_THAT(svg->output, HasSubstr(">layer1_0_conv1</text>"));
  EXPECT_THAT(svg->output, HasSubstr("<title>cluster_1</title>"));
  auto png = render_with_graphviz(*dot_program, dot, "png");
  ASSERT_TRUE(png.ok()) << png.status();
  EXPECT_THAT(png->output, StartsWith("\x89PNG\r\n\x1a\n"));
}

TEST(GraphDotTest, RenderingErrorsSayWhatWentWrong) {
  auto dot_program = find_graphviz_dot();
  ASSERT_TRUE(dot_program.ok()) << dot_program.status();
  auto broken = render_with_graphviz(*dot_program, "digraph {\n a -> \n", "svg");
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInternal);
  const std::string message(broken.status().message());
  EXPECT_THAT(message, StartsWith("Graphviz's dot failed (exit status 1): "));
  EXPECT_THAT(message, HasSubstr("syntax error"));
  EXPECT_THAT(std::string(render_with_graphviz(*dot_program, "digraph {}", "pdf").status().message()),
              HasSubstr("Graphviz renders svg or png here, not 'pdf'"));
  auto missing = render_with_graphviz("/no/such/dot", "digraph {}", "svg");
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot run Graphviz's dot (/no/such/dot): No such file or directory"));
}

// Issue 36: a dot that never ends made --emit=svg wait for ever.
TEST(GraphDotTest, ADotThatNeverEndsIsStoppedAtTheLimit) {
  const std::string fake = absl::StrCat(std::getenv("TEST_TMPDIR"), "/endless_dot");
  {
    FILE* f = std::fopen(fake.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("#!/bin/sh\nexec sleep 600\n", f);
    std::fclose(f);
  }
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  const absl::Time start = absl::Now();
  auto rendered = render_with_graphviz(fake, "digraph { a -> b }", "svg", absl::Seconds(1));
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  ASSERT_EQ(rendered.status().code(), absl::StatusCode::kDeadlineExceeded) << rendered.status();
  EXPECT_THAT(std::string(rendered.status().message()),
              HasSubstr("Graphviz's dot did not finish in 1s and was stopped"));
  EXPECT_THAT(std::string(rendered.status().message()), HasSubstr("--emit=dot"));
}

TEST(GraphDotTest, DotMissingFromPathSaysHowToInstallIt) {
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  const std::string empty_dir = absl::StrCat(std::getenv("TEST_TMPDIR"));
  setenv("PATH", empty_dir.c_str(), 1);
  auto missing = find_graphviz_dot();
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            absl::StrCat("Graphviz's dot program is not on PATH (", empty_dir,
                         "); install Debian's graphviz: apt-get install graphviz "
                         "(tools/bootstrap.sh does)"));
}

// Sets environment variables for its lifetime, then puts back what was there.
class ScopedEnvironment {
 public:
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second.has_value()) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  void set(const std::string& name, const char* value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value != nullptr) {
      setenv(name.c_str(), value, 1);
    } else {
      unsetenv(name.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A fresh machine: no font cache anywhere fontconfig looks, and no writable
// place of the user's to build one (a read-only or missing home, Bazel's
// sandbox). dot still draws, quietly, with a cache of fxrun's own.
TEST(GraphvizTest, DrawsQuietlyWhereNoFontCacheIsWritable) {
  const std::string tmp = absl::StrCat(std::getenv("TEST_TMPDIR"), "/fresh_machine");
  ASSERT_EQ(::system(absl::StrCat("rm -rf '", tmp, "' && mkdir -p '", tmp, "/tmp'").c_str()), 0);
  // fontconfig's system cache directory is one nobody can write (not even
  // root), and holds no cache; the user's is under a home that cannot exist.
  const std::string fonts_conf = tmp + "/fonts.conf";
  {
    std::FILE* f = std::fopen(fonts_conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"urn:fontconfig:fonts.dtd\">\n"
        "<fontconfig>\n  <dir>/usr/share/fonts</dir>\n"
        "  <cachedir>/proc/fx-no-system-cache</cachedir>\n"
        "  <cachedir prefix=\"xdg\">fontconfig</cachedir>\n</fontconfig>\n",
        f);
    std::fclose(f);
  }
  ScopedEnvironment env;
  env.set("FONTCONFIG_FILE", fonts_conf.c_str());
  env.set("HOME", "/proc/fx-no-home");
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("TMPDIR", (tmp + "/tmp").c_str());

  const std::string private_home = graphviz_private_cache_home();
  EXPECT_EQ(private_home, absl::StrCat(tmp, "/tmp/fxrun-", ::geteuid(), "-cache"));

  Graph g;
  Node* x = g.placeholder("x");
  g.output(g.call_function("caf\xC3\xA9", {x}));
  auto dot_program = find_graphviz_dot();
  ASSERT_TRUE(dot_program.ok()) << dot_program.status();
  for (const char* format : {"svg", "png", "svg"}) {
    auto picture = render_with_graphviz(*dot_program, *graph_to_dot(g), format);
    ASSERT_TRUE(picture.ok()) << picture.status();
    EXPECT_THAT(picture->warnings, IsEmpty()) << format;
  }
  // The first run built the cache there; later runs read it.
  struct stat st;
  EXPECT_EQ(::stat((private_home + "/fontconfig").c_str(), &st), 0);

  // A user whose cache directory can be written keeps it.
  env.set("XDG_CACHE_HOME", (tmp + "/user_cache").c_str());
  EXPECT_EQ(graphviz_private_cache_home(), "");
}

// fxrun's own directory is used only when it is this user's and nobody else
// can write it.
TEST(GraphvizTest, APrivateCacheOthersCanWriteIsNotUsed) {
  const std::string tmp = absl::StrCat(std::getenv("TEST_TMPDIR"), "/shared_tmp");
  ASSERT_EQ(::system(absl::StrCat("rm -rf '", tmp, "' && mkdir -p '", tmp, "'").c_str()), 0);
  const std::string dir = absl::StrCat(tmp, "/fxrun-", ::geteuid(), "-cache");
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  ScopedEnvironment env;
  env.set("HOME", nullptr);
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("TMPDIR", tmp.c_str());
  const std::string chosen = graphviz_private_cache_home();
  EXPECT_NE(chosen, dir);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  EXPECT_EQ(graphviz_private_cache_home(), dir);
}

// More than a pipe holds each way (64 KiB): dot is fed while it is read.
TEST(GraphDotTest, LargeGraphsGoThroughThePipes) {
  Graph g;
  Node* prev = g.placeholder("x");
  for (int i = 0; i < 1500; ++i) prev = g.call_function("operator.add", {prev, 1});
  g.output(prev);
  const std::string dot = *graph_to_dot(g);
  EXPECT_GT(dot.size(), size_t{128} << 10);
  auto dot_program = find_graphviz_dot();
  ASSERT_TRUE(dot_program.ok()) << dot_program.status();
  auto svg = render_with_graphviz(*dot_program, dot, "svg");
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_THAT(svg->output, HasSubstr(">add_1499</text>"));
  EXPECT_THAT(svg->output, HasSubstr("</svg>"));
  // About 1,000 inches tall in full; as PNG scaled to 100 inches (9600 px).
  auto png = render_with_graphviz(*dot_program, dot, "png");
  ASSERT_TRUE(png.ok()) << png.status();
  ASSERT_GT(png->output.size(), 24u);
  auto big_endian = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = at; i < at + 4; ++i) v = (v << 8) | static_cast<unsigned char>(png->output[i]);
    return v;
  };
  EXPECT_LE(big_endian(16), 9600u);  // width and height, from the IHDR chunk
  EXPECT_GT(big_endian(20), 9000u);
  EXPECT_LE(big_endian(20), 9600u);
}

}  // namespace
}  // namespace fx
