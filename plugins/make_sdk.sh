#!/usr/bin/env bash
# Packs the plugin SDK: make_sdk.sh OUT.tar LIBFX.so SDK_FLAGS.txt README.md HEADER...
# OUT.tar holds fx-sdk/{include/<repo path of each header>, lib/libfx.so,
# lib/pkgconfig/fx.pc, README.md}. SDK_FLAGS.txt gives libtorch's compiler flags
# (line 1: its C++ standard and include directories) and linker flags (line 2)
# for the pkg-config file. Abseil comes in through its own pkg-config modules
# (Requires), which name the libraries each Abseil release is split into.
set -euo pipefail
out=$1 lib=$2 flags=$3 readme=$4
shift 4
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
sdk=$stage/fx-sdk
mkdir -p "$sdk/include" "$sdk/lib/pkgconfig"
for header in "$@"; do
  mkdir -p "$sdk/include/$(dirname "$header")"
  cp "$header" "$sdk/include/$header"
done
cp "$lib" "$sdk/lib/libfx.so"
cp "$readme" "$sdk/README.md"
torch_cflags=$(sed -n 1p "$flags")
torch_libs=$(sed -n 2p "$flags")
cat > "$sdk/lib/pkgconfig/fx.pc" <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: fx
Description: FX for C++ plugin SDK: headers and libfx.so (core IR, tracer, runtime, pass manager)
Version: 0.1.0
Requires: absl_statusor absl_strings absl_str_format absl_raw_hash_set absl_hash absl_synchronization
Cflags: -fPIC -I\${includedir} ${torch_cflags}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lfx ${torch_libs}
PC
chmod -R u+w "$sdk"
tar -C "$stage" -cf "$out" fx-sdk
