// Copyright 2026 The FX for C++ Authors.
//
// printer.h: the three printed forms of a Graph, as torch.fx prints them.
//
//   format_graph(g)     `print(graph)`:
//                         graph():
//                             %x : [num_users=1] = placeholder[target=x]
//                             %add : [num_users=1] = call_function[target=operator.add](args = (%x, %w), kwargs = {})
//                             return add
//   format_tabular(g)   `graph.print_tabular()` (tabulate's "simple" table with
//                       columns opcode, name, target, args, kwargs), optionally
//                       with one more column per metadata key;
//   python_code(g)      `GraphModule.code`: the Python source of `forward`,
//                       which sets each value to None after its last use:
//                         def forward(self, x):
//                             add = x + param;  x = param = None
//                             return add
//
// How targets are spelled. call_function targets are qualified names. Operator
// names `ns::op.overload` print as torch.fx prints OpOverloads:
// `torch.ops.aten.add.Tensor` in the graph and in code, `aten.add.Tensor` in the
// table (`aten::relu` is the `default` overload). A name without a module
// (`getattr`, `len`) is a Python builtin: `builtins.getattr` in the graph. Other
// names print as they are (`operator.add`, `torch.sum`). In code, `operator.*`
// functions print infix (`x + y`, `x[0]`) and `getattr(x, 'shape')` as `x.shape`.
//
// Every printer is linear in the graph's size. format_graph and format_tabular
// return text without a final newline, like str(); python_code returns source
// text, which ends with one.
#ifndef FX_CORE_PRINTER_H_
#define FX_CORE_PRINTER_H_

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/export.h"
#include "core/graph.h"
#include "core/meta.h"
#include "core/node.h"

namespace fx {

// `print(graph)`.
FX_API std::string format_graph(const Graph& graph);
// One node as in `print(graph)`, without indentation (`Node.format_node()`).
FX_API std::string format_node(const Node& node);
// `graph.print_tabular()`, plus one column per key in `meta_columns` (the cell
// is empty for nodes without that key). A column `key.field` (not itself a
// key) shows a field of a map value, headed `field`: `tensor_meta.shape`
// shows meta["tensor_meta"]["shape"]; through a list of maps it shows the
// list of their fields (`[[2, 3], [2]]` for a node of two tensors).
FX_API std::string format_tabular(const Graph& graph,
                                  const std::vector<std::string>& meta_columns = {});
// The language python_code writes.
//   kPython       torch.fx's `GraphModule.code`, which runs with PyTorch: each
//                 value set to None after its last use, functions outside
//                 torch imported before `def forward`.
//   kTorchScript  the same program as source TorchScript compiles (the
//                 exporter, runtime/torchscript/torchscript_export.h, compiles it): no value
//                 set to None (a TorchScript variable keeps one type), every
//                 function called by its full name (the exporter resolves it),
//                 `torch._assert(c, msg)` as the statement `assert c, msg`,
//                 submodules called as `self.m.forward(x)` (or the method
//                 meta `_method` names), `operator.not_(c)`
//                 and `operator.abs(x)` as `not c` and `abs(x)`,
//                 and no return annotation (TorchScript infers it). A
//                 function whose name (its first atom) a value of the graph
//                 takes is called through torchscript_function_namespace
//                 (`_fx_functions.clip(s)` where a value is named `clip`).
enum class CodeDialect { kPython, kTorchScript };
// `GraphModule.code` of a module whose forward is `graph`.
FX_API std::string python_code(const Graph& graph, CodeDialect dialect = CodeDialect::kPython);
// The name no value of `graph` takes that the TorchScript dialect reaches
// shadowed functions through: `_fx_functions`, or `_fx_functions_1`, ...
FX_API std::string torchscript_function_namespace(const Graph& graph);

// An argument as the graph printer shows it (torch.fx's `_format_arg`):
// `%x` for nodes, strings unquoted, dicts as `{dim: -1}`.
FX_API std::string format_arg(const Argument& arg);
// An argument as Python's `repr` shows it (nodes by name): `('bilinear', x, 1.0)`.
FX_API std::string python_repr(const Argument& arg);
// The names generated code binds classes to, by their qualified names.
using ClassNames = absl::flat_hash_map<std::string, std::string>;
// An argument as generated code writes it: repr, except what Python cannot
// read back from repr (`torch.device('cuda', 0)`, `float('inf')`), and
// NamedTuples constructed, `GoogLeNetOutputs(fc, None, None)`, by the name
// `classes` binds the class to (its qualified name when it binds none).
FX_API std::string python_code_repr(const Argument& arg, const ClassNames* classes = nullptr);
// A metadata value for a table cell: strings unquoted, the rest as Python repr.
FX_API std::string format_meta_value(const MetaValue& value);

// How a call_function target is spelled in each printed form (see above).
enum class TargetStyle { kGraph, kTabular, kCode };
FX_API std::string spell_function_target(absl::string_view target, TargetStyle style);

// Python's repr of a float (`1.0`, `1e-05`, `0.1`, `inf`).
FX_API std::string python_float_repr(double value);
// Python's repr of a str, with its quoting rules.
FX_API std::string python_string_repr(absl::string_view s);
// torch's Python spellings: `torch.float32`, `device(type='cuda', index=0)`,
// `torch.strided`, `torch.channels_last`.
FX_API std::string python_dtype_name(c10::ScalarType dtype);
FX_API std::string python_layout_name(c10::Layout layout);
FX_API std::string python_memory_format_name(c10::MemoryFormat format);
// The inverses: the value a spelling above names (`torch.float32`), or
// nullopt when it names none.
FX_API std::optional<c10::ScalarType> dtype_from_python_name(absl::string_view name);
FX_API std::optional<c10::Layout> layout_from_python_name(absl::string_view name);
FX_API std::optional<c10::MemoryFormat> memory_format_from_python_name(absl::string_view name);

inline std::ostream& operator<<(std::ostream& os, const Graph& graph) {
  return os << format_graph(graph);
}

}  // namespace fx

#endif  // FX_CORE_PRINTER_H_
