#!/usr/bin/env bash
# scripts/fuzz.sh BUILD SECONDS - runs each libFuzzer harness BUILD/fuzz/fuzz_NAME
# for SECONDS on its corpus and says what it did; fails on the first crash,
# leak, hang (10 s for one input) or sanitizer report.
#
# Harnesses: scenario and profile (the INI parsers), cubin (cubin, fatbin
# and PTX headers), triton (Triton's metadata JSON), store (a mutated
# database through every reader and merge: tests/fuzz/fuzz_store.c), cert
# (a certificate, sealed anew, and a signature log's lines: fuzz_cert.c).
#
# Corpus: tests/fuzz/corpus/NAME (hand-written seeds and every input that
# ever crashed, kept as a regression) plus the tree's own files of that
# kind (scenarios/, tests/scenarios/ for the scenario parser; profiles/ for
# the profile parser; build/examples/cubin, the example kernels of a CUDA
# build, for the cubin reader; the database fuzz_store builds, written to
# BUILD/seeds/store, for the store), all run first; new inputs go to BUILD/corpus/NAME,
# kept between runs, never into the tree. An input that fails is saved as
# BUILD/crashes/NAME/crash-* (or leak-, timeout-): fix the parser, then copy
# the input into tests/fuzz/corpus/NAME so that every later run replays it.
set -uo pipefail
build=${1:?usage: scripts/fuzz.sh BUILD SECONDS}
seconds=${2:?usage: scripts/fuzz.sh BUILD SECONDS}
cd "$(dirname "$0")/.." || exit 2

seeds_of() { # NAME: the read-only seed directories of a harness
	echo "tests/fuzz/corpus/$1"
	case $1 in
	scenario) echo scenarios tests/scenarios tests/scenarios/bad ;;
	profile) echo profiles ;;
	cubin) [ -d build/examples/cubin ] && echo build/examples/cubin ;;
	store) echo "$build/seeds/store" ;;
	esac
}

max_len_of() { # NAME: the largest input libFuzzer makes (a database image needs more)
	case $1 in
	store) echo 65536 ;;
	*) echo 16384 ;;
	esac
}

failed=0
for bin in "$build"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	work="$build/corpus/$name" crashes="$build/crashes/$name"
	mkdir -p "$work" "$crashes" "$build/seeds/$name"
	log="$build/fuzz-$name.log"
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	# shellcheck disable=SC2046
	FUZZ_SEED_DIR="$build/seeds/$name" "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$(max_len_of "$name")" -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$work" \
		$(seeds_of "$name") >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	corpus=$(find "$work" -type f | wc -l)
	if [ "$rc" -eq 0 ]; then
		echo "fuzz $name: ${execs:-?} inputs in ${seconds}s, ${cov:-cov: ?} edges, corpus $corpus, no failure"
	else
		failed=$((failed + 1))
		echo "fuzz $name: FAILED (exit $rc) after ${execs:-?} inputs; the input is in $crashes/:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -8 | sed 's/^/    /'
		echo "    full log: $log"
	fi
done
[ "$failed" -eq 0 ]
