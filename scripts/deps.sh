#!/usr/bin/env bash
# Installs the Debian packages abbench needs, when they are missing: as
# root it runs apt-get (update first); otherwise it prints the exact
# command to run. The CUDA toolkit is not installed here: the Makefile
# builds the CUDA backend when nvcc is found.
#
#   scripts/deps.sh run     what building and `make run` need: the toolchain,
#                           the libraries abbench links, git, gnuplot
#   scripts/deps.sh [test]  that and what the tests need besides (`make test`,
#                           `make deps`): cmocka, Python modules, clang for
#                           the fuzzers, shellcheck, jq, sqlite3, headless
#                           Chromium (the dashboard's check), munge and
#                           Slurm (the single-node cluster of t250)
#   scripts/deps.sh --programs   the PROGRAM:PACKAGE table of both below: the
#                           programs the tests and scripts call that a
#                           minimal Debian root lacks
#
# tests/cli/t000-deps.sh checks every command the tests and scripts call
# against --programs, so a new tool cannot be used without being installed
# here; it also checks that the run set installs no test-only package.
set -euo pipefail

# Libraries and toolchain (no program of their own that a test calls).
# Building: the libraries abbench links (csv, inih, jansson and the two
# cmark-gfm packages, GitHub's markdown for the dashboard's report pages,
# statically; sqlite and libcrypto dynamically).
run_libraries=(build-essential libsqlite3-dev libcsv-dev libinih-dev libssl-dev libjansson-dev)
run_libraries+=(libcmark-gfm-dev libcmark-gfm-extensions-dev)
# Testing: cmocka (the unit tests); python3-yaml and python3-jsonschema,
# modules the tests import (tests/tools); libpython3.11 and python3-numpy,
# the Python runtime of Python arms (harness/arms/pyrt.h loads Debian's
# libpython at run time; its tests hand numpy arrays to /usr/bin/python3);
# libclang-rt-dev: libFuzzer and the sanitizers' runtimes for clang (make
# fuzz, the last step of make test).
test_libraries=(libcmocka-dev python3-yaml python3-jsonschema libpython3.11 python3-numpy libclang-rt-dev)
# Programs, with their package. `make run`: make and the compiler build,
# git names the commit built (the Makefile), ar archives the library,
# gnuplot draws the report's charts.
run_programs=(
	make:make
	cc:gcc
	ar:binutils
	git:git
	gnuplot:gnuplot-nox
)
# Programs the tests and the scripts they run call.
test_programs=(
	python3:python3
	sqlite3:sqlite3
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

case "${1:-test}" in
--programs)
	printf '%s\n' "${run_programs[@]}" "${test_programs[@]}"
	exit 0
	;;
--packages) # the packages of a set, one a line (t000 compares the sets)
	set=${2:-test}
	;;
run) set="run" ;;
test) set="test" ;;
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "deps.sh: unknown set '$1' (run, test, --programs)" >&2
	exit 2
	;;
esac
[ "$set" = run ] || [ "$set" = test ] || { echo "deps.sh: unknown set '$set' (run or test)" >&2 && exit 2; }

packages=("${run_libraries[@]}")
for p in "${run_programs[@]}"; do packages+=("${p#*:}"); done
if [ "$set" = test ]; then
	packages+=("${test_libraries[@]}")
	for p in "${test_programs[@]}"; do packages+=("${p#*:}"); done
fi
unique=()
for p in "${packages[@]}"; do
	case " ${unique[*]} " in *" $p "*) continue ;; esac # a package of two programs
	unique+=("$p")
done
if [ "${1:-}" = --packages ]; then
	printf '%s\n' "${unique[@]}"
	exit 0
fi

missing=()
for p in "${unique[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "abbench: missing packages (for make $set): ${missing[*]}" >&2
	echo "abbench: run as root: $cmd" >&2
	exit 1
fi
echo "abbench: installing, for make $set: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
