// Copyright 2026 The FX for C++ Authors.
//
// schema_parser.h: what the readers of a program's JSON share. Internal to
// //exported_program; not part of the API (include exported_program/schema.h).
//
// The readers check each object against the schema and throw SchemaError,
// naming the place in the document (`graph_module.graph.nodes[3]
// ('conv2d').inputs[1].arg`); schema.h's entry points turn it into a Status.
//
// Where each part lives:
//   schema_parser.cc       the Parser (which keys a version allows), typed
//                          getters, document paths
//   schema_read_values.cc  devices, symbolic values, tensor metadata, the
//                          Argument union and its kind table
//   schema_read.cc         graphs, nodes, signatures, the program; the
//                          reading entry points of schema.h
//   schema_write.cc        to_json: all of it back to JSON
#ifndef FX_EXPORTED_PROGRAM_SCHEMA_PARSER_H_
#define FX_EXPORTED_PROGRAM_SCHEMA_PARSER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "exported_program/schema.h"

namespace fx {
namespace exported {
namespace schema_internal {

using json = nlohmann::json;

// Thrown by the readers only; schema.h's entry points turn it into a Status.
struct SchemaError {
  std::string path;
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& message);

// "an object", "a string", ...: what was found where something else was expected.
const char* json_kind(const json& j);

class Parser {
 public:
  Parser(std::vector<std::string>* warnings, bool newer_minor)
      : warnings_(warnings), newer_minor_(newer_minor) {}

  // Checks that `j` is an object whose keys are among `known` and that has
  // every key of `required`. Unknown keys fail for a known version and are
  // warned about (once per path pattern and key) for a newer minor one.
  void check_object(const json& j, const std::string& path,
                    std::initializer_list<const char*> known,
                    std::initializer_list<const char*> required);

  void unknown(const std::string& path, const std::string& key);

  // The one member of a union object: {"as_int": 3} -> ("as_int", 3).
  std::pair<std::string, const json*> union_member(const json& j, const std::string& path);

  bool newer_minor() const { return newer_minor_; }

 private:
  std::vector<std::string>* warnings_;
  bool newer_minor_;
  std::set<std::string> warned_;
};

// Typed values; each fails naming `path` and what it found instead.
int64_t get_int(const json& j, const std::string& path);
// A float as Python's json module writes one: a number, or "Infinity",
// "-Infinity" and "NaN" (which torch.export writes as strings).
double get_float(const json& j, const std::string& path);
bool get_bool(const json& j, const std::string& path);
// These two return a reference into `j`, never into `path`: GCC 14's
// -Wdangling-reference cannot tell, and warns where `path` is a temporary.
#if defined(__has_cpp_attribute)
#if __has_cpp_attribute(gnu::no_dangling)
#define FX_RETURNS_INTO_FIRST_ARGUMENT [[gnu::no_dangling]]
#endif
#endif
#ifndef FX_RETURNS_INTO_FIRST_ARGUMENT
#define FX_RETURNS_INTO_FIRST_ARGUMENT
#endif
FX_RETURNS_INTO_FIRST_ARGUMENT const std::string& get_string(const json& j, const std::string& path);
FX_RETURNS_INTO_FIRST_ARGUMENT const json& get_array(const json& j, const std::string& path);

// An error when `text` (JSON, not parsed yet) nests arrays and objects
// deeper than `max_nesting`: nlohmann's parser, copies, dump() and
// destructor recurse once per level. Counts brackets outside strings only.
absl::Status check_json_nesting(absl::string_view text, int max_nesting);

// Paths in the document: `path[i]`, `path.key`.
std::string item(const std::string& path, size_t i);
std::string member(const std::string& path, absl::string_view key);

// Readers that schema_read_values.cc and schema_read.cc call in each other:
// values and arguments, and graphs (an argument may hold a subgraph).
// SymInt / SymFloat / SymBool: {"as_expr": {"expr_str", "hint"}} or a constant.
SymValue parse_sym(Parser& p, const json& j, const std::string& path, SymValue::Kind constant);
TensorMeta parse_tensor_meta(Parser& p, const json& j, const std::string& path);
// {"name": "x"} of a TensorArgument (and TokenArgument).
std::string tensor_name(Parser& p, const json& j, const std::string& path);
Argument parse_argument(Parser& p, const json& j, const std::string& path);
std::shared_ptr<Graph> parse_graph(Parser& p, const json& j, const std::string& path);

}  // namespace schema_internal
}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_SCHEMA_PARSER_H_
