#!/usr/bin/env bash
# Installs the Debian packages abbench needs to build, test and plot, when
# they are missing: as root it runs apt-get (update first); otherwise it
# prints the exact command to run. The CUDA toolkit is not installed here:
# the Makefile builds the CUDA backend when nvcc is found.
set -euo pipefail

packages=(build-essential libsqlite3-dev libcsv-dev libinih-dev libssl-dev libcmocka-dev gnuplot-nox)
missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "abbench: missing packages: ${missing[*]}" >&2
	echo "abbench: run as root: $cmd" >&2
	exit 1
fi
echo "abbench: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
