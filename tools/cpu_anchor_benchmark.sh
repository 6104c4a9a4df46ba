#!/usr/bin/env bash
# Our plan against the fastest CPU anchors, one thread, interleaved rounds:
# fxrun with no passes, with the layout pipeline (mkldnn_layout) and with the
# fusion pipeline (mkldnn_fusion, fuse_elementwise), each a wall-time median of 30 runs, then
# AOTInductor with freezing and ep.module() (tools/exported_program_anchor.py
# aoti), then ONNX Runtime (tools/onnxruntime_anchor.js, onnxruntime-node).
# Every program is checked against PyTorch's saved run first, on each side.
#
#   tools/platform.sh sid bazel build --config=opt //tools:fxrun
#   tools/platform.sh sid python3 tools/exported_program_anchor.py export /src/bench
#   tools/platform.sh sid python3 tools/exported_program_anchor.py onnx /src/bench
#   npm install --prefix bench --ignore-scripts onnxruntime-node@1.30.0   # on the host
#   tools/platform.sh sid tools/cpu_anchor_benchmark.sh /src/bench
#
# ONNX Runtime: `onnx` writes DIR/NAME.onnx (torch.onnx.export, legacy exporter,
# opset 17, static shapes, the .pt2's weights) with its inputs and PyTorch's
# outputs; the Node harness runs it with one intra-op and one inter-op thread,
# sequential execution and every graph optimisation, checks it, and prints
# its wall and CPU medians (its own cost: ~0.006 ms a call). onnxruntime-node
# carries ORT's CPU library; install it with the host's npm under the
# repository, as above (the lane sees bench/ as /src/bench), or name another
# node_modules in ORT_NODE_MODULES. Programs with no DIR/NAME.onnx are left out
# of ORT's side, with a message.
#
# Environment: FXRUN (default bazel-sid-bin/tools/fxrun), ROUNDS (default 3),
# PROGRAMS (default: every program the anchor script exports), ORT_NODE_MODULES
# (a node_modules holding onnxruntime-node; default DIR/node_modules, then
# Node's own search), NODE (default node). Run it on an otherwise idle machine:
# fxrun reports wall time, the anchors CPU and wall. The first run compiles
# AOTInductor's packages (minutes a program; kept as DIR/NAME.aoti.pt2).
set -euo pipefail
DIR=${1:?usage: cpu_anchor_benchmark.sh DIR (programs from exported_program_anchor.py export DIR)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FX=${FXRUN:-bazel-sid-bin/tools/fxrun}
PROGRAMS=${PROGRAMS:-"resnet18 resnet50 mobilenet_v2 mobilenet_v3_large resnet18_b8 resnet50_b8
  mobilenet_v2_b8 mobilenet_v3_large_b8 transformer_encoder_layer tensor_product add_chain"}
NODE=${NODE:-node}
PREFIX='fold_bn,const_fold,cse,dce,shape_prop{device=meta}'
declare -A PIPELINE=(
  [none]=''
  [layout]="$PREFIX,mkldnn_layout,transpose_linear,dce"
  [fusion]="$PREFIX,mkldnn_fusion,fuse_elementwise,transpose_linear,dce"
)
fxrun() { "$FX" --model="$DIR/$1.pt2" ${2:+--passes=$2} --threads=1 --print=none "${@:3}" 2>&1; }
for p in $PROGRAMS; do
  for side in layout fusion; do
    echo "check $p $side: $(fxrun "$p" "${PIPELINE[$side]}" --check --atol=1e-4 | grep 'check:' || echo FAILED)"
  done
done
ORT=()
for p in $PROGRAMS; do
  if [ -f "$DIR/$p.onnx" ]; then ORT+=("$p"); else echo "ort: no $DIR/$p.onnx, $p left out (exported_program_anchor.py onnx)"; fi
done
if [ ${#ORT[@]} -gt 0 ]; then
  "$NODE" "$HERE/onnxruntime_anchor.js" --check "$DIR" "${ORT[@]}"
fi
for r in $(seq "${ROUNDS:-3}"); do
  echo "== round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for p in $PROGRAMS; do
    for side in none layout fusion; do
      echo "$p $side $(fxrun "$p" "${PIPELINE[$side]}" --repeat=30 --warmup=5 | grep -o 'median [0-9.]* ms')"
    done
  done
  python3 "$HERE/exported_program_anchor.py" aoti $(for p in $PROGRAMS; do echo "$DIR/$p.pt2"; done) |
    grep -v '^torch'
  if [ ${#ORT[@]} -gt 0 ]; then
    "$NODE" "$HERE/onnxruntime_anchor.js" "$DIR" "${ORT[@]}" | grep -v '^onnxruntime'
  fi
done
