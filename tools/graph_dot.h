// Copyright 2026 The FX for C++ Authors.
//
// graph_dot.h: a graph as a Graphviz picture (fxrun --emit=dot|svg|png).
//
//   std::string dot = *fx::graph_to_dot(gm.graph());            // DOT text
//   fx::DotOptions options;
//   options.scope = "layer1.0";                                 // ResNet's first block
//   absl::StatusOr<std::string> block = fx::graph_to_dot(gm.graph(), options);
//   auto dot_program = fx::find_graphviz_dot();                 // "/usr/bin/dot"
//   auto svg = fx::render_with_graphviz(*dot_program, dot, "svg");
//   if (svg.ok()) write(svg->output);                           // an <svg> document
//
// The DOT text of ResNet-18's first block (abridged):
//
//   digraph fx_graph {
//     ...
//     "maxpool" [label="maxpool", shape=ellipse, style=dashed, ...];   // boundary node
//     subgraph cluster_0 {
//       label=<layer1.0>;
//       "layer1_0_conv1" [label=<<B>layer1_0_conv1</B><BR/><FONT ...>call_module </FONT>
//                         layer1.0.conv1<BR/>1&#215;64&#215;56&#215;56 float32>, ...];
//       "add" [label=<<B>add</B><BR/><FONT ...>call_function </FONT>aten.add.Tensor>, ...];
//       ...
//     }
//     "maxpool" -> "layer1_0_conv1";
//     ...
//   }
//
// What is drawn:
//   * One box per node: its name (bold), opcode and target (call_function
//     targets spelled as the table spells them, `aten.add.Tensor`), its
//     tensor's shape and dtype when shape propagation left `tensor_meta` in its
//     meta (`1×64×56×56 float32`; one entry per result, comma-separated, for a
//     node with several), and its `module_path` when it has one and neither
//     its target (a call_module's) nor the cluster around it says it. Boxes
//     are coloured by opcode.
//   * Clusters for module paths, nested as the module hierarchy is:
//     `layer1.0.conv1` sits in `layer1.0`, which sits in `layer1`. A node is
//     in the cluster of its module path, except a call_module node, which is
//     that module and so sits in its parent's. A cluster is one call of a
//     module: the consecutive nodes (graph order is execution order) at or
//     under its path. A module called twice, as a Bottleneck calls its ReLU,
//     gets two clusters, since one would have to enclose everything between
//     the calls. A call of one node is not drawn as a cluster (the box names
//     its module).
//   * An edge from each node to each of its users (one per pair, however many
//     times the user reads it).
//   * With `scope`, only the nodes whose module path is `scope` or under it
//     (`layer1.0` keeps `layer1.0.conv1`, not `layer1.00`), in a cluster
//     for `scope`; the nodes outside it that they read or that read them are
//     small dashed boundary nodes, so the picture shows how the part connects.
//
// Rendering runs Debian's `dot` program (package graphviz) as a subprocess,
// not libgvc: the program is one apt package away on every Debian machine, its
// command line is stable across Graphviz versions where libgvc's C API and
// plugin set are not, a crash or runaway layout in it cannot take fxrun down,
// and fxrun builds and runs without Graphviz when no picture is asked for.
//
// Contracts:
//   * graph_to_dot is a pure function of the graph and the options: the same
//     graph gives byte-identical text (nodes and clusters in graph order,
//     clusters numbered in that order). It is linear in the graph's size
//     times the depth of module paths.
//   * The text is ASCII and always valid DOT: names, targets and module paths
//     are escaped for where they go (quoted IDs, HTML-like labels: `<`, `>`,
//     `&`, `"`, backslashes); control characters and bytes that are not UTF-8
//     are shown as `\xNN`, other non-ASCII characters as character
//     references (`&#233;`).
//   * A `scope` that is not a module path of the graph, nor a prefix of one at
//     a `.`, is an InvalidArgument error naming it, the closest module path and
//     some valid ones; it changes nothing else.
//   * find_graphviz_dot searches PATH as a shell would; when `dot` is not there
//     the error says to install Debian's graphviz.
//   * render_with_graphviz runs `dot -T<format>` (format: svg or png) without
//     a shell. It feeds dot the text on stdin while reading its stdout and
//     stderr (no deadlock on large graphs; a SIGPIPE from a dot that exits
//     early is absorbed, not delivered), and waits for it. A non-zero exit
//     status or a signal is an Internal error quoting dot's first line on
//     stderr; on success what dot wrote on stderr comes back as warnings.
//   * A PNG is scaled down to fit 100 by 100 inches (9600 pixels a side): a
//     bitmap of a large graph in full takes gigabytes and minutes, and an
//     SVG, always drawn in full, is the picture for those. There is no time
//     limit: dot draws inlined ResNet-50 (656 nodes) in about 0.2 s of CPU
//     as SVG, 2.5 s as PNG.
//   * render_with_graphviz is thread-compatible: calls on several threads
//     touch only their own pipes and their own thread's signal mask.
#ifndef FX_TOOLS_GRAPH_DOT_H_
#define FX_TOOLS_GRAPH_DOT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph.h"
#include "core/meta.h"

namespace fx {

struct DotOptions {
  // A module path: draw only the nodes at or under it. Empty: the whole graph.
  std::string scope;
};

// The graph as Graphviz DOT text (see above).
absl::StatusOr<std::string> graph_to_dot(const Graph& graph, const DotOptions& options = {});

// A node's `tensor_meta` for its label: `1×64×56×56 float32` (the shape's
// sizes joined by U+00D7, `scalar` for a 0-dimensional tensor; the dtype
// without `torch.`), results of a multi-result node comma-separated, `?` for
// a result that is not a tensor; "" when `value` says nothing of the kind.
std::string describe_tensor_meta(const MetaValue& value);

// The path of Graphviz's `dot` on PATH, or a NotFound error saying how to
// install it.
absl::StatusOr<std::string> find_graphviz_dot();

struct RenderedPicture {
  std::string output;                 // the svg document or png bytes
  std::vector<std::string> warnings;  // dot's stderr lines, when it succeeded
};

// `dot_text` laid out and rendered by the `dot` program at `dot_program`, as
// `format` ("svg" or "png").
absl::StatusOr<RenderedPicture> render_with_graphviz(const std::string& dot_program,
                                                     absl::string_view dot_text,
                                                     absl::string_view format);

}  // namespace fx

#endif  // FX_TOOLS_GRAPH_DOT_H_
