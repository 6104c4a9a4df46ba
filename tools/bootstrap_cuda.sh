#!/usr/bin/env bash
# The CUDA part of provisioning the trixie-cuda lane: Debian 13's CUDA libtorch
# on a machine with no GPU and no access to NVIDIA's servers. tools/bootstrap.sh
# runs it when FX_BOOTSTRAP_VARIANT=cuda (tools/platform.sh trixie-cuda sets
# it); nothing else does, and no other lane or machine is changed by it.
#
# Installs (contrib and non-free must be in apt's sources):
#   libtorch-cuda-dev, python3-torch-cuda   libtorch 2.6 built with CUDA 12.4, in
#                                           place of libtorch-dev / python3-torch
#   libgloo-cuda-dev                        Gloo's headers (libgloo-dev's conflict
#                                           with the CUDA Gloo libtorch needs)
#   nvidia-cuda-dev, libnccl-dev            CUDA's and NCCL's headers, which
#                                           libtorch's CUDA headers include (c10/cuda,
#                                           ProcessGroupNCCL.hpp): the CUDA code paths
#                                           compile only with them
#   nvidia-cuda-toolkit-gcc                 nvcc, with the g++ 13 it supports: the CUDA
#                                           libtorch's CMake package (TorchConfig.cmake)
#                                           enables CMake's CUDA language, so CMake builds
#                                           against it (release_test's plugin) need it
#   fx-cudnn-standin                        A STAND-IN FOR cuDNN, made here (below)
#
# cuDNN: libtorch-cuda-2.6 depends on nvidia-cudnn, which is only an installer
# that downloads cuDNN from NVIDIA, and libtorch_cuda.so needs libcudnn.so.9 to
# load at all. This script compiles tools/cuda_standin/libcudnn_standin.c (every
# function reports "cuDNN stand-in: not installed", no cuDNN code) into
# libcudnn.so.9 and installs it in a local package, fx-cudnn-standin, that
# provides nvidia-cudnn to apt. It is for compiling and testing without a GPU,
# where libtorch never calls cuDNN; on a machine with a GPU install NVIDIA's
# cuDNN instead (docs/platforms.md, "trixie-cuda").
#
# Idempotent: quiet when everything is present and the installed stand-in is the
# one built from this repository's source. Exit status 0 when done, 1 on failure.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STANDIN_SRC=$HERE/cuda_standin/libcudnn_standin.c
STANDIN_MAP=$HERE/cuda_standin/libcudnn_standin.map
CUDA_PACKAGES=(libtorch-cuda-dev python3-torch-cuda libgloo-cuda-dev nvidia-cuda-dev libnccl-dev
  nvidia-cuda-toolkit nvidia-cuda-toolkit-gcc)
STANDIN_PKG=fx-cudnn-standin

say() { printf 'bootstrap(cuda): %s\n' "$*"; }
die() { printf 'bootstrap(cuda): error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "the CUDA lane's provisioning runs as root (tools/platform.sh trixie-cuda runs it so)"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: the CUDA lane is a Debian 13 root"

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]; }
installed_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# The stand-in's package version names its source, so that a changed source is
# rebuilt and reinstalled.
standin_version=1+$(cat "$STANDIN_SRC" "$STANDIN_MAP" | sha256sum | cut -c1-12)

missing=()
for pkg in "${CUDA_PACKAGES[@]}"; do installed "$pkg" || missing+=("$pkg"); done
if [ "$(installed_version "$STANDIN_PKG")" = "$standin_version" ] && [ "${#missing[@]}" -eq 0 ]; then
  say "CUDA libtorch and the cuDNN stand-in present"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
say "apt-get update"
apt-get update -qq || die "apt-get update failed (is the Debian archive reachable?)"

if [ "$(installed_version "$STANDIN_PKG")" != "$standin_version" ]; then
  say "building the cuDNN stand-in (libcudnn.so.9 that reports cuDNN missing; tools/cuda_standin)"
  apt-get install -y -qq --no-install-recommends gcc libc6-dev binutils >/dev/null ||
    die "apt-get install gcc libc6-dev binutils failed (needed to compile the cuDNN stand-in)"
  multiarch=$(gcc -print-multiarch)
  arch=$(dpkg --print-architecture)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  pkgdir=$work/$STANDIN_PKG
  mkdir -p "$pkgdir/DEBIAN" "$pkgdir/usr/lib/$multiarch" "$pkgdir/usr/share/doc/$STANDIN_PKG"
  gcc -std=c17 -O2 -Wall -Wextra -Werror -fPIC -shared -Wl,-soname,libcudnn.so.9 \
    -Wl,--version-script="$STANDIN_MAP" -o "$pkgdir/usr/lib/$multiarch/libcudnn.so.9" "$STANDIN_SRC" ||
    die "compiling $STANDIN_SRC failed (above)"
  printf '%s\n' \
    "This package is a STAND-IN for cuDNN, made by FX for C++'s tools/bootstrap_cuda.sh" \
    "for the trixie-cuda lane (a machine with no GPU). Its libcudnn.so.9 contains no" \
    "cuDNN: every function reports \"cuDNN stand-in: not installed\". Source:" \
    "tools/cuda_standin/libcudnn_standin.c. Remove it and install NVIDIA's cuDNN 9 to" \
    "run cuDNN kernels." > "$pkgdir/usr/share/doc/$STANDIN_PKG/README"
  # Provides nvidia-cudnn at the version Debian's installer package has, which
  # libtorch-cuda-2.6 depends on (>= 9.0.0.312~); conflicts with the installer.
  cat > "$pkgdir/DEBIAN/control" <<EOF
Package: $STANDIN_PKG
Version: $standin_version
Architecture: $arch
Maintainer: FX for C++ <fx-cpp@localhost>
Section: contrib/libs
Priority: optional
Provides: nvidia-cudnn (= 9.0.0.312~cuda12), libcudnn.so.9
Conflicts: nvidia-cudnn
Description: stand-in for cuDNN 9 (no cuDNN): reports cuDNN as not installed
 A placeholder libcudnn.so.9 for building and testing against Debian's CUDA
 libtorch on a machine with no GPU (FX for C++'s trixie-cuda lane). Every
 function returns an error; cudnnGetErrorString says "cuDNN stand-in: not
 installed". It satisfies the dynamic loader and apt's dependency on
 nvidia-cudnn only. Install NVIDIA's cuDNN instead to run cuDNN kernels.
EOF
  dpkg-deb --root-owner-group --build "$pkgdir" "$work/$STANDIN_PKG.deb" >/dev/null ||
    die "dpkg-deb could not build the stand-in package"
  # Installed on its own first: once it is there, apt meets libtorch's
  # dependency on nvidia-cudnn with it instead of choosing the installer.
  apt-get install -y -qq --no-install-recommends --allow-downgrades "$work/$STANDIN_PKG.deb" >/dev/null ||
    die "installing the cuDNN stand-in package failed"
  say "installed $STANDIN_PKG $standin_version (/usr/lib/$multiarch/libcudnn.so.9)"
fi

if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]} (several GB)"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    die "apt-get install failed for: ${missing[*]} (contrib and non-free must be in apt's sources)"
fi

# libtorch_cuda.so is linked with BIND_NOW: every cuDNN symbol it imports must
# be in the stand-in, or nothing that uses libtorch loads. Name any missing.
multiarch=$(gcc -print-multiarch)
libdir=/usr/lib/$multiarch
have=$(nm -D --defined-only --without-symbol-versions "$libdir/libcudnn.so.9" | awk '{print $3}' | sort -u)
absent=()
for lib in "$libdir"/libtorch_cuda.so "$libdir"/libtorch_python.so; do
  [ -e "$lib" ] || continue
  for sym in $(nm -D --undefined-only --with-symbol-versions "$lib" | awk '$2 ~ /@libcudnn\.so\.9$/ {sub(/@.*/, "", $2); print $2}'); do
    grep -qx "$sym" <<< "$have" || absent+=("$sym ($(basename "$lib"))")
  done
done
[ "${#absent[@]}" -eq 0 ] ||
  die "the cuDNN stand-in lacks symbols this libtorch imports: ${absent[*]}; add them to $STANDIN_SRC"
say "the cuDNN stand-in defines every cuDNN symbol libtorch imports"
