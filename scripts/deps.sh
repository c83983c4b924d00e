#!/usr/bin/env bash
# Installs the Debian packages abbench needs to build, test and plot, when
# they are missing: as root it runs apt-get (update first); otherwise it
# prints the exact command to run. The CUDA toolkit is not installed here:
# the Makefile builds the CUDA backend when nvcc is found.
#
# `scripts/deps.sh --programs` prints the PROGRAM:PACKAGE table below: the
# programs the tests and scripts call that a minimal Debian root lacks.
# tests/cli/t000-deps.sh checks every command the tests and scripts call
# against it, so a new tool cannot be used without being installed here.
set -euo pipefail

# Libraries and toolchain (no program of their own that a test calls).
# libclang-rt-dev: libFuzzer and the sanitizers' runtimes for clang (make fuzz).
# python3-yaml and python3-jsonschema: modules the tests import (tests/tools).
# The two cmark-gfm packages: GitHub's markdown, for the dashboard's report
# pages (linked statically, as both ship a .a).
# libpython3.11 and python3-numpy: the Python runtime of Python arms
# (harness/arms/pyrt.h) loads Debian's libpython at run time, and its tests
# hand numpy arrays to /usr/bin/python3.
libraries=(build-essential libsqlite3-dev libcsv-dev libinih-dev libssl-dev libcmocka-dev libjansson-dev python3-yaml python3-jsonschema libpython3.11 python3-numpy
	libclang-rt-dev)
libraries+=(libcmark-gfm-dev libcmark-gfm-extensions-dev)
# Programs the tests, `make run` and the scripts call, with their package.
programs=(
	gnuplot:gnuplot-nox
	python3:python3
	sqlite3:sqlite3
	make:make
	git:git
	cc:gcc
	ar:binutils
	nm:binutils
	readelf:binutils
	clang:clang
	shellcheck:shellcheck
	chromium:chromium
	jq:jq
	# the single-node Slurm cluster of tests/cli/t250 (Debian's slurm-wlm:
	# its daemons and client, and munge for their authentication)
	munged:munge
	mungekey:munge
	slurmctld:slurmctld
	slurmd:slurmd
	sbatch:slurm-client
	scontrol:slurm-client
	scancel:slurm-client
)

if [ "${1:-}" = --programs ]; then
	printf '%s\n' "${programs[@]}"
	exit 0
fi

packages=("${libraries[@]}")
for p in "${programs[@]}"; do packages+=("${p#*:}"); done
missing=()
for p in "${packages[@]}"; do
	case " ${missing[*]} " in *" $p "*) continue ;; esac # a package of two programs
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
