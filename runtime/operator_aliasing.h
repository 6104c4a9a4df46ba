// Copyright 2026 The FX for C++ Authors.
//
// operator_aliasing.h: what libtorch's schemas do not say about aliasing.
// The tracer (in-place operations kept in place on values that may share a
// tensor) and passes that reason about storage (cse) read it here.
#ifndef FX_RUNTIME_OPERATOR_ALIASING_H_
#define FX_RUNTIME_OPERATOR_ALIASING_H_

#include <cstddef>
#include <numeric>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// True for operators whose result may be one of their inputs itself, or share
// its storage, although their schema gives the result no alias annotation, so
// TorchScript's alias analysis takes it for a new tensor: `torch.atleast_2d(h)`
// returns `h` when h is already 2-D, dropout in eval mode returns its input,
// `type_as` returns self when the types match, einsum and meshgrid return
// views. The tracer treats their results as views of every input (an in-place
// operation on either stays in place), and tracer/torchscript/call_effects.h as aliases of the
// inputs of a leaf's body. `name` is the qualified name without overload
// (`aten::atleast_2d`): every overload is taken to behave alike.
//
// Found by calling every operator of libtorch 1.13 whose schema returns a
// tensor without an alias annotation on varied inputs and comparing storages
// (the list in the .cc), and by reading the composite implementations.
FX_API bool may_share_an_input(absl::string_view name);

// Union-find over value indices 0..n-1: the classes of values that may share
// storage (the plan's in-place specialisation and cse both build them).
class FX_API AliasClasses {
 public:
  explicit AliasClasses(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  // The representative of i's class (path halving).
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void unite(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;
};

}  // namespace fx

#endif  // FX_RUNTIME_OPERATOR_ALIASING_H_
