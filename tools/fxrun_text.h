// Copyright 2026 The FX for C++ Authors.
//
// fxrun_text.h: what fxrun prints besides the graph's own forms: the
// registered plugins (--list-plugins), the graph in the form --print names,
// and the flags (--help).
#ifndef FX_TOOLS_FXRUN_TEXT_H_
#define FX_TOOLS_FXRUN_TEXT_H_

#include <ostream>
#include <string>
#include <vector>

#include "runtime/graph_module.h"

namespace fx {

// Every plugin, tracer extension and pass of the global registry, with options.
void list_plugins(std::ostream& out);

// The keys a tracer or pass left in node meta, in first-seen order, for the
// table's extra columns (bookkeeping keys, starting with '_', left out);
// shape_prop's tensor_meta, last, as its shape and dtype.
std::vector<std::string> meta_columns(const Graph& graph);

// `gm` as --print's `format` says: graph, tabular or code ("" for none).
std::string render(const GraphModule& gm, const std::string& format);

// --help: every flag defined in fxrun_flags.cc with its default, spelled as
// documented (dashes).
void print_help(std::ostream& out);

}  // namespace fx

#endif  // FX_TOOLS_FXRUN_TEXT_H_
