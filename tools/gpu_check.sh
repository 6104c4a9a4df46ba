#!/usr/bin/env bash
# The check of FX for C++'s CUDA runtime on a machine with an NVIDIA GPU, a
# Python with a CUDA PyTorch and torchvision, CMake, ninja and g++, and no
# Bazel or network (docs/gpu.md):
#   deps     unpacks the Debian packages the build needs (Abseil, libzip,
#            nlohmann-json, GoogleTest), carried in FX_GPU_DEBS
#            (tools/gpu_check/fetch_packages.sh fetches them), into a prefix;
#   build    builds libfx, the plugins, fxrun and the CUDA runtime's unit test
#            (runtime/plan/cuda_runs_test.cc) with the CMake build against
#            that PyTorch's libtorch, while PyTorch exports the programs and
#            compiles its anchors (tools/gpu_check/gpu_anchor.py);
#   test     runs the unit test;
#   checks   runs each program with fxrun --device=cuda --run --check, without
#            and with --cuda-graphs, timed, and the TorchScript models;
#   time     PyTorch's eager and torch.compile(mode="reduce-overhead") times
#            of the same programs (after the build, alone on the machine).
# Writes OUT/summary.txt, and a log per step beside it.
#
#   tools/gpu_check.sh [OUT]       # OUT: default $OUT, else /tmp/fx-gpu-check
#
# Environment:
#   FX_GPU_DEBS    the carried .deb files (default: .gpu/debs in the checkout)
#   FX_GPU_STEPS   the steps to run (default: "deps build test export checks time");
#                  "deps build test" checks the build alone, e.g. in a Debian
#                  root with a CPU libtorch standing in (docs/gpu.md)
#   FX_PYTHON      the Python with torch (default python3)
#   FX_TORCH_CMAKE where find_package(Torch) looks (default: that torch's
#                  torch.utils.cmake_prefix_path)
#   FX_GPU_WORK    scratch directory (default /tmp/fx-gpu-work)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/fx-gpu-check}}
debs=${FX_GPU_DEBS:-$PWD/.gpu/debs}
steps=" ${FX_GPU_STEPS:-deps build test export checks time} "
python=${FX_PYTHON:-python3}
work=${FX_GPU_WORK:-/tmp/fx-gpu-work}
prefix=$work/prefix
build=$work/build
models=$work/models
mkdir -p "$out" "$work" "$models"
# The carried libraries load each other (libabsl_* their siblings): programs
# built here find them through the loader's path, not only their run paths.
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
summary=$out/summary.txt
: > "$summary"
start=$SECONDS
say() { echo "[$((SECONDS - start)) s] $*" | tee -a "$summary"; }
# PyTorch's side runs beside the build: it ends with this script, however it ends.
trap 'pkill -f tools/gpu_check/gpu_anchor.py 2> /dev/null' EXIT
has() { [[ $steps == *" $1 "* ]]; }

say "machine: $(nproc) CPUs; $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no GPU')"
if torch_info=$("$python" -c 'import os, torch; print(torch.__version__, torch.version.cuda, torch.utils.cmake_prefix_path, os.path.dirname(torch.__file__))' 2> /dev/null); then
  read -r torch_version torch_cuda torch_cmake torch_dir <<< "$torch_info"
elif [ -n "${FX_TORCH_CMAKE:-}" ]; then  # a libtorch without Python (the build steps alone)
  torch_version="(no Python)" torch_cuda=- torch_dir=/nonexistent
else
  say "no torch in $python: set FX_PYTHON, or FX_TORCH_CMAKE for the build steps alone"; exit 1
fi
torch_cmake=${FX_TORCH_CMAKE:-$torch_cmake}
say "torch $torch_version (CUDA $torch_cuda) at $torch_dir; $(g++ --version | head -1); $(cmake --version | head -1)"

# ---- deps: the carried packages, unpacked into a prefix -----------------------
if has deps; then
  ls "$debs"/*.deb > /dev/null 2>&1 || { say "no .deb files in $debs (tools/gpu_check/fetch_packages.sh)"; exit 1; }
  rm -rf "$prefix" && mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$prefix" || { say "cannot unpack $deb"; exit 1; }; done
  # pkg-config files name /usr: point them into the prefix.
  sed -i "s|^prefix=/usr\$|prefix=$prefix/usr|" "$prefix"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
  say "deps: unpacked $(ls "$debs"/*.deb | wc -l) packages ($(du -sh "$debs" | cut -f1)) into $prefix"
fi

# ---- export (PyTorch, beside the build) --------------------------------------
programs="resnet18 resnet50 mobilenet_v3_large transformer_encoder_layer tensor_product"
timed_programs="add_chain tensor_product resnet50 resnet50_b32 transformer_encoder_layer"
ready=$work/ready  # the build and the unit test are done: PyTorch may time alone
rm -f "$ready"
python_side=
if has export; then
  (
    "$python" tools/gpu_check/gpu_anchor.py scripted "$models" > "$out/export.log" 2>&1 &&
      "$python" tools/gpu_check/gpu_anchor.py export "$models" $programs add_chain resnet50_b32 \
        >> "$out/export.log" 2>&1 || exit 1
    if has time; then
      "$python" tools/gpu_check/gpu_anchor.py time "$models" "$ready" $timed_programs \
        > "$out/anchor.log" 2>&1
    fi
  ) &
  python_side=$!
fi

# ---- build ---------------------------------------------------------------------
if has build; then
  site=$(dirname "$torch_dir")
  extra=()
  [ -f "$site/nvidia/nccl/include/nccl.h" ] && extra+=("-DCMAKE_CXX_FLAGS=-I$site/nvidia/nccl/include")
  [ -d "$site/nvidia/cudnn/include" ] && extra+=("-DCUDNN_INCLUDE_DIR=$site/nvidia/cudnn/include" \
    "-DCUDNN_LIBRARY=$(ls "$site"/nvidia/cudnn/lib/libcudnn.so* 2>/dev/null | head -1)")
  command -v nvcc > /dev/null && extra+=("-DCMAKE_CUDA_COMPILER=$(command -v nvcc)")
  export PKG_CONFIG_PATH=$prefix/usr/lib/x86_64-linux-gnu/pkgconfig
  jobs=$(( $(nproc) > 4 ? $(nproc) - 2 : $(nproc) ))
  if cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFX_EXAMPLE_MODEL=OFF \
       -DFX_GPU_TESTS=ON "-DCMAKE_PREFIX_PATH=$torch_cmake;$prefix/usr" "${extra[@]}" \
       > "$out/build.log" 2>&1 &&
     cmake --build "$build" -j "$jobs" >> "$out/build.log" 2>&1; then
    say "build: ok ($(grep -c 'Building CXX' "$out/build.log") compilations; $(grep -m1 'FX for C++' "$out/build.log" | sed 's/^-- //'))"
  else
    say "build: FAILED (build.log)"; grep -m5 -B2 -A8 'error' "$out/build.log" >> "$summary"
    exit 1
  fi
fi
fxrun=$build/bin/fxrun

# ---- test ----------------------------------------------------------------------
if has test; then
  if "$build/bin/cuda_runs_test" > "$out/test.log" 2>&1; then
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$out/test.log")
    say "test: cuda_runs_test passed: $(grep -c '^\[       OK \]' "$out/test.log") ok, ${skipped:-0} skipped"
  else
    say "test: cuda_runs_test FAILED:"; grep -E '^\[  FAILED  \]|Failure|error' "$out/test.log" | head -20 >> "$summary"
  fi
fi

# ---- time: PyTorch's anchors, alone on the machine -------------------------------
touch "$ready"
if [ -n "$python_side" ]; then
  wait "$python_side" || say "export/time: gpu_anchor.py failed (export.log, anchor.log)"
  say "export: $(grep -c '^exported' "$out/export.log") programs, $(grep -c '^scripted' "$out/export.log") TorchScript models"
  has time && sed -n '/^torch .* on /,$p' "$out/anchor.log" >> "$summary"
fi

# ---- checks: fxrun on the GPU --------------------------------------------------
# One fxrun: its check line, latency and CUDA graph lines into the summary.
run_fxrun() {  # run_fxrun LABEL ARGS...
  local label=$1 text status
  shift
  text=$(timeout 120 "$fxrun" "$@" 2>&1); status=$?
  { echo "== $label: fxrun $*"; echo "$text"; echo "== exit $status"; } >> "$out/checks.log"
  say "$label: exit $status; $(grep -E '^(check|--check)|latency|cuda graph|host synchronisations|error:' <<< "$text" | tr '\n' ';' | cut -c1-400)"
  return $status
}
if has checks; then
  tolerance=(--atol=1e-4 --rtol=1e-3)  # GPU kernels round differently from run to run of algorithms
  for name in $programs; do
    model=$models/$name.pt2
    common=(--model="$model" --expected="$models/$name.expected.pt" --device=cuda --check "${tolerance[@]}" --warmup=5 --repeat=50)
    if ! run_fxrun "$name" "${common[@]}"; then
      # A program exported on the GPU that fxrun cannot read: the one exported on the CPU.
      common[0]=--model=$models/${name}_cpu.pt2
      run_fxrun "${name}_cpu" "${common[@]}"
    fi
    run_fxrun "$name graphs" "${common[@]}" --cuda-graphs
  done
  for name in add_chain resnet50_b32; do
    common=(--model="$models/$name.pt2" --expected="$models/$name.expected.pt" --device=cuda --check "${tolerance[@]}" --warmup=5 --repeat=50)
    run_fxrun "$name" "${common[@]}"
    run_fxrun "$name graphs" "${common[@]}" --cuda-graphs
  done
  run_fxrun "resnet50 passes graphs" --model="$models/resnet50.pt2" --expected="$models/resnet50.expected.pt" \
    --passes=fold_bn,const_fold,cse,dce --device=cuda --check "${tolerance[@]}" --warmup=2 --repeat=10 --cuda-graphs
  run_fxrun "resnet18.pt vs TorchScript" --model="$models/resnet18.pt" --input-shape=2,3,224,224 --device=cuda \
    --check "${tolerance[@]}" --repeat=5 --cuda-graphs
  run_fxrun "host_sync.pt" --model="$models/host_sync.pt" --input-shape=64 --device=cuda --check --repeat=4 --cuda-graphs
  run_fxrun "writes_input.pt" --model="$models/writes_input.pt" --input-shape=64 --device=cuda --check --repeat=4 --cuda-graphs
  run_fxrun "nccl, 2 stages on 1 GPU" --model="$models/resnet18_cpu.pt2" --device=cuda --run --stages=2 --backend=nccl
fi
say "done in $((SECONDS - start)) s"
