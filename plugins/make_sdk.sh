#!/usr/bin/env bash
# Packs the plugin SDK: make_sdk.sh OUT.tar LIBFX.so SDK_FLAGS.txt README.md HEADER...
# OUT.tar holds fx-sdk/{include/<repo path of each header>, lib/libfx.so,
# lib/pkgconfig/fx.pc, README.md}. SDK_FLAGS.txt gives libtorch's compiler flags
# (line 1) and linker flags (line 2) for the pkg-config file.
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
Cflags: -std=c++17 -fPIC -I\${includedir} ${torch_cflags}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lfx ${torch_libs} -labsl_statusor -labsl_status -labsl_strings -labsl_str_format_internal -labsl_raw_hash_set -labsl_hash -labsl_city -labsl_low_level_hash -labsl_synchronization -labsl_throw_delegate
PC
chmod -R u+w "$sdk"
tar -C "$stage" -cf "$out" fx-sdk
