#!/usr/bin/env bash
# libfx.so exports the FX API and nothing else (core/export.h): lists the
# dynamic symbols it defines, grouped by the namespace of what each names, and
# fails on any that is not the API's.
#
#   fx                     the API (FX_API), and templates instantiated over it
#   std, __gnu_cxx, c10,   vague-linkage copies (weak, unique) of header code
#   at, torch, caffe2      whose own headers declare it default-visible (the
#                          libstdc++ namespace, TORCH_API classes' members
#                          defined inline outside the class, which GCC's
#                          -fvisibility-inlines-hidden leaves alone): every
#                          user of those headers emits them, and the dynamic
#                          linker merges them with libtorch's and libstdc++'s
#   C names                the linker's own (_edata, _end, __bss_start)
#
# Anything else fails: a strong definition outside namespace fx (FX_API on a
# function of another namespace), Abseil's, nlohmann's or any other library's
# code (a .cc compiled without -fvisibility=hidden), or a C name. The API must
# also be there: a few of its symbols are checked for.
#
#   libfx_exports_test.sh LIBFX_SO
set -euo pipefail

lib=$1
if [ ! -f "$lib" ]; then
  echo "no such library: $lib" >&2
  exit 1
fi

# TYPE MANGLED-NAME per defined dynamic symbol.
symbols=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $2, $3 } NF == 2 { print $1, $2 }')
if [ -z "$symbols" ]; then
  echo "$lib exports no symbols" >&2
  exit 1
fi

# TYPE NAMESPACE MANGLED-NAME: the top-level namespace of the entity a mangled
# name names (Itanium ABI), read off its prefix: special names (vtable,
# typeinfo, guard variables, thunks) are skipped to the entity; a local name
# (a function's static) takes its function's namespace; St and the standard
# abbreviations (Sa, Sb, Ss, Si, So, Sd) are std. A name that is not mangled is
# "C"; one at global scope is "::NAME"; one that names no namespace (a builtin
# type's typeinfo) is "?".
classified=$(echo "$symbols" | awk '
function ns_of(m,    s, n, nested) {
  if (substr(m, 1, 2) != "_Z") return "C"
  s = substr(m, 3)
  while (1) {
    if (s ~ /^(TV|TI|TS|TT|GV|GR|TH|TW|TC)/) { s = substr(s, 3); continue }
    if (s ~ /^Th/) { s = substr(s, 3); sub(/^n?[0-9]+_/, "", s); continue }
    if (s ~ /^Tv/) { s = substr(s, 3); sub(/^n?[0-9]+_n?[0-9]+_/, "", s); continue }
    if (s ~ /^Tc/) { s = substr(s, 3); continue }
    if (s ~ /^N/) nested = 1
    if (s ~ /^[ZNLFPROKVr]/) { s = substr(s, 2); continue }
    break
  }
  if (s ~ /^S[tabsiod]/) return "std"
  if (s ~ /^[0-9]/) {
    match(s, /^[0-9]+/)
    n = substr(s, 1, RLENGTH) + 0
    return (nested ? "" : "::") substr(s, RLENGTH + 1, n)
  }
  return "?"
}
{ print $1, ns_of($2), $2 }')

# Is a symbol of namespace NS, bound as TYPE, allowed?
allowed() {
  local type=$1 ns=$2 name=$3
  case "$ns" in
    fx) return 0 ;;
    std | __gnu_cxx | c10 | at | torch | caffe2)
      case "$type" in W | V | u) return 0 ;; esac
      return 1
      ;;
    C)
      case "$name" in _edata | _end | __bss_start | _init | _fini) return 0 ;; esac
      return 1
      ;;
  esac
  # Another library's namespace, a name at global scope ("::NAME"), or a
  # builtin type's typeinfo ("?").
  return 1
}

echo "Symbols $lib exports, by namespace:"
echo "$classified" | awk '{ print $2 }' | sort | uniq -c | sort -rn
total=$(echo "$classified" | wc -l)
echo "$total in all"

bad=""
while read -r type ns name; do
  if ! allowed "$type" "$ns" "$name"; then
    bad+="$type $ns $(echo "$name" | c++filt)"$'\n'
  fi
done <<< "$classified"

status=0
if [ -n "$bad" ]; then
  echo >&2
  echo "$lib exports symbols that are not the FX API (mark the API with FX_API," >&2
  echo "core/export.h, and nothing else; TYPE NAMESPACE SYMBOL):" >&2
  printf '%s' "$bad" | awk 'NR <= 200' >&2
  echo "($(printf '%s' "$bad" | wc -l) symbols; by namespace:" >&2
  printf '%s' "$bad" | awk '{ print $2 }' | sort | uniq -c | sort -rn >&2
  echo ")" >&2
  status=1
fi

# The API itself: classes and functions that plugins, fxrun and embedding
# programs use, typeinfo included (plugins derive from Pass; errors cross).
demangled=$(echo "$symbols" | awk '{ print $2 }' | c++filt)
for want in \
  'fx::Graph::Graph()' \
  'typeinfo for fx::Pass' \
  'vtable for fx::Pass' \
  'fx::Model::load(' \
  'fx::PassManager::' \
  'fx::PluginRegistrar::' \
  'fx::load_plugin(' \
  'fx::Tracer::' \
  'fx::GraphModule::'; do
  if ! grep -qF -- "$want" <<< "$demangled"; then
    echo "$lib does not export $want (the API must be marked FX_API)" >&2
    status=1
  fi
done

exit $status
