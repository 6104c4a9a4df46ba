#!/usr/bin/env bash
# Writes the files that tell other builds how to use an installed FX for
# C++: PREFIX/lib/cmake/fx/fxConfig.cmake and fxConfigVersion.cmake (CMake's
# find_package(fx CONFIG)) and PREFIX/lib/pkgconfig/fx.pc (pkg-config), from
# the templates beside this script. The release's Bazel target and the CMake
# build's install step both run it.
#
#   package_files.sh SOURCE_ROOT PREFIX VERSION LIBTORCH_INFO
#
# LIBTORCH_INFO is find_libtorch.sh's output for the libtorch the build used
# (KEY=VALUE lines: VERSION, INCLUDE, LIBDIR, SYSTEM, CXX_STANDARD, CUDA).
set -euo pipefail
src=$1 prefix=$2 version=$3 info=$4
here="$src/tools/release"

value() { sed -n "s/^$1=//p" "$info" | head -1; }
libtorch_version=$(value VERSION)
include=$(value INCLUDE) libdir=$(value LIBDIR) system=$(value SYSTEM) cuda=$(value CUDA)
standard=$(value CXX_STANDARD)
[ "${standard:-14}" -gt 17 ] || standard=17
IFS=. read -r major minor patch <<< "$version"

cflags="-std=c++$standard -isystem $include/torch/csrc/api/include"
[ "$include" = /usr/include ] || cflags="-isystem $include $cflags"
libs="-ltorch -ltorch_cpu -lc10"
[ "$cuda" != 1 ] || libs="-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed $libs"
[ "$system" = 1 ] || libs="-L$libdir -Wl,-rpath,$libdir $libs"

fill() {  # fill TEMPLATE OUTPUT
  mkdir -p "$(dirname "$2")"
  sed -e "s|@FX_VERSION@|$version|g" -e "s|@FX_VERSION_MAJOR@|$major|g" \
      -e "s|@FX_VERSION_MINOR@|$minor|g" -e "s|@FX_SOVERSION@|$major.$minor|g" \
      -e "s|@FX_CXX_STANDARD@|$standard|g" -e "s|@LIBTORCH_VERSION@|$libtorch_version|g" \
      -e "s|@TORCH_CFLAGS@|$cflags|g" -e "s|@TORCH_LIBS@|$libs|g" "$1" > "$2"
}
fill "$here/fxConfig.cmake.in" "$prefix/lib/cmake/fx/fxConfig.cmake"
fill "$here/fxConfigVersion.cmake.in" "$prefix/lib/cmake/fx/fxConfigVersion.cmake"
fill "$here/fx.pc.in" "$prefix/lib/pkgconfig/fx.pc"
