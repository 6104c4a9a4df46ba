#!/usr/bin/env bash
# Builds FX for C++ with CMake (CMakeLists.txt: libfx, the in-tree plugins,
# fxrun), runs the README's main job with the fxrun it built, installs it and
# builds examples/embed_model against the installation's CMake package, so
# that the CMake build cannot rot. CI runs it (.ci/run); so can anyone:
#
#   tools/cmake_check.sh [BUILD_DIR]       # default: a temporary one in _build/
#
# Compiles through ccache when it is installed, with its cache outside the
# clone (CCACHE_DIR, default ~/.cache/fx-cpp-ccache), so that a warm machine
# rebuilds in about a minute. Prints the time each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d "${TMPDIR:-/tmp}/fx-cmake-install.XXXXXX")
if [ $# -ge 1 ]; then
  build=$1
  trap 'rm -rf "$prefix"' EXIT
else  # a build directory of its own under _build/, removed at the end
  # (Inside the checkout, so that ccache sees the same relative paths, the
  # generated headers' included, from every clone and run: under /tmp each
  # run's directory had another name, in the compiler's -I and line markers,
  # and no object was ever found in the cache.)
  mkdir -p _build
  build=$(mktemp -d "$PWD/_build/cmake-check.XXXXXX")
  trap 'rm -rf "$prefix" "$build"' EXIT
fi

launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/fx-cpp-ccache}
  # The checkout's path is in no object: clones elsewhere share the cache.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)

timed() {  # timed NAME COMMAND...: the command's output in the log only when it fails
  local start=$SECONDS log
  log=$(mktemp)
  "${@:2}" > "$log" 2>&1 || { cat "$log"; rm -f "$log"; echo "cmake_check: $1 failed" >&2; exit 1; }
  rm -f "$log"
  echo "cmake_check: $1 took $((SECONDS - start)) s"
}

timed configure cmake -S . -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release
timed build cmake --build "$build"
# ccache's hits and misses (its wording differs between versions: no grep
# here may fail the check).
[ -z "${launcher[*]}" ] || sed -n '/^ *\(Hits\|Misses\|cache hit\|cache miss\)/p' <<< "$(ccache --show-stats)"

# The README's main job: ResNet-18 traced, each node with its module.
out=$("$build/bin/fxrun")
nodes=$(printf '%s\n' "$out" | grep -cE '^(placeholder|call_module|call_function|call_method|get_attr|output) {2,}[A-Za-z_]')
if [ "$nodes" -ne 71 ] || ! grep -qE '^call_module +layer1_0_conv1 +layer1\.0\.conv1 .* layer1\.0\.conv1$' <<< "$out"; then
  printf '%s\n' "$out" | head -20
  echo "cmake_check: the CMake fxrun's main job did not print ResNet-18's 71 nodes with their module paths" >&2
  exit 1
fi
echo "cmake_check: the main job printed ResNet-18's $nodes nodes"

timed install cmake --install "$build" --prefix "$prefix"
# The installed fxrun, run from elsewhere, finds its plugins.
grep -q '^  fold_bn ' <<< "$(cd / && "$prefix/bin/fxrun" --list-plugins)" ||
  { echo "cmake_check: the installed fxrun does not find its in-tree plugins" >&2; exit 1; }
# A program built against the installation with its CMake package runs a
# torch.export program.
timed consumer cmake -S "$prefix/share/fx/examples/embed_model" -B "$prefix/embed_model" \
  "${generator[@]}" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
timed consumer-build cmake --build "$prefix/embed_model"
grep -q '^output 0: float\[1, 8\]' <<< "$("$prefix/embed_model/embed_model" \
    tests/exported_programs/torch2.14/conv_net.pt2 "$prefix/conv_net_folded.pt2")" ||
  { echo "cmake_check: examples/embed_model, built against the installation, did not run" >&2; exit 1; }
echo "cmake_check: ok"
