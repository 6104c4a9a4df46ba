#!/usr/bin/env bash
# Builds the example plugin from the SDK with the system compiler (outside
# Bazel's C++ rules), loads it into fxrun and checks that its pass and its
# tracer extension ran.
set -euo pipefail
sdk_tar=$(realpath "$1") fxrun=$(realpath "$2") model=$(realpath "$3") example=$(dirname "$(realpath "$4")")

work=$TEST_TMPDIR/out_of_tree
rm -rf "$work" && mkdir -p "$work"
tar -C "$work" -xf "$sdk_tar"
cp "$example/example_plugin.cc" "$example/Makefile" "$work/"
make -s -C "$work" SDK="$work/fx-sdk" CXXFLAGS=-O0

# The plugin links the SDK's libfx.so only: no private copy of the core.
readelf -d "$work/libexample_plugin.so" | grep -q 'NEEDED.*\[libfx.so\]'
if nm -D --defined-only "$work/libexample_plugin.so" | grep -q 'Registry6global'; then
  echo "the plugin carries its own registry"; exit 1
fi

"$fxrun" --plugin="$work/libexample_plugin.so" --list-plugins > "$work/list.txt"
grep -q "out_of_tree_example 1.0" "$work/list.txt"
grep -q "remove_assertions  erases torch._assert nodes" "$work/list.txt"

"$fxrun" --plugin="$work/libexample_plugin.so" --model="$model" \
  --tracer=module_path,count_ops --emit=json > "$work/before.json"
"$fxrun" --plugin="$work/libexample_plugin.so" --model="$model" \
  --tracer=module_path,count_ops --passes=remove_assertions,dce --emit=json > "$work/after.json"

/usr/bin/python3 - "$work/before.json" "$work/after.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:])
asserts = lambda g: [n for n in g["nodes"] if n["target"] == "torch._assert"]
assert len(asserts(before)) == 1, asserts(before)
assert not asserts(after), asserts(after)
assert after["meta"]["assertions_removed"] == 1, after["meta"]
assert after["meta"]["op_counts"]["torch._assert"] == 1, after["meta"]["op_counts"]
assert all("module_path" in n["meta"] for n in after["nodes"][:-1])
print("PASS")
PY
