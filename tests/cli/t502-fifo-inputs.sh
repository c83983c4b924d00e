#!/usr/bin/env bash
# A FIFO where abbench reads a file never hangs it (issue 31 row 3): every
# file abbench reads goes through common/infile.h, which opens it
# O_NONBLOCK and refuses what fstat does not call a regular file. As the
# scenario itself, an included site file, a Python module, a plugin
# library, a cubin binary, a Triton metadata JSON (run), a scenario given
# to `abbench sites`, a device profile (show) and a gate's
# --exclude-cases: exit 2 at once, naming the file and 'it is a FIFO',
# no database made. A directory in those places is refused the same way.
# Before: open(2) of the FIFO waited for a writer (the run and sites hung
# until timeout killed them, exit 124). Each command runs under timeout.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1 ABBENCH_PYTHON=/usr/bin/python3
tmo=${FIFO_TIMEOUT:-20} # seconds a command may take before it counts as hung
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$T" || exit 1
for f in fifo.ini site.ini arm.py libarm.so k.cubin k.json excl.txt; do mkfifo "$f"; done
mkdir profiles_fifo adir.py && mkfifo profiles_fifo/h.ini
scn() { # FILE [scenario lines] -- [arm lines]
	local file=$1; shift
	{ printf '[scenario]\nname = f\nbackend = cpu\nmin_samples = 3\nmax_samples = 3\n'
	  while [ $# -gt 0 ] && [ "$1" != -- ]; do echo "$1"; shift; done; [ $# -gt 0 ] && shift
	  printf '[arms]\na = eager\nb = mine\n[arm mine]\n'
	  for l in "$@"; do echo "$l"; done
	  printf '[case gate]\nsite = residual_gate_add\nshape = 1x64x256\n'; } >"$file"
}
scn inc.ini 'include = site.ini' -- 'type = python' 'module = rga.py' 'function = f'
scn py.ini -- 'type = python' "module = arm.py" 'function = f'
scn pydir.ini -- 'type = python' "module = adir.py" 'function = f'
scn plugin.ini -- 'type = plugin' 'library = libarm.so' 'name = x'
scn cubin.ini -- 'type = cubin' 'site = residual_gate_add' 'binary = k.cubin' 'kernel = k' 'grid = 1' 'block = 32' \
	'params = x, ff, gate, out'
scn triton.ini -- 'type = cubin' 'site = residual_gate_add' 'triton = k.json' 'grid = 1' 'params = x, ff, gate, out'
# refused CMD... : exit 2 within the timeout, the FIFO named
refused() {
	local want=$1 desc=$2; shift 2
	expect_exit 2 "$desc" timeout "$tmo" "$@"
	check "$desc: names '$want'" grep -q "'[^']*$want': it is a FIFO, not a regular file" "$T/err"
	check "$desc: one line" test "$(wc -l <"$T/err")" -eq 1
}
refused fifo.ini "run of a FIFO scenario" "$AB" run fifo.ini --db r.db --no-progress
refused site.ini "run of a scenario including a FIFO" "$AB" run inc.ini --db r.db --no-progress
refused arm.py "run with a FIFO Python module" "$AB" run py.ini --db r.db --no-progress
refused libarm.so "run with a FIFO plugin library" "$AB" run plugin.ini --db r.db --no-progress
refused k.cubin "run with a FIFO cubin binary" "$AB" run cubin.ini --db r.db --no-progress
refused k.json "run with a FIFO Triton metadata file" "$AB" run triton.ini --db r.db --no-progress
refused fifo.ini "sites of a FIFO scenario" "$AB" sites fifo.ini
expect_exit 2 "run with a directory as the Python module" timeout "$tmo" "$AB" run pydir.ini --db r.db --no-progress
check "it says a directory" grep -q "'[^']*adir.py': it is a directory, not a regular file" "$T/err"
check "no database was made by any refusal" test ! -e r.db
"$AB" run "$root/scenarios/smoke.ini" --backend cpu --quick --no-progress --only ln_modulate_short --db g.db >/dev/null
refused excl.txt "gate with a FIFO --exclude-cases" "$AB" gate 1 --baseline 1 --db g.db --exclude-cases excl.txt
# a profile that cannot be read is a warning of show (it prints without the profile's bars)
expect_exit 0 "show with a FIFO among the profiles" env ABBENCH_PROFILES="$T/profiles_fifo" timeout "$tmo" "$AB" show 1 --db g.db
check "it names the profile" grep -q "warning: show: cannot open '[^']*h.ini': it is a FIFO, not a regular file" "$T/err"
finish
