// Copyright 2026 The FX for C++ Authors.
//
// graph_file.h: a GraphModule's graph as a file that reads back exactly
// (`fxrun --emit=json --output=G.json`, later `fxrun --graph=G.json --model=M.pt`).
//
//   std::string text = fx::graph_file_text(gm);            // after a pipeline
//   ... write it, ship it ...
//   auto model = *fx::module_from_torchscript(torch::jit::load("m.pt"));  // the state
//   fx::GraphModule again = *fx::read_graph_file(text, model, "G.json");
//
// The file is JSON:
//   {"format": "fx-graph", "version": 1, "class_name": "GraphModule",
//    "nodes": [...], "meta": {...},                    (graph_json.h)
//    "functions": {"torch.nn.functional.relu": ["__torch__.torch.nn.functional.relu"]},
//    "attributes": {"_tensor_constant0": {"pickle": "<base64>"}}}
// "functions" are the leaf functions the graph calls
// (runtime/torchscript/script_functions.h), by the qualified names of their
// TorchScript in the model's file (the compilation unit of the model's root
// class: module_from_torchscript's TorchScriptClass); the GraphModule's own
// attributes (tensor constants the tracer lifted) travel inside, as
// torch.save's pickle of the value in base64. Parameters, buffers and
// submodules come from the model given when reading. Graph submodules
// (split's stages) are under "submodules": {"submod_0": {"class_name": ...,
// "nodes": ..., "functions": ..., "attributes": ..., "submodules": ...}},
// read over the same model.
//
// Contracts:
//   * read_graph_file(graph_file_text(gm), gm's model) rebuilds gm's graph
//     exactly (names, opcodes, targets, types, args, kwargs, meta, graph
//     meta, impurity), its own attributes and its leaf functions.
//   * Every error names the file and the place in it: JSON syntax (line and
//     column), nesting deeper than any graph needs (checked on the text, before
//     parsing), another format or version, a node referenced before it is
//     defined or never, duplicate names, a node named `self` (the module in
//     printed code), a class name that is not an identifier or is a keyword, a
//     type that is not an annotation of types TorchScript knows (or, for a
//     placeholder, not its argument's type), a target or function the model
//     lacks. Nothing crashes on malformed input, and nothing it holds can
//     change what printed code means.
#ifndef FX_TOOLS_GRAPH_FILE_H_
#define FX_TOOLS_GRAPH_FILE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_module.h"
#include "runtime/module.h"

namespace fx {

// The version graph_file_text writes and read_graph_file reads.
inline constexpr int kGraphFileVersion = 1;

// `gm` as a graph file (pretty-printed JSON, ending in a newline). Fails,
// naming the place, when a string in the graph (a tag, a constant argument)
// is not UTF-8, which JSON cannot hold.
absl::StatusOr<std::string> graph_file_text(const GraphModule& gm);

// The GraphModule a graph file describes, over `model`'s state (not null;
// shared, not copied). `file_name` names the file in errors.
absl::StatusOr<GraphModule> read_graph_file(absl::string_view text,
                                            std::shared_ptr<Module> model,
                                            absl::string_view file_name);

}  // namespace fx

#endif  // FX_TOOLS_GRAPH_FILE_H_
