// Copyright 2026 The FX for C++ Authors.
//
// bazel_runfiles.h: the files `bazel run` and `bazel test` give a program
// beside it (its runfiles tree), for fxrun in a source checkout: the in-tree
// plugins' list and the example ResNet-18. A release and a CMake build find
// their plugins through fx/installation.h instead, and have no runfiles.
//
//   std::string tree = fx::bazel_runfiles_directory();   // "" outside Bazel
//   std::string model = fx::bazel_runfile(tree, "tools/models/resnet18.pt");
//
// The tree is RUNFILES_DIR when set (a test, and a program it starts), else
// the executable's own .runfiles (bazel-bin/tools/fxrun.runfiles), found from
// /proc/self/exe: never from argv[0], which names a program found on PATH
// relative to nothing, so that a `fxrun.runfiles` in the working directory is
// never read. An installed program (a release, a CMake build, which finds its
// plugins beside it: fx/installation.h) has no runfiles: "", whatever the
// environment says. Only trees of directories and links are read (not a
// runfiles manifest alone).
#ifndef FX_TOOLS_BAZEL_RUNFILES_H_
#define FX_TOOLS_BAZEL_RUNFILES_H_

#include <string>

namespace fx {

std::string bazel_runfiles_directory();

// The file `path` of this repository in `tree` (workspace fx_cpp), or "" when
// there is no such file (or no tree).
std::string bazel_runfile(const std::string& tree, const std::string& path);

}  // namespace fx

#endif  // FX_TOOLS_BAZEL_RUNFILES_H_
