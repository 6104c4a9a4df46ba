#!/usr/bin/env bash
# Lays out and packs a release of FX for C++ (tools/release/BUILD, //tools:release):
#
#   NAME/bin/fxrun                          runs from anywhere: its run path is $ORIGIN/../lib
#   NAME/lib/libfx.so.VERSION               SONAME libfx.so.MAJOR.MINOR, and the links to it
#   NAME/lib/fx/plugins/libfx_*.so          the in-tree plugins (run path $ORIGIN/../..)
#   NAME/include/fx/...                     the public headers (install_headers.sh)
#   NAME/lib/cmake/fx/, NAME/lib/pkgconfig/fx.pc   (package_files.sh)
#   NAME/LICENSE, NAME/share/doc/fx/        the license and the documentation
#   NAME/share/fx/examples/                 the examples (examples/*/), to build against it
#   NAME/share/fx/fx_graph_file.py          writes a torch.fx graph as a graph file (fxrun --graph)
#
#   make_release.sh OUT.tar.gz VERSION LIBTORCH_INFO LIBFX FXRUN VERSION_H LICENSE DOCS... \
#       -- PLUGIN.so... -- examples/EXAMPLE/FILE...
#
# Bazel's binaries name libfx.so and carry run paths into bazel-out; patchelf
# gives them the installation's names and paths. libtorch and Abseil are
# the system's (Debian's packages) and are not carried; a libtorch outside
# the system's directories (FX_LIBTORCH_HOME) stays in the run paths.
set -euo pipefail
out=$1 version=$2 info=$3 libfx=$4 fxrun=$5 version_h=$6 license=$7
shift 7
docs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do docs+=("$1"); shift; done
shift
plugins=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do plugins+=("$1"); shift; done
[ $# -eq 0 ] || shift
examples=("$@")
command -v patchelf > /dev/null || { echo "make_release.sh: patchelf is missing: apt-get install patchelf (tools/bootstrap.sh installs it)" >&2; exit 1; }

name=$(basename "$out" .tar.gz)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
IFS=. read -r major minor patch <<< "$version"
soname="libfx.so.$major.$minor"
libdir=$(sed -n 's/^LIBDIR=//p' "$info") system=$(sed -n 's/^SYSTEM=//p' "$info")
extra=""
[ "$system" = 1 ] || extra=":$libdir"

mkdir -p "$root/bin" "$root/lib/fx/plugins" "$root/include" "$root/share/doc/fx"
install -m 0755 "$libfx" "$root/lib/libfx.so.$version"
# (One change per call: patchelf 0.14 loses the SONAME it set when the same
# call also empties the run path.)
patchelf --set-soname "$soname" "$root/lib/libfx.so.$version"
if [ -n "$extra" ]; then
  patchelf --set-rpath "${extra#:}" "$root/lib/libfx.so.$version"
else
  patchelf --remove-rpath "$root/lib/libfx.so.$version"
fi
ln -s "libfx.so.$version" "$root/lib/$soname"
ln -s "$soname" "$root/lib/libfx.so"
install -m 0755 "$fxrun" "$root/bin/fxrun"
patchelf --replace-needed libfx.so "$soname" "$root/bin/fxrun"
patchelf --set-rpath "\$ORIGIN/../lib$extra" "$root/bin/fxrun"
for plugin in "${plugins[@]}"; do
  target="$root/lib/fx/plugins/$(basename "$plugin")"
  install -m 0755 "$plugin" "$target"
  patchelf --replace-needed libfx.so "$soname" "$target"
  patchelf --set-rpath "\$ORIGIN/../..$extra" "$target"
done

# Every binary finds libfx in the tree, and names it by its SONAME. (The
# dynamic section is read whole first: `readelf | grep -q` under pipefail
# fails at random, when grep's early exit stops readelf with SIGPIPE.)
for binary in "$root/bin/fxrun" "$root"/lib/fx/plugins/*.so; do
  if ! grep -q "NEEDED.*\[$soname\]" <<< "$(readelf -d "$binary")"; then
    echo "make_release.sh: $(basename "$binary") does not need $soname" >&2; exit 1
  fi
done
grep -q "SONAME.*\[$soname\]" <<< "$(readelf -d "$root/lib/libfx.so.$version")" ||
  { echo "make_release.sh: libfx.so.$version has no SONAME $soname" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bash "$here/tools/release/install_headers.sh" . "$version_h" "$root/include" > /dev/null
bash "$here/tools/release/package_files.sh" . "$root" "$version" "$info"
install -m 0644 "$license" "$root/LICENSE"
install -D -m 0644 "$here/tools/fx_graph_file.py" "$root/share/fx/fx_graph_file.py"
for doc in "${docs[@]}"; do install -m 0644 "$doc" "$root/share/doc/fx/$(basename "$doc")"; done
for file in "${examples[@]}"; do  # examples/NAME/FILE -> share/fx/examples/NAME/FILE
  install -D -m 0644 "$file" "$root/share/fx/examples/${file#*examples/}"
done

# Reproducible: fixed owner, order and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' \
  -C "$stage" -czf "$out" "$name"
