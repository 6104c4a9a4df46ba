#!/usr/bin/env bash
# Runs umbrella_includes.py on the repository it came from (as
# named_paths_test.sh does: the runfiles link to the source tree). Tagged
# external: it reads every C++ file, which it does not declare.
set -euo pipefail
script=$(readlink -f tools/layering/umbrella_includes.py)
exec python3 "$script" "$(cd "$(dirname "$script")/../.." && pwd)"
