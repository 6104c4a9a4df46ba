// Copyright 2026 The FX for C++ Authors.
//
// graph_dot.h: a graph as a Graphviz picture (fxrun --emit=dot|svg|png).
//
//   std::string dot = *fx::graph_to_dot(gm.graph());            // DOT text
//   fx::DotOptions options;
//   options.scope = "layer1.0";                                 // ResNet's first block
//   absl::StatusOr<std::string> block = fx::graph_to_dot(gm.graph(), options);
//   // Rendered as SVG or PNG by Graphviz's dot: tools/graphviz.h.
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
// Rendering the text as SVG or PNG is tools/graphviz.h.
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
#ifndef FX_TOOLS_GRAPH_DOT_H_
#define FX_TOOLS_GRAPH_DOT_H_

#include <string>

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

}  // namespace fx

#endif  // FX_TOOLS_GRAPH_DOT_H_
