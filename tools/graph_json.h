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
// naturally (lists to arrays, maps to objects).
#ifndef FX_TOOLS_GRAPH_JSON_H_
#define FX_TOOLS_GRAPH_JSON_H_

#include <nlohmann/json.hpp>

#include "core/argument.h"
#include "core/graph.h"
#include "core/meta.h"

namespace fx {

nlohmann::ordered_json argument_to_json(const Argument& arg);
nlohmann::ordered_json meta_to_json(const MetaValue& value);
nlohmann::ordered_json meta_to_json(const Meta& meta);
nlohmann::ordered_json graph_to_json(const Graph& graph);

}  // namespace fx

#endif  // FX_TOOLS_GRAPH_JSON_H_
