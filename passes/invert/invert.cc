// Copyright 2026 The FX for C++ Authors.
#include "passes/invert/invert.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph.h"
#include "core/naming.h"
#include "runtime/graph_module.h"

namespace fx {
namespace {

// The unary inverse pairs this plugin registers.
constexpr std::pair<const char*, const char*> kBuiltinInverses[] = {
    {"sin", "asin"},       {"cos", "acos"},     {"tan", "atan"},       {"arcsin", "sin"},
    {"arccos", "cos"},     {"arctan", "tan"},   {"exp", "log"},        {"exp2", "log2"},
    {"expm1", "log1p"},    {"sinh", "asinh"},   {"tanh", "atanh"},     {"arcsinh", "sinh"},
    {"arctanh", "tanh"},   {"sigmoid", "logit"}, {"sqrt", "square"},   {"neg", "neg"},
    {"reciprocal", "reciprocal"},
};

// `torch.exp` -> `torch.log`, `aten::exp.out` -> `aten::log`, `exp` -> `log`:
// the inverse in the same form as the original target.
std::string same_form(absl::string_view target, absl::string_view inverse) {
  const size_t ns = target.find("::");
  if (ns != absl::string_view::npos) return absl::StrCat(target.substr(0, ns + 2), inverse);
  const size_t dot = target.rfind('.');
  if (dot != absl::string_view::npos) return absl::StrCat(target.substr(0, dot + 1), inverse);
  return std::string(inverse);
}

bool is_number(const Argument& a) { return a.is_int() || a.is_double(); }

// Arithmetic with a constant, inverted. Fills `target` and `args` (with
// `value` for the new chain value) or returns false.
bool invert_arithmetic(const Node& node, Node* value, std::string* target, Arguments* args,
                       Kwargs* kwargs, std::string* why) {
  std::string base(function_base_name(node.target()));
  const bool aten = node.target().find("::") != std::string::npos;
  if (base == "truediv") base = "div";
  if (base != "add" && base != "sub" && base != "mul" && base != "div" && base != "rsub") {
    return false;
  }
  const Arguments& in = node.args();
  if (in.size() != 2) return false;
  const bool left = in[0].is_node() && is_number(in[1]);   // x op c
  const bool right = is_number(in[0]) && in[1].is_node();  // c op x
  if (!left && !right) return false;
  const Argument c = left ? in[1] : in[0];
  for (const auto& [k, v] : node.kwargs()) {
    if (k != "alpha") {
      *why = absl::StrCat("keyword argument '", k, "' is not supported");
      return true;
    }
    kwargs->emplace_back(k, v);
  }
  if ((base == "mul" || (base == "div" && right)) &&
      ((c.is_int() && c.to_int() == 0) || (c.is_double() && c.to_double() == 0.0))) {
    *why = "multiplying or dividing by 0 cannot be undone";
    return true;
  }
  // The operator spelled the way the graph spells it.
  auto spell = [&](absl::string_view op) {
    if (aten) return absl::StrCat("aten::", op, ".Scalar");
    if (absl::StartsWith(node.target(), "operator.")) {
      return absl::StrCat("operator.", op == "div" ? "truediv" : op);
    }
    return same_form(node.target(), op);
  };
  if (base == "add" || base == "mul") {
    // x + c = y  =>  x = y - c (either order), and likewise for *.
    *target = spell(base == "add" ? "sub" : "div");
    *args = {value, c};
  } else if (base == "rsub" || right) {
    // c - x = y  =>  x = c - y ;  c / x = y  =>  x = c / y: the same operation
    // (rsub(x, c) is c - x, so its inverse is rsub(y, c)).
    *target = node.target();
    *args = base == "rsub" ? Arguments{value, c} : Arguments{c, value};
  } else {
    // x - c = y  =>  x = y + c ;  x / c = y  =>  x = y * c.
    *target = spell(base == "sub" ? "add" : "mul");
    *args = {value, c};
  }
  return true;
}

}  // namespace

absl::Status Invert::run(GraphModule& module, PassContext& context) {
  const Graph& graph = module.graph();
  absl::flat_hash_map<std::string, std::string> inverses;
  for (const auto& [a, b] : context.registry().table(kInverseTable)) {
    inverses.emplace(a, b);
    inverses.emplace(b, a);
  }
  std::vector<Node*> inputs = graph.placeholders();
  if (inputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph has ", inputs.size(), " inputs (",
        absl::StrJoin(inputs, ", ", NodeNameFormatter()),
        "); invert needs exactly one"));
  }
  const Node* out = graph.output_node();
  if (out == nullptr || out->args().empty() || !out->args()[0].is_node()) {
    return absl::InvalidArgumentError(
        "the graph must return one value of the graph; invert cannot invert several outputs or a "
        "constant");
  }

  auto inverse = std::make_unique<Graph>();
  absl::flat_hash_map<const Node*, Node*> env;  // original value -> its value in the inverse
  for (const Node* n : graph.reversed_nodes()) {
    auto where = [&] {
      return absl::StrCat("node '", n->name(), "' (", op_name(n->op()), " ", n->target(), ")");
    };
    switch (n->op()) {
      case Op::kOutput:
        env[n->args()[0].to_node()] = inverse->placeholder(n->name());
        continue;
      case Op::kPlaceholder: {
        auto it = env.find(n);
        if (it == env.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat("the input '", n->name(), "' does not reach the output"));
        }
        inverse->output(it->second);
        continue;
      }
      case Op::kCallFunction:
      case Op::kCallMethod:
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            where(), ": invert handles operations on the input only",
            n->op() == Op::kCallModule ? " (inline the module first)" : ""));
    }
    auto it = env.find(n);
    if (it == env.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), " is not on the path from the input to the output"));
    }
    const absl::Span<Node* const> graph_inputs = n->input_nodes();
    if (graph_inputs.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(), " takes ", graph_inputs.size(), " values of the graph (",
          absl::StrJoin(graph_inputs, ", ", NodeNameFormatter()),
          "); invert handles operations of one value"));
    }
    Node* value = it->second;
    std::string target;
    Arguments args;
    Kwargs kwargs;
    std::string why;
    if (invert_arithmetic(*n, value, &target, &args, &kwargs, &why)) {
      if (!why.empty()) return absl::InvalidArgumentError(absl::StrCat(where(), ": ", why));
    } else {
      const std::string base(function_base_name(n->target()));
      auto inv = inverses.find(base);
      if (inv == inverses.end()) {
        return absl::NotFoundError(absl::StrCat(
            where(), " has no registered inverse; a plugin can add one to table '",
            kInverseTable, "'"));
      }
      if (n->args().size() != 1 || !n->kwargs().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where(), ": only the one-argument form can be inverted"));
      }
      target = same_form(n->target(), inv->second);
      args = {value};
    }
    Node* undone = inverse->create_node(n->op(), target, std::move(args), std::move(kwargs));
    Node* input = graph_inputs[0];
    if (!env.emplace(input, undone).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value '", input->name(), "' is used by several operations; invert handles a chain"));
    }
  }
  module.set_graph(std::move(inverse));
  return absl::OkStatus();
}

void register_invert(PluginRegistrar& registrar) {
  registrar.add_pass<Invert>("invert",
                             "replaces the graph by its inverse function (walks it backwards)");
  for (const auto& [a, b] : kBuiltinInverses) registrar.add_table_entry(kInverseTable, a, b);
}

}  // namespace fx
