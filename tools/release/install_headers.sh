#!/usr/bin/env bash
# Installs FX for C++'s headers under DEST/fx/, as a release and `cmake
# --install` carry them: the library's packages (core/, runtime/, tracer/,
# exported_program/, plugins/, passes/) under fx/<package>/, the embedding
# API's (fx/) under fx/, and the generated fx/version.h. Their includes of one
# another are rewritten to match (`#include "core/graph.h"` becomes `#include
# "fx/core/graph.h"`), so that a consumer adds only DEST to its include path
# and no header of ours can be taken for one of its own (a `core/graph.h` of
# its own).
#
#   install_headers.sh SOURCE_ROOT VERSION_H DEST
#
# Headers private to one library (what its .cc files share, named so in
# their comments) are not installed: nothing outside libfx may include them.
# Fails when an installed header includes one of ours that is not installed.
set -euo pipefail
src=$1 version_h=$2 dest=$3
packages=(core runtime tracer exported_program plugins passes)
private=(
  passes/split/cut_points.h
  plugins/elf_dependencies.h
  plugins/signal_disposition.h
  runtime/kernels/contraction.h
  runtime/plan/allocation_cache.h
  runtime/plan/cuda_runs.h
  runtime/plan/plan_steps.h
  tracer/torchscript/call_effects.h
)
is_private() {
  local p
  for p in "${private[@]}"; do [ "$1" != "$p" ] || return 0; done
  return 1
}

rewrite() {  # rewrite FROM TO
  mkdir -p "$(dirname "$2")"
  sed -E 's@^(#include[[:space:]]+")(core|runtime|tracer|exported_program|plugins|passes|distributed)/@\1fx/\2/@' \
    "$1" > "$2"
}

cd "$src"
count=0
for package in "${packages[@]}"; do
  while IFS= read -r header; do
    header=${header#./}
    is_private "$header" && continue
    rewrite "$header" "$dest/fx/$header"
    count=$((count + 1))
  done < <(find -L "$package" \( -name '*.h' -o -name '*.def' \) -not -path '*/testing/*' -not -path '*/examples/*' | sort)
done
for header in fx/*.h fx/torchscript/torchscript_file.h; do
  rewrite "$header" "$dest/$header"
  count=$((count + 1))
done
cp "$version_h" "$dest/fx/version.h"

# Every header of ours they include is there.
missing=$(grep -rhoE '^#include[[:space:]]+"fx/[^"]+"' "$dest/fx" | sed -E 's/^#include[[:space:]]+"(.*)"/\1/' |
          sort -u | while read -r h; do [ -f "$dest/$h" ] || echo "$h"; done)
if [ -n "$missing" ]; then
  echo "install_headers.sh: installed headers include headers that are not installed: $missing" >&2
  exit 1
fi
echo "installed $((count + 1)) headers under $dest/fx"
