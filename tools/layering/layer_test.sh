#!/usr/bin/env bash
# Fails when a layer reaches a package above it.
#   layer_test.sh DEPS LAYER ALLOWED...
# DEPS: a genquery's output (one label per line) of what the layer's targets
# reach; ALLOWED: the packages it may reach, `//pkg` for that package alone,
# `//pkg/...` for it and every package under it. External repositories
# (`@...`) are libtorch, Abseil and friends: always allowed.
set -euo pipefail
deps=$1
layer=$2
shift 2
bad=()
while IFS= read -r label; do
  case "$label" in //*) ;; *) continue ;; esac
  package=${label%%:*}
  ok=0
  for allowed in "$@"; do
    case "$allowed" in
      */...) base=${allowed%/...}
             if [ "$package" = "$base" ] || [ "${package#"$base"/}" != "$package" ]; then ok=1; fi ;;
      *) if [ "$package" = "$allowed" ]; then ok=1; fi ;;
    esac
  done
  [ "$ok" = 1 ] || bad+=("$label")
done < "$deps"
if [ "${#bad[@]}" -gt 0 ]; then
  echo "$layer must reach only $* (docs/architecture.md), but reaches:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "$layer reaches $(grep -c '^//' "$deps") targets of ours, all in: $*"
