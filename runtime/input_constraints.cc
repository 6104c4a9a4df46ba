// Copyright 2026 The FX for C++ Authors.
#include "runtime/input_constraints.h"

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/well_known.h"

namespace fx {
namespace {

absl::Status malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("graph meta '", kInputConstraintsKey, "': ", what));
}

}  // namespace

absl::StatusOr<InputConstraints> InputConstraints::from_graph(const Graph& graph) {
  InputConstraints out;
  const MetaValue* meta = graph.meta().find(kInputConstraintsKey);
  if (meta == nullptr) return out;
  if (!meta->is_map()) return malformed("not a map");
  const Meta& m = meta->to_map();
  if (const MetaValue* symbols = m.find("symbols"); symbols != nullptr) {
    if (!symbols->is_map()) return malformed("'symbols' is not a map");
    for (const auto& [name, range] : symbols->to_map()) {
      if (!range.is_list() || range.to_list().size() != 2) return malformed("a range that is not [min, max]");
      const auto& r = range.to_list();
      out.ranges_[name] = {r[0].is_int() ? std::optional<int64_t>(r[0].to_int()) : std::nullopt,
                           r[1].is_int() ? std::optional<int64_t>(r[1].to_int()) : std::nullopt};
    }
  }
  std::vector<Node*> placeholders = graph.placeholders();
  if (const MetaValue* inputs = m.find("inputs"); inputs != nullptr) {
    if (!inputs->is_list()) return malformed("'inputs' is not a list");
    for (const MetaValue& entry : inputs->to_list()) {
      if (!entry.is_map()) return malformed("an input that is not a map");
      const MetaValue* name = entry.to_map().find("placeholder");
      const MetaValue* sizes = entry.to_map().find("sizes");
      if (name == nullptr || !name->is_string() || sizes == nullptr || !sizes->is_list()) {
        return malformed("an input without 'placeholder' and 'sizes'");
      }
      Input in;
      in.placeholder = name->to_string();
      bool found = false;
      for (size_t i = 0; i < placeholders.size() && !found; ++i) {
        if (placeholders[i]->name() == in.placeholder) {
          in.index = i;
          found = true;
        }
      }
      // A placeholder a pass removed constrains nothing any more.
      if (!found) continue;
      for (size_t d = 0; d < sizes->to_list().size(); ++d) {
        const MetaValue& s = sizes->to_list()[d];
        Dim dim;
        if (s.is_int()) {
          dim.value = s.to_int();
          dim.text = absl::StrCat(s.to_int());
        } else if (s.is_string()) {
          auto e = parse_sym_expr(s.to_string());
          if (e.ok()) {
            dim.text = e->to_string();
            dim.expr = std::make_shared<SymExpr>(std::move(*e));
          } else {
            out.unchecked_.push_back(absl::StrCat(in.placeholder, ": dimension ", d, " (", s.to_string(), ")"));
          }
        } else {
          return malformed("a size that is neither a number nor an expression");
        }
        in.dims.push_back(std::move(dim));
      }
      out.inputs_.push_back(std::move(in));
    }
  }
  return out;
}

absl::Status InputConstraints::check(const std::vector<c10::IValue>& inputs) const {
  if (inputs_.empty()) return absl::OkStatus();
  auto describe = [](const Input& in) {
    return absl::StrCat("input ", in.index, " (", quote_for_message(in.placeholder), ")");
  };
  // First the symbols' values, from the dimensions that are a symbol alone.
  std::map<std::string, int64_t> symbols;
  std::map<std::string, std::string> bound_at;
  for (const Input& in : inputs_) {
    if (in.index >= inputs.size() || !inputs[in.index].isTensor()) continue;
    const at::Tensor& t = inputs[in.index].toTensor();
    if (t.dim() != static_cast<int64_t>(in.dims.size())) {
      return absl::InvalidArgumentError(absl::StrCat(describe(in), " has ", t.dim(),
                                                     " dimension(s); the program was exported for ",
                                                     in.dims.size()));
    }
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const Dim& dim = in.dims[d];
      if (dim.expr == nullptr || !dim.expr->is_symbol()) continue;
      const int64_t size = t.size(static_cast<int64_t>(d));
      auto [it, inserted] = symbols.emplace(dim.expr->name(), size);
      if (inserted) {
        bound_at[dim.expr->name()] = absl::StrCat("dimension ", d, " of ", describe(in));
        auto range = ranges_.find(dim.expr->name());
        if (range != ranges_.end()) {
          const auto& [lo, hi] = range->second;
          if ((lo && size < *lo) || (hi && size > *hi)) {
            return absl::InvalidArgumentError(absl::StrCat(
                describe(in), ": dimension ", d, " is ", size, ", outside [", lo ? absl::StrCat(*lo) : "-inf",
                ", ", hi ? absl::StrCat(*hi) : "inf", "], the range of ", dim.expr->name(),
                " the program was exported with"));
          }
        }
      }
    }
  }
  for (const Input& in : inputs_) {
    if (in.index >= inputs.size() || !inputs[in.index].isTensor()) continue;
    const at::Tensor& t = inputs[in.index].toTensor();
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const Dim& dim = in.dims[d];
      const int64_t size = t.size(static_cast<int64_t>(d));
      if (dim.value) {
        if (size != *dim.value) {
          return absl::InvalidArgumentError(absl::StrCat(describe(in), ": dimension ", d, " is ", size,
                                                         ", and the program was exported for ", *dim.value,
                                                         " (a static size)"));
        }
        continue;
      }
      if (dim.expr == nullptr) continue;
      auto expected = dim.expr->evaluate(symbols);
      if (absl::IsNotFound(expected.status())) continue;  // a symbol no input dimension gives alone
      if (!expected.ok()) {
        // (Overflow, division by zero: no size the input can have.)
        return absl::InvalidArgumentError(absl::StrCat(describe(in), ": dimension ", d, " must be ", dim.text,
                                                       ", which cannot be computed: ", expected.status().message()));
      }
      if (size != *expected) {
        std::string because;
        if (dim.expr->is_symbol()) because = absl::StrCat(" (from ", bound_at[dim.expr->name()], ")");
        return absl::InvalidArgumentError(absl::StrCat(describe(in), ": dimension ", d, " is ", size,
                                                       ", and the program needs ", dim.text, " = ", *expected,
                                                       " there", because));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace fx
