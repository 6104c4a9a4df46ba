#!/usr/bin/env bash
# Describes the libtorch installed under HOME, in any of the layouts users have:
#
#   Debian (libtorch-dev)      HOME=/usr: include/, lib/<multiarch>/, lib/<multiarch>/cmake/Torch
#   the official libtorch zip  HOME=.../libtorch: include/, lib/, share/cmake/Torch
#   a pip wheel's torch/       HOME=.../site-packages/torch: include/, lib/, share/cmake/Torch
#                              (HOME=.../site-packages is taken to mean its torch/)
#
#   find_libtorch.sh HOME
#
# Prints KEY=VALUE lines, exit 0:
#   HOME        the directory described (site-packages resolved to its torch/)
#   INCLUDE     the directory holding ATen/, c10/, torch/
#   LIBDIR      the directory holding libtorch.so
#   SYSTEM      1 when LIBDIR is one the linker searches anyway (no -L, no rpath)
#   VERSION     libtorch's version, from torch/version.h ("unknown" when it has none)
#   CUDA        1 when it is a CUDA build (libtorch_cuda.so beside libtorch.so)
#   CXX_STANDARD the C++ standard its headers require (ATen/ATen.h says): 14, 17, 20
#   CXX11_ABI   the libstdc++ ABI it was built with: 1 (C++11 ABI) or 0 (pre-C++11)
#   ABI_SOURCE  where CXX11_ABI was read: TorchConfig.cmake, or the symbols of libc10.so
#   GLOO        1 when its c10d has the Gloo backend (ProcessGroupGloo in libtorch_cpu.so)
#   NCCL        1 when its c10d has the NCCL backend (ProcessGroupNCCL in libtorch_cuda.so)
# On a directory that is no libtorch, prints what is missing and how to fix it on
# standard error and exits 1. Used by libtorch.bzl; tested by find_libtorch_test.sh.
set -euo pipefail

die() { printf '%s\n' "$*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: find_libtorch.sh HOME"
home=${1%/}
[ -n "$home" ] || home=/
[ -d "$home" ] || die "FX_LIBTORCH_HOME=$1 is not a directory."
if [ ! -e "$home/include/torch" ] && [ -e "$home/torch/include/torch" ]; then
  home=$home/torch  # a site-packages directory: its torch/ package
fi

include=$home/include
[ -f "$include/torch/csrc/api/include/torch/torch.h" ] ||
  die "FX_LIBTORCH_HOME=$1 does not look like a libtorch: $include/torch/csrc/api/include/torch/torch.h is missing. Point it at the directory that contains include/ and lib/ (the unpacked libtorch zip, a pip wheel's torch/ directory, or /usr for Debian's libtorch-dev)."

libdir=
for candidate in "$home/lib" "$home/lib64" "$home"/lib/*-linux-gnu; do
  if [ -e "$candidate/libtorch.so" ]; then libdir=$candidate; break; fi
done
[ -n "$libdir" ] ||
  die "FX_LIBTORCH_HOME=$1 has headers but no libtorch.so under lib/, lib64/ or lib/<multiarch>/. Install the libraries too (Debian: libtorch-dev), or point it at a complete libtorch."

system=0
case "$libdir" in
  /usr/lib|/usr/lib64|/lib|/lib64|/usr/lib/*-linux-gnu|/lib/*-linux-gnu) system=1 ;;
esac

# torch/version.h (from 2.9 on it includes torch/headeronly/version.h).
version=unknown
version_h=$include/torch/headeronly/version.h
[ -f "$version_h" ] || version_h=$include/torch/csrc/api/include/torch/version.h
if [ -f "$version_h" ]; then
  part() { sed -n "s/^#define TORCH_VERSION_$1 \([0-9]*\).*/\1/p" "$version_h" | head -n 1; }
  major=$(part MAJOR) minor=$(part MINOR) patch=$(part PATCH)
  [ -z "$major" ] || version=$major.$minor.$patch
fi

cuda=0
[ ! -e "$libdir/libtorch_cuda.so" ] || cuda=1

# ATen/ATen.h refuses older compilers: "#error C++20 or later compatible
# compiler is required to use ATen." (C++14 in 1.13, C++17 in 2.x, C++20 from 2.10).
cxx_standard=$(sed -n 's/^#error C++\([0-9][0-9]\) or later compatible compiler is required.*/\1/p' \
  "$include/ATen/ATen.h" 2>/dev/null | head -n 1)
[ -n "$cxx_standard" ] || cxx_standard=17

# The ABI: TorchConfig.cmake states it (releases before 2.8 do); otherwise the
# library's own symbols tell: a C++11-ABI build names std::__cxx11 types.
abi= abi_source=
for config in "$home/share/cmake/Torch/TorchConfig.cmake" "$libdir/cmake/Torch/TorchConfig.cmake"; do
  if [ -f "$config" ]; then
    abi=$(sed -n 's/.*-D_GLIBCXX_USE_CXX11_ABI=\([01]\).*/\1/p' "$config" | head -n 1)
    if [ -n "$abi" ]; then abi_source=TorchConfig.cmake; break; fi
  fi
done
if [ -z "$abi" ]; then
  c10=$libdir/libc10.so
  [ -e "$c10" ] || die "FX_LIBTORCH_HOME=$1: $c10 is missing; a libtorch has libc10.so beside libtorch.so."
  if grep -q -a '__cxx11' "$c10"; then abi=1; else abi=0; fi
  abi_source="the symbols of libc10.so"
fi

# Which c10d backends it was built with: its headers do not say in every
# release (caffe2/core/macros.h lists USE_GLOO from 2.9 on), its libraries do.
gloo=0 nccl=0
! grep -q -a 'ProcessGroupGloo' "$libdir/libtorch_cpu.so" 2>/dev/null || gloo=1
! grep -q -a 'ProcessGroupNCCL' "$libdir/libtorch_cuda.so" 2>/dev/null || nccl=1

printf 'HOME=%s\nINCLUDE=%s\nLIBDIR=%s\nSYSTEM=%s\nVERSION=%s\nCUDA=%s\nCXX_STANDARD=%s\nCXX11_ABI=%s\nABI_SOURCE=%s\nGLOO=%s\nNCCL=%s\n' \
  "$home" "$include" "$libdir" "$system" "$version" "$cuda" "$cxx_standard" "$abi" "$abi_source" \
  "$gloo" "$nccl"
