#!/usr/bin/env bash
# Throughput of ResNet-18 (batch 8, 224x224) run as a pipeline of processes
# (fxrun --run --stages=N) against one process, in the same run, by hand:
#
#   bazel run --config=opt //tools:pipeline_benchmark -- [REPEAT] [COST]
#
# REPEAT timed batches per configuration (default 10, after 2 warmup);
# COST what split{stages=N} balances: time (default) or params. Every process
# runs 1 intra-op thread. Prints images/s of each configuration, the ratio
# to one process, where each rank's time went (per micro-batch: compute,
# waiting for the previous stage, receiving, finishing sends), and uptime's
# load average before each (the machine may be shared).
set -euo pipefail
repeat=${1:-10}
cost=${2:-time}
here=$(cd "$(dirname "$0")" && pwd)
fxrun=${FXRUN:-$here/fxrun}
model=${MODEL:-$here/models/resnet18.pt}
[ -x "$fxrun" ] || { echo "pipeline_benchmark: no fxrun at $fxrun (run it with bazel run)" >&2; exit 2; }
common=(--model="$model" --input-shape=8,3,224,224 --run --threads=1 --print=none
        --repeat="$repeat" --warmup=2)

# Where split{stages=N cost=COST} cuts, measured once in this process, as
# points (node names) every rank then cuts at: cost=time measured in each
# rank would differ between them, which the ranks refuse.
cut_points() {
  "$fxrun" --model="$model" --input-shape=8,3,224,224 --passes="split{stages=$1 cost=$cost}" \
      --print=graph |
    awk '/^# submod_[1-9]/ { want = 1; next }
         want && /= placeholder\[/ { next }
         want && /^    %/ { sub(/^    %/, ""); sub(/ .*/, ""); points = points sep $0; sep = ","; want = 0 }
         END { print points }'
}

median_ms() { sed -n 's/^latency: median \([0-9.]*\) ms.*/\1/p' <<<"$1" | head -n 1; }
load() { uptime | sed 's/.*load average: //'; }

echo "ResNet-18, batch 8 at 224x224, 1 thread per process, $repeat timed batches after 2 warmup"
echo "load before one process: $(load)"
single=$("$fxrun" "${common[@]}")
single_ms=$(median_ms "$single")
printf '1 process:                      %7.1f images/s (median %s ms per batch)\n' \
  "$(awk "BEGIN{print 8000 / $single_ms}")" "$single_ms"
for config in "2 4" "4 4"; do
  set -- $config
  echo "load before $1 stages: $(load)"
  points=$(cut_points "$1")
  echo "split{stages=$1 cost=$cost} cuts before: $points"
  out=$("$fxrun" "${common[@]}" --passes="split{points=$points}" --stages="$1" --microbatches="$2")
  ms=$(median_ms "$out")
  printf '%d stages, %d micro-batches:     %7.1f images/s (median %s ms per batch), %.2fx one process\n' \
    "$1" "$2" "$(awk "BEGIN{print 8000 / $ms}")" "$ms" "$(awk "BEGIN{print $single_ms / $ms}")"
  grep '^rank ' <<<"$out" | sed 's/^/    /'
done
