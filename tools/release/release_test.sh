#!/usr/bin/env bash
# A release as its users meet it: unpacked into an empty directory, with no
# Bazel and no checkout beside it.
#
#   release_test.sh RELEASE.tar.gz PROGRAM.pt2 ASSERTING_MODEL.pt
#
#   * bin/fxrun, run from another directory, reads PROGRAM.pt2, runs
#     fold_bn,dce with its in-tree plugins and the result; found on PATH in a
#     directory holding a planted fxrun.runfiles, it reads nothing of it;
#   * share/fx/examples/out_of_tree_plugin builds with CMake (find_package(fx),
#     fx_add_plugin) and with make and pkg-config; fxrun loads it by --plugin
#     and from FX_PLUGIN_PATH, and its pass and tracer extension run on
#     ASSERTING_MODEL.pt (a TorchScript module with one torch._assert);
#   * examples/embed_model and examples/custom_pass build with CMake and run
#     PROGRAM.pt2; what embed_model saved loads back into fxrun.
#
# Bazel runs it as //tools/release:release_test; by hand (a fresh Debian root
# with only libtorch-dev, libabsl-dev, nlohmann-json3-dev, libzip-dev, cmake,
# g++ and pkg-config) it needs only those. Prints each step; exits 1 at the
# first that fails.
set -euo pipefail
release=$(realpath "$1") program=$(realpath "$2") asserting=$(realpath "$3")
work=$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/fx-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf '\n== release_test: %s\n' "$*"; }
fail() { echo "release_test: FAILED: $*" >&2; exit 1; }

step "unpack $(basename "$release")"
mkdir -p "$work/install" "$work/elsewhere"
tar -C "$work/install" -xzf "$release"
root=$(echo "$work"/install/fx-*)
examples=$root/share/fx/examples
[ -x "$root/bin/fxrun" ] || fail "no bin/fxrun in the release"
for f in lib/cmake/fx/fxConfig.cmake lib/cmake/fx/fxConfigVersion.cmake lib/pkgconfig/fx.pc \
         include/fx/fx.h include/fx/plugins/fx_plugin.h include/fx/version.h \
         include/fx/torchscript/torchscript_file.h LICENSE \
         share/fx/examples/embed_model/CMakeLists.txt share/fx/examples/out_of_tree_plugin/Makefile; do
  [ -e "$root/$f" ] || fail "the release has no $f"
done
cd "$work/elsewhere"

step "bin/fxrun --model=$(basename "$program") --passes=fold_bn,dce --run (from $PWD)"
"$root/bin/fxrun" --model="$program" --passes=fold_bn,dce --run > fxrun.txt
cat fxrun.txt | tail -4
grep -q '^output 0: ' fxrun.txt || fail "fxrun printed no output line"
plugins=$("$root/bin/fxrun" --list-plugins)
grep -q "$root/lib/fx/plugins/libfx_fold_bn.so" <<< "$plugins" ||
  fail "fxrun's fold_bn is not the release's lib/fx/plugins/libfx_fold_bn.so"

# A release never reads Bazel's runfiles: not a fxrun.runfiles in the
# working directory (any clone of the repository has one) when fxrun is found
# on PATH, nor one RUNFILES_DIR names. The planted manifest names a library
# that does not exist, and the planted example model is not a model: reading
# either fails the run.
step "bin/fxrun from PATH in a directory holding a planted fxrun.runfiles"
mkdir -p planted/fxrun.runfiles/fx_cpp/tools/models
printf 'planted/libplanted_plugin.so\n' > planted/fxrun.runfiles/fx_cpp/tools/fxrun_plugins.txt
printf 'not a model\n' > planted/fxrun.runfiles/fx_cpp/tools/models/resnet18.pt
for runfiles_dir in "" "$PWD/planted/fxrun.runfiles"; do
  (cd planted && PATH="$root/bin:$PATH" RUNFILES_DIR="$runfiles_dir" fxrun --list-plugins) > planted.txt 2>&1 ||
    { cat planted.txt; fail "fxrun --list-plugins failed beside a planted fxrun.runfiles"; }
  ! grep -q planted planted.txt || { cat planted.txt; fail "fxrun read the planted fxrun.runfiles"; }
  (cd planted && PATH="$root/bin:$PATH" RUNFILES_DIR="$runfiles_dir" fxrun) > planted.txt 2>&1 &&
    fail "fxrun ran a model with no --model and no example of its own"
  ! grep -qi 'planted\|runfiles\|not a model' planted.txt || { cat planted.txt; fail "fxrun read the planted model"; }
done
echo "neither the planted manifest nor the planted model was read"

cmake_build() {  # cmake_build SOURCE_DIR BUILD_DIR
  cmake -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Release > "$2.configure.log" 2>&1 ||
    { cat "$2.configure.log"; fail "cmake could not configure $(basename "$1")"; }
  cmake --build "$2" > "$2.build.log" 2>&1 || { cat "$2.build.log"; fail "cmake could not build $(basename "$1")"; }
}

# The plugin: its library is linked against the release's libfx (one
# registry per process) and carries no copy of it.
check_plugin() {  # check_plugin LIBRARY
  grep -q 'NEEDED.*\[libfx\.so\.[0-9]*\.[0-9]*\]' <<< "$(readelf -d "$1")" ||
    fail "$1 does not link the release's libfx.so.MAJOR.MINOR"
  ! grep -q 'Registry6global' <<< "$(nm -D --defined-only "$1")" || fail "$1 carries its own registry"
  listed=$("$root/bin/fxrun" --plugin="$1" --list-plugins)
  grep -q 'out_of_tree_example 1.0' <<< "$listed" || fail "fxrun does not list $1's plugin"
  grep -q 'remove_assertions' <<< "$listed" || fail "fxrun does not list remove_assertions"
}

step "examples/out_of_tree_plugin with CMake (find_package(fx), fx_add_plugin)"
cmake_build "$examples/out_of_tree_plugin" "$work/plugin_cmake"
check_plugin "$work/plugin_cmake/libexample_plugin.so"
"$root/bin/fxrun" --plugin="$work/plugin_cmake/libexample_plugin.so" --model="$asserting" \
  --tracer=module_path,count_ops --emit=json > before.json
"$root/bin/fxrun" --plugin="$work/plugin_cmake/libexample_plugin.so" --model="$asserting" \
  --tracer=module_path,count_ops --passes=remove_assertions,dce --emit=json > after.json
grep -q '"torch._assert"' before.json || fail "the model's trace has no torch._assert"
! grep -q '"target": *"torch._assert"' after.json || fail "remove_assertions left a torch._assert"
grep -qE '"assertions_removed": *1' after.json || fail "remove_assertions did not record what it removed"
grep -qE '"op_counts": *\{' after.json || fail "count_ops recorded no op_counts"
echo "the plugin's pass and tracer extension ran"

step "examples/out_of_tree_plugin with make and pkg-config"
cp -r "$examples/out_of_tree_plugin" "$work/plugin_make"
make -s -C "$work/plugin_make" FX_PREFIX="$root" > "$work/plugin_make.log" 2>&1 ||
  { cat "$work/plugin_make.log"; fail "make could not build the plugin"; }
check_plugin "$work/plugin_make/libexample_plugin.so"
grep -q 'out_of_tree_example 1.0' <<< "$(FX_PLUGIN_PATH="$work/plugin_make" "$root/bin/fxrun" --list-plugins)" ||
  fail "fxrun does not load the plugin from FX_PLUGIN_PATH"
echo "built, and loaded by --plugin and from FX_PLUGIN_PATH"

step "find_package(fx) with versions and ranges"
version=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")$/\1/p' "$root/lib/cmake/fx/fxConfigVersion.cmake")
[ -n "$version" ] || fail "fxConfigVersion.cmake names no version"
finds() {  # finds REQUEST: whether find_package(fx REQUEST) takes this release
  mkdir -p "$work/find"
  printf 'cmake_minimum_required(VERSION 3.19)\nproject(find CXX)\nfind_package(fx %s REQUIRED)\n' "$1" \
    > "$work/find/CMakeLists.txt"
  rm -rf "$work/find/build"
  cmake -S "$work/find" -B "$work/find/build" -DCMAKE_PREFIX_PATH="$root" > "$work/find.log" 2>&1
}
major=${version%%.*}
finds "$version" || { cat "$work/find.log"; fail "find_package(fx $version) refused $version"; }
finds "0.1...$((major + 1)).0" || { cat "$work/find.log"; fail "find_package(fx 0.1...$((major + 1)).0) refused $version"; }
finds "0.1...<$version" && fail "find_package(fx 0.1...<$version) took $version"
finds "$((major + 1)).0...$((major + 2)).0" && fail "find_package(fx $((major + 1)).0...$((major + 2)).0) took $version"
echo "$version is found by its own version and by the ranges holding it, not by others"

step "examples/out_of_tree_plugin with make, the release under a path with a space"
mkdir -p "$work/with space"
tar -C "$work/with space" -xzf "$release"
spaced_root=$(echo "$work/with space"/fx-*)
cp -r "$spaced_root/share/fx/examples/out_of_tree_plugin" "$work/plugin_spaced"
make -s -C "$work/plugin_spaced" FX_PREFIX="$spaced_root" > "$work/plugin_spaced.log" 2>&1 ||
  { cat "$work/plugin_spaced.log"; fail "make could not build the plugin against a prefix with a space"; }
grep -q 'out_of_tree_example 1.0' <<< "$("$spaced_root/bin/fxrun" --plugin="$work/plugin_spaced/libexample_plugin.so" --list-plugins)" ||
  fail "fxrun under a path with a space does not load the plugin built there"
echo "built and loaded"

step "examples/embed_model with CMake, run on $(basename "$program")"
cmake_build "$examples/embed_model" "$work/embed_model"
"$work/embed_model/embed_model" "$program" "$work/saved.pt2" | tee embedded.txt
grep -q '^output 0: ' embedded.txt || fail "embed_model printed no output line"
# What it saved is a program fxrun reads and runs, computing the same.
"$root/bin/fxrun" --model="$work/saved.pt2" --run > saved_run.txt
# (Only the value lines: the printed table has an "output" row too.)
grep '^output [0-9]*: ' saved_run.txt | cmp -s - embedded.txt ||
  { cat saved_run.txt; fail "the program embed_model saved computes other outputs"; }

step "examples/custom_pass with CMake, run on $(basename "$program")"
cmake_build "$examples/custom_pass" "$work/custom_pass"
"$work/custom_pass/custom_pass" "$program" > custom.txt
tail -2 custom.txt
grep -qx 'outputs unchanged' custom.txt || fail "custom_pass changed the outputs"

printf '\nrelease_test: ok\n'
