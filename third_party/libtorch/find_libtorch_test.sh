#!/usr/bin/env bash
# find_libtorch.sh on the layouts users have, made here from this machine's own
# libtorch (Debian's): Debian's itself, the official zip's, a pip wheel's (by its
# torch/ and by its site-packages), a CUDA build, both C++ ABIs, and directories
# that are no libtorch.
set -euo pipefail
find_libtorch=$1
work=${TEST_TMPDIR:-$(mktemp -d)}/layouts
rm -rf "$work" && mkdir -p "$work"
failures=0

# The Debian libtorch this test runs on.
debian=$(bash "$find_libtorch" /usr)
value() { sed -n "s/^$1=//p" <<<"$2"; }
libdir=$(value LIBDIR "$debian")

expect() {  # expect NAME OUTPUT KEY=VALUE...
  local name=$1 out=$2; shift 2
  for kv in "$@"; do
    if ! grep -qxF -- "$kv" <<<"$out"; then
      echo "FAIL $name: expected $kv in:"; sed 's/^/    /' <<<"$out"; failures=$((failures + 1))
    fi
  done
}
expect_error() {  # expect_error NAME DIR TEXT
  local out rc=0
  out=$(bash "$find_libtorch" "$2" 2>&1) || rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL $1: expected exit 1 and '$3', got exit $rc: $out"; failures=$((failures + 1))
  fi
}
# A lib/ of links to the real libraries (the layout, not the bytes, is tested).
link_libs() {
  mkdir -p "$1"
  for f in "$libdir"/libtorch.so "$libdir"/libtorch_cpu.so "$libdir"/libc10.so; do ln -s "$f" "$1/"; done
}

# Debian: headers in /usr/include, libraries in the multiarch directory, ABI
# from TorchConfig.cmake; the version is the one Python's torch reports (whose
# patch level Debian's 1.13 spells 1.13.0a0).
python_version=$(/usr/bin/python3 -c 'import torch; print(".".join(torch.__version__.split(".")[:2]))')
version=$(value VERSION "$debian")
# Debian's libtorch-dev is a CPU build; the trixie-cuda lane's libtorch-cuda-dev
# a CUDA build with NCCL: Python's torch, the same release, says which.
read -r py_cuda py_nccl < <(/usr/bin/python3 -c 'import torch, torch.distributed as d
print(int(torch.version.cuda is not None), int(d.is_available() and d.is_nccl_available()))')
expect debian "$debian" HOME=/usr INCLUDE=/usr/include SYSTEM=1 "CUDA=$py_cuda" CXX11_ABI=1
# Debian builds c10d with Gloo (1.13, 2.6, 2.14), and NCCL only with CUDA.
expect debian-c10d "$debian" GLOO=1 "NCCL=$py_nccl"
# TorchConfig.cmake states the ABI up to 2.7; from 2.8 on (C++11 ABI only) it
# does not, and the symbols tell.
case "$version" in 1.*|2.[0-7].*) abi_source=TorchConfig.cmake ;; *) abi_source="the symbols of libc10.so" ;; esac
expect debian-abi "$debian" "ABI_SOURCE=$abi_source"
case "$version" in "$python_version".*) ;; *) echo "FAIL debian: VERSION=$version, Python's torch is $python_version"; failures=$((failures + 1)) ;; esac
case "$libdir" in /usr/lib/*-linux-gnu) ;; *) echo "FAIL debian: LIBDIR=$libdir"; failures=$((failures + 1)) ;; esac
# The C++ standard its headers demand: 14 in 1.x, 17 in 2.0 to 2.9, 20 from 2.10.
case "$version" in 1.*) cxx=14 ;; 2.[0-9].*) cxx=17 ;; *) cxx=20 ;; esac
expect debian-cxx "$debian" "CXX_STANDARD=$cxx"

# The official zip: include/, lib/, share/cmake/Torch; this one pre-C++11.
zip=$work/libtorch
mkdir -p "$zip/share/cmake/Torch"
ln -s /usr/include "$zip/include"
link_libs "$zip/lib"
printf 'if(CMAKE_SYSTEM_NAME STREQUAL "Linux")\n  set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=0")\nendif()\n' \
  > "$zip/share/cmake/Torch/TorchConfig.cmake"
expect zip "$(bash "$find_libtorch" "$zip/")" "HOME=$zip" "INCLUDE=$zip/include" "LIBDIR=$zip/lib" \
  SYSTEM=0 CUDA=0 CXX11_ABI=0 ABI_SOURCE=TorchConfig.cmake "VERSION=$version"

# A CUDA build of the same: libtorch_cuda.so beside libtorch.so.
touch "$zip/lib/libtorch_cuda.so"
expect zip-cuda "$(bash "$find_libtorch" "$zip")" CUDA=1

# A pip wheel's torch/ without TorchConfig.cmake: the ABI read from libc10.so's
# symbols; named by its site-packages directory too.
wheel=$work/venv/lib/python3/site-packages/torch
mkdir -p "$wheel"
ln -s /usr/include "$wheel/include"
link_libs "$wheel/lib"
for home in "$wheel" "$(dirname "$wheel")"; do
  expect "wheel $home" "$(bash "$find_libtorch" "$home")" "HOME=$wheel" "LIBDIR=$wheel/lib" SYSTEM=0 \
    CXX11_ABI=1 "ABI_SOURCE=the symbols of libc10.so"
done

# A pre-C++11 libc10.so names no std::__cxx11 type.
old=$work/old-abi
mkdir -p "$old/lib"
ln -s /usr/include "$old/include"
ln -s "$libdir/libtorch.so" "$old/lib/"
printf '\177ELF _ZN3c105ErrorC2ESsSs\n' > "$old/lib/libc10.so"
expect old-abi "$(bash "$find_libtorch" "$old")" CXX11_ABI=0 "ABI_SOURCE=the symbols of libc10.so"

# Not a libtorch: each says what is missing and where to point.
expect_error not-a-directory "$work/nothing" "is not a directory"
mkdir -p "$work/empty"
expect_error no-headers "$work/empty" "torch/csrc/api/include/torch/torch.h is missing"
mkdir -p "$work/headers-only"
ln -s /usr/include "$work/headers-only/include"
expect_error no-libraries "$work/headers-only" "no libtorch.so under lib/"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo PASS
