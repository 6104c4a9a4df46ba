#!/usr/bin/env bash
# Runs a command on this repository inside a Debian root of a named release: a
# platform lane. The root is made once with debootstrap, provisioned with
# tools/bootstrap.sh (the same package list as the host), and kept in a cache
# directory for the next run.
#
#   tools/platform.sh LANE [COMMAND [ARG...]]
#   tools/platform.sh trixie                      # the README's test command
#   tools/platform.sh sid bazel test //tracer/...
#   tools/platform.sh trixie bash                 # a shell in the lane
#   tools/platform.sh bookworm sh -c 'tools/bootstrap.sh && bazel run //tools:fxrun'
#
# Lanes:
#   bookworm     Debian 12, libtorch 1.13 (the host's platform), as a FRESH machine:
#                a minimal root with nothing installed, run through a throw-away
#                overlay, so every run starts from nothing (set-up check).
#   trixie       Debian 13, libtorch 2.6, Bazel 4.2.3
#   sid          Debian unstable, libtorch 2.14, Bazel 7 (moves with sid)
#   trixie-cuda  Debian 13 with contrib/non-free: libtorch 2.6 built with CUDA 12.4,
#                for compiling and testing the CUDA build on a machine with no GPU;
#                cuDNN is a STAND-IN that reports itself missing (tools/bootstrap_cuda.sh)
#
# The default command is the README's test command,
# `tools/bootstrap.sh && bazel test //...`. The repository is mounted at /src;
# each lane has its own Bazel output base and disk cache (under the root's
# /root/.cache), and Bazel's convenience links are named bazel-<lane>-bin etc.
# so they do not replace the host's bazel-bin.
#
# Options (before LANE):
#   --rebuild    remake the root from nothing
#   --prepare    make and provision the root if it needs it, then run nothing
#                (.ci/run prepares the lanes while the host's suite builds)
#   --status     print the lane's root, its state and size, and exit
#
# Environment:
#   FX_PLATFORM_CACHE  where roots live (default /var/cache/fx-platforms)
#   FX_DEBIAN_MIRROR   Debian archive (default http://deb.debian.org/debian)
#
# Needs root (debootstrap, chroot and mounts); installs debootstrap with
# apt-get when it is missing. Mounts live in a private mount namespace and
# every process of the lane in a private PID namespace, so nothing stays mounted
# or running after the command ends, however it ends (also on Ctrl-C or kill).
# A root whose making or provisioning was interrupted is detected and made anew.
set -euo pipefail

CACHE=${FX_PLATFORM_CACHE:-/var/cache/fx-platforms}
MIRROR=${FX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LANES="bookworm trixie sid trixie-cuda"

say() { printf 'platform(%s): %s\n' "${LANE:-?}" "$*" >&2; }
die() { printf 'platform(%s): error: %s\n' "${LANE:-?}" "$*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
elapsed() { local s=$(( $(date +%s) - $1 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# What each lane is: Debian suite, archive components, how it is provisioned
# (bootstrap: tools/bootstrap.sh with FX_BOOTSTRAP_VARIANT; fresh: nothing,
# and every run starts from the bare root).
lane_config() {
  case "$1" in
    bookworm)    SUITE=bookworm COMPONENTS=main PROVISION=fresh VARIANT= ;;
    trixie)      SUITE=trixie   COMPONENTS=main PROVISION=bootstrap VARIANT= ;;
    sid)         SUITE=sid      COMPONENTS=main PROVISION=bootstrap VARIANT= ;;
    trixie-cuda) SUITE=trixie   COMPONENTS=main,contrib,non-free PROVISION=bootstrap VARIANT=cuda ;;
    *) return 1 ;;
  esac
}

# ---------------------------------------------------------------------------
# Outside the namespaces: arguments, checks, the lane's lock; then re-enter
# this script in private mount and PID namespaces.
if [ "${FX_PLATFORM_INSIDE:-}" != 1 ]; then
  REBUILD=0 STATUS=0 PREPARE=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --rebuild) REBUILD=1; shift ;;
      --status) STATUS=1; shift ;;
      --prepare) PREPARE=1; shift ;;
      -h|--help) usage; exit 0 ;;
      --) shift; break ;;
      -*) die "unknown option $1 (see tools/platform.sh --help)" ;;
      *) break ;;
    esac
  done
  [ $# -ge 1 ] || { usage >&2; die "name a lane: $LANES"; }
  LANE=$1; shift
  lane_config "$LANE" || die "unknown lane '$LANE'; lanes: $LANES"
  [ "$PREPARE" = 0 ] || [ $# -eq 0 ] || die "--prepare runs no command (it makes the root only): drop '$*'"
  if [ "$STATUS" = 1 ]; then
    root=$CACHE/$LANE/root
    state=$(cat "$root/etc/fx-platform/state" 2>/dev/null || echo "absent")
    size=$(du -sh --one-file-system "$root" 2>/dev/null | cut -f1 || true)
    echo "$LANE: $root: ${state} ${size:+($size)}"
    exit 0
  fi
  [ "$(id -u)" -eq 0 ] ||
    die "lanes need root (debootstrap, chroot, mount): run it as root, e.g. sudo tools/platform.sh $LANE ..."
  # (Installed when missing, as tools/bootstrap.sh installs the build's
  # packages: a fresh CI machine has none.)
  if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap (apt-get)"
    # Under tools/bootstrap.sh's lock: .ci/run prepares lanes while the host's
    # bootstrap installs, and a second apt-get fails at once on a held lock.
    apt_lock=/run/lock/fx-cpp-apt.lock
    [ -d /run/lock ] || apt_lock=/tmp/fx-cpp-apt.lock
    apt_get=(flock "$apt_lock" apt-get -o DPkg::Lock::Timeout=600)
    { "${apt_get[@]}" update -qq && DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq debootstrap; } >/dev/null 2>&1 ||
      die "debootstrap is not installed and apt-get could not install it: apt-get install debootstrap (a Debian 12 package)"
  fi
  for tool in unshare chroot mount flock; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (package util-linux or coreutils)"
  done
  mkdir -p "$CACHE/$LANE"
  exec 9>"$CACHE/$LANE/lock"
  if ! flock -n 9; then
    say "another run holds lane $LANE; waiting for it"
    flock 9
  fi
  export FX_PLATFORM_INSIDE=1 FX_PLATFORM_REBUILD=$REBUILD FX_PLATFORM_PREPARE=$PREPARE
  # --kill-child: if this script is killed, the lane's init (below) dies too,
  # and with it every process of the lane and every mount.
  exec unshare --mount --propagation private --pid --fork --kill-child \
    "${BASH_SOURCE[0]}" "$LANE" "$@"
fi

# ---------------------------------------------------------------------------
# Inside: this shell is PID 1 of the lane's PID namespace and owns a private
# mount namespace.
LANE=$1; shift
lane_config "$LANE"
DIR=$CACHE/$LANE
ROOT=$DIR/root
[ $# -gt 0 ] || set -- sh -c 'tools/bootstrap.sh && bazel test //...'

# Mount points made under the root, in mounting order; unmounted in reverse.
MOUNTED=()
OVERLAY_DIR=

unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    umount --recursive "${MOUNTED[i]}" 2>/dev/null || umount --recursive --lazy "${MOUNTED[i]}" 2>/dev/null || true
  done
  MOUNTED=()
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  # As PID 1 of the namespace, kill -1 reaches every other process of the lane
  # (a Bazel server, a compiler), and only those.
  kill -KILL -1 2>/dev/null || true
  unmount_all
  [ -z "$OVERLAY_DIR" ] || rm -rf --one-file-system "$OVERLAY_DIR"
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM HUP

# Refuses to delete a directory that has anything mounted below it (in this
# namespace, which started as a copy of the host's).
remove_tree() {
  local dir=$1
  [ -e "$dir" ] || return 0
  if awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    die "$dir has file systems mounted below it (see /proc/self/mountinfo); unmount them, then run again"
  fi
  rm -rf --one-file-system "$dir"
}

mount_into() {  # mount_into ROOTDIR: the repository, /proc, /dev, /sys
  local r=$1
  mkdir -p "$r/src" "$r/proc" "$r/dev" "$r/sys"
  mount --bind "$REPO" "$r/src"; MOUNTED+=("$r/src")
  mount -t proc proc "$r/proc"; MOUNTED+=("$r/proc")
  if [ "$VARIANT" = cuda ]; then
    # NVIDIA's driver library (libcuda1), run as root, makes the /dev/nvidia*
    # nodes it finds missing: a /dev of the lane's own keeps them off the host's.
    mount -t tmpfs -o mode=755,nosuid tmpfs "$r/dev"; MOUNTED+=("$r/dev")
    local node
    for node in null zero full random urandom tty; do
      touch "$r/dev/$node"; mount --bind "/dev/$node" "$r/dev/$node"
    done
    # Pseudo-terminals from a devpts of its own (a bound /dev/ptmx would look
    # for pts/ beside the host's node and fail).
    mkdir "$r/dev/pts" "$r/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
    ln -s pts/ptmx "$r/dev/ptmx"
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/dev/shm"
    ln -s /proc/self/fd "$r/dev/fd"
    ln -s /proc/self/fd/0 "$r/dev/stdin"; ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr"
  else
    mount --rbind /dev "$r/dev"; MOUNTED+=("$r/dev")
  fi
  mount --rbind /sys "$r/sys"; MOUNTED+=("$r/sys")
  # Name resolution for apt, from the host's settings of the moment.
  cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
}

# Runs a command in ROOTDIR with a clean environment, from /src.
in_root() {
  local r=$1; shift
  chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    FX_PLATFORM="$LANE" FX_BOOTSTRAP_VARIANT="$VARIANT" DEBIAN_FRONTEND=noninteractive \
    /bin/sh -c 'cd /src && exec "$@"' sh "$@"
}

check_archive() {
  wget -q -T 20 -t 2 -O /dev/null "$MIRROR/dists/$SUITE/Release" ||
    die "the Debian archive is unreachable: $MIRROR/dists/$SUITE/Release could not be fetched (network, proxy, or set FX_DEBIAN_MIRROR)"
}

# The lane's provisioning identity: what bootstrap.sh installs, and how.
# (The CUDA lane also runs tools/bootstrap_cuda.sh and its cuDNN stand-in.)
provision_id() {
  {
    cat "$REPO/tools/bootstrap.sh"
    [ "$VARIANT" != cuda ] || cat "$REPO/tools/bootstrap_cuda.sh" "$REPO"/tools/cuda_standin/libcudnn_standin.*
    echo "$SUITE $COMPONENTS $VARIANT"
  } | sha256sum | cut -c1-16
}

state_of() { cat "$1/etc/fx-platform/state" 2>/dev/null || echo absent; }
set_state() { mkdir -p "$1/etc/fx-platform"; echo "$2" > "$1/etc/fx-platform/state.tmp"; mv "$1/etc/fx-platform/state.tmp" "$1/etc/fx-platform/state"; }

# Bazel settings of the lane (the system bazelrc of the root; Debian's Bazel
# reads /etc/bazel.bazelrc): links named after the lane. Debian 13's oneDNN
# (3.6, 3.7) computes 3x3 convolutions of 24 channels wrongly with its AVX-512
# kernels, in PyTorch's own eager runs too (docs/platforms.md, "Platform
# bugs"): trixie's tests run oneDNN's AVX2 kernels, so that the suite tests
# this project and not that bug. Written on every run (it is one line).
write_lane_bazelrc() {
  {
    printf '# Written by tools/platform.sh for lane %s.\nbuild --symlink_prefix=bazel-%s-\n' "$LANE" "$LANE"
    [ "$SUITE" != trixie ] || printf 'test --test_env=ONEDNN_MAX_CPU_ISA=AVX2\n'
  } > "$1/etc/bazel.bazelrc"
}

provision() {  # provision ROOTDIR: run tools/bootstrap.sh inside it
  local r=$1 start
  start=$(date +%s)
  set_state "$r" "provisioning"
  mount_into "$r"
  say "provisioning with tools/bootstrap.sh${VARIANT:+ (FX_BOOTSTRAP_VARIANT=$VARIANT)}"
  in_root "$r" tools/bootstrap.sh || die "tools/bootstrap.sh failed inside the $LANE root (above); the root is left marked broken and will be made anew"
  unmount_all
  set_state "$r" "ready $(provision_id)"
  say "provisioned in $(elapsed "$start")"
}

make_root() {
  local new=$DIR/root.new start
  start=$(date +%s)
  remove_tree "$new"
  check_archive
  say "making a $SUITE root with debootstrap (components $COMPONENTS) in $new"
  if ! debootstrap --variant=minbase --components="$COMPONENTS" "$SUITE" "$new" "$MIRROR" > "$DIR/debootstrap.log" 2>&1; then
    tail -n 15 "$DIR/debootstrap.log" >&2
    die "debootstrap failed (log: $DIR/debootstrap.log)"
  fi
  # debootstrap's sources.list names main only; apt inside needs the lane's components.
  echo "deb $MIRROR $SUITE ${COMPONENTS//,/ }" > "$new/etc/apt/sources.list"
  # sid's Release file is valid for a week only: a mirror or snapshot that lags
  # behind the clock makes apt refuse it. Signatures are still checked.
  [ "$SUITE" != sid ] || echo 'Acquire::Check-Valid-Until "false";' > "$new/etc/apt/apt.conf.d/99fx-platform"
  if [ "$PROVISION" = bootstrap ]; then
    # dpkg without fsync: a root whose making is interrupted is made anew anyway.
    echo force-unsafe-io > "$new/etc/dpkg/dpkg.cfg.d/fx-platform-unsafe-io"
  fi
  set_state "$new" "bare"
  say "debootstrap done in $(elapsed "$start")"
  [ "$PROVISION" != bootstrap ] || provision "$new"
  write_lane_bazelrc "$new"
  mv "$new" "$ROOT"
  say "root ready in $(elapsed "$start"): $ROOT, $(du -sh --one-file-system "$ROOT" | cut -f1)"
}

# ---------------------------------------------------------------------------
state=$(state_of "$ROOT")
if [ "${FX_PLATFORM_REBUILD:-0}" = 1 ] && [ -e "$ROOT" ]; then
  say "--rebuild: removing $ROOT"
  remove_tree "$ROOT"
elif [ -e "$ROOT" ]; then
  case "$state" in
    ready*|bare) ;;
    *) say "the root at $ROOT was left unfinished (state: $state) by an interrupted run: making it anew"
       remove_tree "$ROOT" ;;
  esac
fi
[ -e "$ROOT" ] || make_root

# A root whose tools/bootstrap.sh changed since it was provisioned gets what
# is new (bootstrap.sh installs only what is missing).
if [ "$PROVISION" = bootstrap ] && [ "$(state_of "$ROOT")" != "ready $(provision_id)" ]; then
  provision "$ROOT"
fi

write_lane_bazelrc "$ROOT"

if [ "${FX_PLATFORM_PREPARE:-0}" = 1 ]; then
  say "root ready: $ROOT ($(state_of "$ROOT"))"
  exit 0
fi

if [ "$PROVISION" = fresh ]; then
  # Every run on a fresh copy: an overlay whose upper layer is thrown away.
  remove_tree "$DIR/overlay"
  OVERLAY_DIR=$DIR/overlay
  mkdir -p "$OVERLAY_DIR/upper" "$OVERLAY_DIR/work" "$OVERLAY_DIR/merged"
  mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$OVERLAY_DIR/upper,workdir=$OVERLAY_DIR/work" "$OVERLAY_DIR/merged"
  MOUNTED+=("$OVERLAY_DIR/merged")
  RUN_ROOT=$OVERLAY_DIR/merged
else
  RUN_ROOT=$ROOT
fi

mount_into "$RUN_ROOT"
say "running in $RUN_ROOT: $*"
rc=0
in_root "$RUN_ROOT" "$@" || rc=$?
exit "$rc"
