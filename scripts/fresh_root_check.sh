#!/usr/bin/env bash
# The README's promise, checked as a new user would meet it: a minimal
# Debian 12 root (debootstrap --variant=minbase, plus make, git and
# ca-certificates), the CUDA toolkit bind-mounted at /usr/local/cuda, a
# fresh clone of this repository, then `make test` and `make run` as root.
# Needs root, debootstrap and a Debian mirror; takes 10-20 minutes.
# Usage: scripts/fresh_root_check.sh [DIR]   (default: a new temporary dir)
# Prints each command's last lines and exit status; exits non-zero when
# either command failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$(mktemp -d /var/tmp/abbench-root.XXXXXX)}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "fresh_root_check: needs root" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh_root_check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

if [ ! -x "$root/usr/bin/make" ]; then
	echo "== debootstrap minbase into $root" >&2
	debootstrap --variant=minbase --include=make,git,ca-certificates bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
		{ tail -20 "$root.debootstrap.log"; exit 3; }
fi
cleanup() {
	for m in usr/local/cuda proc dev/pts dev sys; do umount "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
mkdir -p "$root/usr/local/cuda"
[ -d /usr/local/cuda ] && mount --bind -o ro /usr/local/cuda "$root/usr/local/cuda"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t sysfs sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -rf "$root/root/abbench"
git clone -q "$repo" "$root/root/abbench"

status=0
for target in test run; do
	echo "== make $target (fresh root)" >&2
	start=$(date +%s)
	if chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/abbench && make $target" >"$root.make-$target.log" 2>&1; then rc=0; else rc=$?; fi
	tail -15 "$root.make-$target.log"
	echo "make $target: exit $rc in $(( $(date +%s) - start )) s (log $root.make-$target.log)"
	[ "$rc" -eq 0 ] || status=1
done
exit $status
