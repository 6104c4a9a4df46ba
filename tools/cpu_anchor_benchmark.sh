#!/usr/bin/env bash
# Our plan against the fastest CPU anchors, one thread, interleaved rounds:
# fxrun with no passes, with the layout pipeline (mkldnn_layout) and with the
# fusion pipeline (mkldnn_fusion), each a wall-time median of 30 runs, then
# AOTInductor with freezing and ep.module() (tools/exported_program_anchor.py
# aoti). Every program is checked against PyTorch's saved run first.
#
#   tools/platform.sh sid bazel build --config=opt //tools:fxrun
#   tools/platform.sh sid python3 tools/exported_program_anchor.py export /src/bench
#   tools/platform.sh sid tools/cpu_anchor_benchmark.sh /src/bench
#
# Environment: FXRUN (default bazel-sid-bin/tools/fxrun), ROUNDS (default 3),
# PROGRAMS (default: every program the anchor script exports). Run it on an
# otherwise idle machine: fxrun reports wall time, the anchor CPU and wall.
set -euo pipefail
DIR=${1:?usage: cpu_anchor_benchmark.sh DIR (programs from exported_program_anchor.py export DIR)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FX=${FXRUN:-bazel-sid-bin/tools/fxrun}
PROGRAMS=${PROGRAMS:-"resnet18 resnet50 mobilenet_v2 mobilenet_v3_large transformer_encoder_layer tensor_product"}
PREFIX='fold_bn,const_fold,cse,dce,shape_prop{device=meta}'
declare -A PIPELINE=(
  [none]=''
  [layout]="$PREFIX,mkldnn_layout,transpose_linear,dce"
  [fusion]="$PREFIX,mkldnn_fusion,transpose_linear,dce"
)
fxrun() { "$FX" --model="$DIR/$1.pt2" ${2:+--passes=$2} --threads=1 --print=none "${@:3}" 2>&1; }
for p in $PROGRAMS; do
  for side in layout fusion; do
    echo "check $p $side: $(fxrun "$p" "${PIPELINE[$side]}" --check --atol=1e-4 | grep 'check:' || echo FAILED)"
  done
done
for r in $(seq "${ROUNDS:-3}"); do
  echo "== round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for p in $PROGRAMS; do
    for side in none layout fusion; do
      echo "$p $side $(fxrun "$p" "${PIPELINE[$side]}" --repeat=30 --warmup=5 | grep -o 'median [0-9.]* ms')"
    done
  done
  python3 "$HERE/exported_program_anchor.py" aoti $(for p in $PROGRAMS; do echo "$DIR/$p.pt2"; done) |
    grep -v '^torch'
done
