#!/usr/bin/env bash
# The examples as a user runs them: embed_model loads a torch.export program
# (each layout), runs fold_bn,const_fold,dce, prints its outputs and saves it;
# what it saved loads back and computes the same; custom_pass rewrites relu
# into clamp_min with a pass written in C++ and keeps the outputs.
#
#   examples_test.sh EMBED_MODEL CUSTOM_PASS
set -euo pipefail
root=$PWD
embed_model=$root/$1 custom_pass=$root/$2
programs=$root/tests/exported_programs
work=${TEST_TMPDIR:-$(mktemp -d)}
cd "$work"
failed=0
check() {  # check DESCRIPTION COMMAND...: prints why when COMMAND fails
  if ! "${@:2}"; then echo "FAILED: $1" >&2; failed=1; fi
}

for folder in torch2.6 torch2.14; do
  program=$programs/$folder/conv_net.pt2
  "$embed_model" "$program" "$work/folded_$folder.pt2" > first.txt
  check "$folder: one output line" grep -qE '^output 0: float\[1, 8\] sum -?[0-9.e+-]+, mean \|x\| [0-9.e+-]+$' first.txt
  check "$folder: the saved program is a zip archive" \
    test "$(head -c 2 "$work/folded_$folder.pt2")" = PK
  # Loaded back, the saved program (batch norm folded away) gives the same.
  "$embed_model" "$work/folded_$folder.pt2" "$work/again_$folder.pt" > again.txt
  check "$folder: the saved program computes what the first run printed" cmp -s first.txt again.txt
  check "$folder: a .pt name saves TorchScript" test "$(head -c 2 "$work/again_$folder.pt")" = PK

  "$custom_pass" "$program" > custom.txt
  check "$folder: custom_pass kept the outputs" grep -qx 'outputs unchanged' custom.txt
  check "$folder: custom_pass left no relu" bash -c "! grep -q 'aten.relu' custom.txt"
  check "$folder: custom_pass wrote clamp_min" grep -q 'clamp_min' custom.txt
done

# A TorchScript module keeps no inputs: one error line, exit status 1, and
# no file written.
set +e
"$embed_model" "$root/tests/fixtures/m_relu_add.pt" from_script.pt > /dev/null 2> error.txt
status=$?
set -e
check "a TorchScript module without inputs exits 1" test "$status" = 1
check "with one line saying why" grep -qx 'error: a TorchScript module keeps no example inputs.*' error.txt
check "and writes nothing" test ! -e from_script.pt
# On cuda: with a CUDA libtorch and a GPU, it runs there, prints its one
# output's line (the line's form is checked here, not the GPU's values) and
# saves; elsewhere (Debian's CPU-only libtorch, a machine
# without a GPU) exit status 1, one line saying which, and nothing written.
set +e
"$embed_model" "$programs/torch2.14/conv_net.pt2" on_gpu.pt2 cuda > gpu.txt 2> gpu_error.txt
status=$?
set -e
if [ "$status" = 0 ]; then
  check "cuda: one output line" test "$(grep -cE '^output 0: float\[1, 8\] sum ' gpu.txt)" = 1
  check "cuda: the saved program is a zip archive" test "$(head -c 2 on_gpu.pt2)" = PK
else
  check "no GPU: exit status 1" test "$status" = 1
  check "no GPU: one line" test "$(wc -l < gpu_error.txt)" = 1
  check "no GPU: saying why" \
    grep -qE '^error: device cuda:0( needs CUDA|: this libtorch is built with CUDA, but no CUDA device is present)' gpu_error.txt
  check "no GPU: nothing written" test ! -e on_gpu.pt2
fi

set +e
"$embed_model" > /dev/null 2>&1
status=$?
set -e
check "no arguments: usage, exit status 2" test "$status" = 2

[ "$failed" = 0 ] && echo "examples_test: ok"
exit "$failed"
