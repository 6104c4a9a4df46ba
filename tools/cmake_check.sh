#!/usr/bin/env bash
# Builds FX for C++ with CMake (CMakeLists.txt: libfx, the in-tree plugins,
# fxrun), runs the README's main job with the fxrun it built, and installs it,
# so that the CMake build cannot rot. CI runs it (.ci/run); so can anyone:
#
#   tools/cmake_check.sh [BUILD_DIR]       # default: a temporary directory
#
# Compiles through ccache when it is installed, with its cache outside the
# clone (CCACHE_DIR, default ~/.cache/fx-cpp-ccache), so that a warm machine
# rebuilds in about a minute. Prints the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-$(mktemp -d "${TMPDIR:-/tmp}/fx-cmake.XXXXXX")}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/fx-cmake-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/fx-cpp-ccache}
  # The checkout's path is in no object: clones elsewhere share the cache.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)

timed() {  # timed NAME COMMAND...
  local start=$SECONDS
  "${@:2}"
  echo "cmake_check: $1 took $((SECONDS - start)) s"
}

timed configure cmake -S . -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release
timed build cmake --build "$build"
[ -z "${launcher[*]}" ] || ccache --show-stats | grep -E 'hit|miss' | head -3

# The README's main job: ResNet-18 traced, each node with its module.
out=$("$build/bin/fxrun")
nodes=$(printf '%s\n' "$out" | grep -cE '^(placeholder|call_module|call_function|call_method|get_attr|output) {2,}[A-Za-z_]')
if [ "$nodes" -ne 71 ] || ! grep -qE '^call_module +layer1_0_conv1 +layer1\.0\.conv1 .* layer1\.0\.conv1$' <<< "$out"; then
  printf '%s\n' "$out" | head -20
  echo "cmake_check: the CMake fxrun's main job did not print ResNet-18's 71 nodes with their module paths" >&2
  exit 1
fi
echo "cmake_check: the main job printed ResNet-18's $nodes nodes"

timed install cmake --install "$build" --prefix "$prefix" > /dev/null
# The installed fxrun, run from elsewhere, finds its plugins.
grep -q '^  fold_bn ' <<< "$(cd / && "$prefix/bin/fxrun" --list-plugins)" ||
  { echo "cmake_check: the installed fxrun does not find its in-tree plugins" >&2; exit 1; }
echo "cmake_check: ok ($build)"
