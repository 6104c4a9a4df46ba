#!/usr/bin/env bash
# Fetches the Debian packages tools/gpu_check.sh carries to a GPU machine that
# has no network (docs/gpu.md): Abseil, libzip, nlohmann-json and GoogleTest,
# Debian 12's builds, whose libraries need nothing newer than glibc 2.36 and
# GCC 12's libstdc++ (an Ubuntu 24.04 image has both). The libraries libzip
# links (zlib, bzip2, xz, zstd, GnuTLS, Nettle) are taken from the machine.
#
#   tools/gpu_check/fetch_packages.sh [DIR]     # default: .gpu/debs in the checkout
#
# Needs apt with Debian 12 (bookworm) in its sources: the host, or
# `tools/platform.sh bookworm tools/gpu_check/fetch_packages.sh`.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.gpu/debs}
packages=(libabsl-dev libabsl20220623 libzip-dev libzip4 nlohmann-json3-dev libgtest-dev libgmock-dev)
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] ||
  { echo "fetch_packages.sh: this is $PRETTY_NAME; the packages carried are Debian 12's (run it there)" >&2; exit 1; }
mkdir -p "$dir"
rm -f "$dir"/*.deb
# (apt's sandbox user may not write into the checkout: download as this user.)
(cd "$dir" && apt-get -o APT::Sandbox::User=root download "${packages[@]}")
echo "fetch_packages.sh: $(ls "$dir"/*.deb | wc -l) packages, $(du -sh "$dir" | cut -f1), in $dir"
