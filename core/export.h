// Copyright 2026 The FX for C++ Authors.
//
// export.h: FX_API, the mark on what libfx.so exports.
//
//   class FX_API Graph { ... };                       // members, vtable, typeinfo
//   FX_API std::string format_graph(const Graph& g);  // a free function
//
// The FX library is compiled with -fvisibility=hidden and
// -fvisibility-inlines-hidden (.bazelrc's --per_file_copt; CMakeLists.txt's
// CXX_VISIBILITY_PRESET), so that libfx.so exports its API and not the
// thousands of std::, absl::, nlohmann:: and torch:: instantiations and
// internals its code uses, as LLVM (LLVM_ABI) and Abseil do. What code outside
// the library calls (fxrun, plugins, programs that embed it) is marked FX_API.
//
// Contracts:
// - Mark whole classes: their out-of-line members, vtable and typeinfo are
//   exported. A class that plugins derive from (Pass, TracerExtension,
//   OptionSet) or that is thrown across the boundary must be marked, or its
//   typeinfo stays inside libfx.so.
// - GCC takes no __attribute__ after a [[...]] attribute: a [[nodiscard]]
//   class is marked on a declaration of its own (`class FX_API X;`, then
//   `class [[nodiscard]] X {...}`: graph.h's InsertionGuard).
// - Mark free functions at their declaration in the header. Inline functions
//   and templates defined wholly in a header need no mark: each user compiles
//   its own.
// - Declarations in `*_internal` namespaces and headers private to a Bazel
//   library (in its srcs) are not marked, unless a public header's macro or
//   inline code calls them (check.h).
// - A test that calls what its library does not mark links it statically
//   (cc_test's linkstatic = 1): Bazel's fastbuild tests otherwise link each
//   library as a shared library of its own, whose unmarked code is hidden.
//   Test helpers (*/testing/) and distributed/ (fxrun's, not libfx.so's) are
//   compiled with default visibility.
// - //plugins:libfx_exports_test lists libfx.so's exported symbols by
//   namespace and fails on any that is not the API's: namespace fx, and the
//   weak copies of std:: and libtorch header code that those headers declare
//   default-visible (which -fvisibility cannot hide; the dynamic linker merges
//   them). An Abseil or nlohmann symbol, or a strong one outside fx, fails it.
#ifndef FX_CORE_EXPORT_H_
#define FX_CORE_EXPORT_H_

#define FX_API __attribute__((visibility("default")))

#endif  // FX_CORE_EXPORT_H_
