#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages this repository builds and tests
# with, and only those that are missing. Idempotent; quiet and fast when all are
# present. Run it before the first build:
#
#   tools/bootstrap.sh && bazel test //...
#
# Exit status: 0 when everything is present afterwards, 1 when it cannot install
# (not root and no password-less sudo, no apt-get, apt failed).
set -euo pipefail

# What each package is for:
#   bazel-bootstrap                Bazel 4 (the build)
#   bazel-rules-java, bazel-platforms, bazel-skylib
#                                  local rule repositories the WORKSPACE points at
#   g++, pkg-config                compilers; pkg-config for the out-of-tree plugin SDK
#   libtorch-dev                   libtorch 1.13 (tensors, TorchScript, dispatch)
#   libabsl-dev                    Abseil (flags, status, strings, hash containers)
#   libgtest-dev, libgmock-dev     GoogleTest / GoogleMock
#   libbenchmark-dev               Google Benchmark
#   nlohmann-json3-dev             JSON (fxrun --emit=json, torch.export programs)
#   libzip-dev                     zip archives (torch.export's .pt2 files)
#   libgloo-dev                    Gloo's headers, which c10d's ProcessGroupGloo.hpp includes
#                                  (distributed/: pipelines over several processes)
#   graphviz                       the dot program: fxrun --emit=svg|png renders with it
#   patchelf                       the release archive gives Bazel's binaries its run paths
#   cmake, ninja-build             the CMake build (CMakeLists.txt), which CI builds too
#   ccache                         keeps CI's CMake stage cheap on a warm machine
#                                  (tools/cmake_check.sh; its cache is outside the clone)
#   python3-torch, python3-torchvision
#                                  fixture generators (TorchScript models at build time)
#   libopenblas0-openmp            the BLAS libtorch calls (Debian's libtorch takes the system's
#                                  libblas.so.3; without it that is the reference BLAS, with
#                                  which matrix products and 1-thread 1x1 convolutions run
#                                  6x slower); the OpenMP build follows libtorch's thread count
PACKAGES=(
  bazel-bootstrap
  bazel-rules-java
  bazel-platforms
  bazel-skylib
  g++
  pkg-config
  libtorch-dev
  libabsl-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  nlohmann-json3-dev
  libzip-dev
  libgloo-dev
  graphviz
  patchelf
  cmake
  ninja-build
  ccache
  python3-torch
  python3-torchvision
  libopenblas0-openmp
)

say() { printf 'bootstrap: %s\n' "$*"; }
die() { printf 'bootstrap: error: %s\n' "$*" >&2; exit 1; }
# Sets sudo to what runs a command as root (nothing when root already,
# password-less sudo otherwise); stops with MESSAGE when neither.
as_root_or_die() {
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    die "$1"
  fi
}

command -v dpkg-query >/dev/null 2>&1 ||
  die "dpkg-query not found: this script installs Debian packages and needs a Debian-based system"

# The trixie-cuda lane (tools/platform.sh sets FX_BOOTSTRAP_VARIANT=cuda):
# tools/bootstrap_cuda.sh installs the CUDA builds of libtorch, its Python and
# Gloo, which replace three packages above, with CUDA's headers and a stand-in
# for cuDNN. No other machine sets the variant.
case "${FX_BOOTSTRAP_VARIANT:-}" in
  "") ;;
  cuda)
    "$(dirname "$0")/bootstrap_cuda.sh" || exit 1
    kept=()
    for pkg in "${PACKAGES[@]}"; do
      case "$pkg" in libtorch-dev|python3-torch|libgloo-dev) ;; *) kept+=("$pkg") ;; esac
    done
    PACKAGES=("${kept[@]}") ;;
  *) die "unknown FX_BOOTSTRAP_VARIANT=$FX_BOOTSTRAP_VARIANT: the one variant is cuda (tools/platform.sh trixie-cuda)" ;;
esac

# Shared with tools/platform.sh (see the install below).
APT_LOCK=/run/lock/fx-cpp-apt.lock
[ -d /run/lock ] || APT_LOCK=/tmp/fx-cpp-apt.lock

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done

if [ "${#missing[@]}" -eq 0 ]; then
  say "all ${#PACKAGES[@]} packages present"
else
  say "missing: ${missing[*]}"
  command -v apt-get >/dev/null 2>&1 ||
    die "apt-get not found; install these packages by other means: ${missing[*]}"
  as_root_or_die "installing packages needs root; run as root, or: sudo apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # One apt at a time: on a fresh CI machine tools/platform.sh installs
  # debootstrap while this runs, and apt-get fails at once on a held lock. The
  # two take this lock; DPkg::Lock::Timeout waits for anyone else's apt.
  apt_get=("${sudo[@]}" flock "$APT_LOCK" apt-get -o DPkg::Lock::Timeout=600)
  say "apt-get update"
  "${apt_get[@]}" update -qq || die "apt-get update failed (is the Debian archive reachable?)"
  say "apt-get install ${missing[*]}"
  "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    die "apt-get install failed for: ${missing[*]}"
  say "installed ${#missing[@]} package(s)"
fi

# The fixture generators run Debian's interpreter, which must see torch.
/usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null ||
  die "/usr/bin/python3 cannot import torch and torchvision (packages python3-torch, python3-torchvision)"

# Options this machine needs, in a file the repository's .bazelrc try-imports
# after its own lines:
# - Bazel 7 (Debian unstable) resolves Bzlmod modules from the internet by
#   default; --noenable_bzlmod makes it build from the WORKSPACE, as Bazel 4
#   (Debian 12 and 13) does, but Bazel 4 rejects that flag, so it cannot live in
#   .bazelrc itself.
# - libtorch 2.10 and later (Debian unstable) need C++20: --config=cxx20.
MACHINE_RC=/etc/fx-cpp/bazel.bazelrc
bazel_major=$(bazel --version 2>/dev/null | sed -n 's/^bazel \([0-9][0-9]*\)\..*/\1/p')
torch_cxx=$(bash "$(dirname "$0")/../third_party/libtorch/find_libtorch.sh" /usr 2>/dev/null |
  sed -n 's/^CXX_STANDARD=//p')
want=
[ "${bazel_major:-0}" -lt 7 ] || want+="common --noenable_bzlmod"$'\n'
[ "${torch_cxx:-17}" -le 17 ] || want+="build --config=cxx$torch_cxx"$'\n'
[ -z "$want" ] || want="# Written by tools/bootstrap.sh (Bazel ${bazel_major:-4}, libtorch headers C++${torch_cxx:-17})."$'\n'"$want"
want=${want%$'\n'}
have=$(cat "$MACHINE_RC" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
  as_root_or_die "$MACHINE_RC must be updated for this machine's Bazel and libtorch; run tools/bootstrap.sh as root once"
  if [ -n "$want" ]; then
    "${sudo[@]}" mkdir -p "$(dirname "$MACHINE_RC")"
    printf '%s\n' "$want" | "${sudo[@]}" tee "$MACHINE_RC" >/dev/null
    say "wrote $MACHINE_RC: ${want#*$'\n'}"
  else
    "${sudo[@]}" rm -f "$MACHINE_RC"
    say "removed $MACHINE_RC (this Bazel and libtorch need no options)"
  fi
fi
