// Copyright 2026 The FX for C++ Authors.
//
// graph_json.h: a GraphModule's graph as JSON (fxrun --emit=json).
//
//   {"nodes": [{"name": "add", "op": "call_function", "target": "aten::add.Tensor",
//               "args": [{"node": "x"}, 1], "kwargs": {}, "users": ["relu"],
//               "meta": {"module_path": "layer1.0"}}, ...],
//    "meta": {...graph meta...}}
//
// Argument encoding: None, bool, int, float and str are JSON null, booleans,
// numbers and strings (non-finite floats: {"float": "inf"}); a node reference
// is {"node": NAME}; a list is an array; a tuple {"tuple": [...]}; a dict
// {"dict": {...}}; torch literals {"dtype": "torch.float32"},
// {"device": "cuda:0"}, {"layout": "torch.strided"},
// {"memory_format": "torch.channels_last"}. Metadata values map to JSON
// naturally (lists to arrays, maps to objects; non-finite floats as above).
// A node marked impure (Node::is_impure) has "impure": true; "users" is
// derived from the args and ignored when reading.
//
// Reading (graph_from_json) rebuilds exactly the graph that was written:
// the same names, opcodes, targets, types, args and kwargs with their kinds,
// meta and graph meta. Errors name the place in the document, e.g.
// `nodes[3] ("add").args[1]: node "foo" is not defined before it`.
#ifndef FX_TOOLS_GRAPH_JSON_H_
#define FX_TOOLS_GRAPH_JSON_H_

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include "core/argument.h"
#include "core/graph.h"
#include "core/meta.h"

namespace fx {

nlohmann::ordered_json argument_to_json(const Argument& arg);
nlohmann::ordered_json meta_to_json(const MetaValue& value);
nlohmann::ordered_json meta_to_json(const Meta& meta);
nlohmann::ordered_json graph_to_json(const Graph& graph);

// The inverses. A node argument is looked up by name in `nodes`; `where`
// names the place in the document for errors.
absl::StatusOr<MetaValue> meta_value_from_json(const nlohmann::ordered_json& json,
                                               const std::string& where);
absl::StatusOr<Meta> meta_from_json(const nlohmann::ordered_json& json, const std::string& where);
absl::StatusOr<std::unique_ptr<Graph>> graph_from_json(const nlohmann::ordered_json& json);

// Refuses a document nested deeper than any graph needs (200 levels), which
// reading (and comparing) recursively would exhaust the stack on. Iterative.
absl::Status check_json_nesting(const nlohmann::ordered_json& document);
// The same on JSON text, before it is parsed: nlohmann's ordered_json copies
// (recursively) an object's values when a later key grows it, so a deep array
// followed by more keys exhausts the stack while parsing. Errors give the
// line and column.
absl::Status check_json_text_nesting(absl::string_view text);

// JSON holds UTF-8 text only: the first string (or key) of `document` that is
// not UTF-8, as an error naming its place (`nodes[1].meta.tag`).
absl::Status check_utf8_strings(const nlohmann::ordered_json& document);

}  // namespace fx

#endif  // FX_TOOLS_GRAPH_JSON_H_
