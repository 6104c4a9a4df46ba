#!/usr/bin/env bash
# Builds-and-runs check of docs/tracer.md's tracing example: it traces the M1 fixture
# and prints the seed's table, and it fails cleanly on a missing file.
set -euo pipefail
bin="$1"
m1="$2"

out=$("$bin" "$m1")
expected_table='opcode       name    target    args     kwargs
-----------  ------  --------  -------  --------
placeholder  x       x         ()       {}
call_module  relu    relu      (x,)     {}
output       output  output    (relu,)  {}'
if [[ "$out" != "$expected_table"* ]]; then
  echo "unexpected output:"; echo "$out"; exit 1
fi
if ! grep -q "relu = self.relu(x);  x = None" <<<"$out"; then
  echo "missing code:"; echo "$out"; exit 1
fi

set +e
err=$("$bin" /nonexistent/model.pt 2>&1)
rc=$?
set -e
if [[ $rc -ne 1 || "$err" != "cannot "*"/nonexistent/model.pt"* ]]; then
  echo "bad error handling (rc=$rc): $err"; exit 1
fi
echo PASS
