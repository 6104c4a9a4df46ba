#!/usr/bin/env bash
# Runs named_paths.py on the repository it came from: Bazel's runfiles link
# to the source tree, so the script's real path leads to the checkout. The
# test reads files it does not declare (all of them), so it is tagged
# external and runs every time.
set -euo pipefail
script=$(readlink -f tools/layering/named_paths.py)
exec python3 "$script" "$(cd "$(dirname "$script")/../.." && pwd)"
