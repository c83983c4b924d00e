#!/usr/bin/env bash
# The Slurm recipe on a real cluster (t175 runs it against a stand-in sbatch,
# for speed). A single-node Slurm cluster lives in the test's own directory:
# munged with its own key and socket, slurmctld and slurmd on ports chosen
# now, a generated slurm.conf (proctrack/linuxproc, task/none, no
# accounting, one node with 12 CPUs and 3 stand-in GPUs as gres, so that
# shard.sbatch's --cpus-per-task=4 and --gres=gpu:1 are honoured as written).
# scripts/slurm/submit.sh runs for real on smoke.ini with 3 shards, on the
# CPU backend's fake timer:
#   - against the baseline: every array task and the merge-and-gate job
#     COMPLETED with exit 0, the gate job started after the last shard
#     ended (afterany), PASS in gate.md and gate.json, and the merged run set
#     equals one run of the whole scenario (export CSV and JSON, ids and
#     times aside, as t172);
#   - a regression (b = eager): the gate job FAILED with exit 1, verdict FAIL;
#   - shards that fail (a device they lack): the tasks exit 2 and the
#     merge-and-gate job still runs (afterany) and exits 2.
# Every daemon it started is stopped by pid, on failure too (EXIT trap), and
# no process of the cluster is left. It skips, saying why, only where the
# cluster cannot start: not root (SlurmUser=root), the packages missing, no
# short host name; and under the sanitizer build (see below).
. "$(dirname "$0")/lib.sh"
conf=$T/slurm/slurm.conf
skip() { echo "SKIP: $*"; exit 0; }

# The sanitizer suite (make sanitize) runs this same file on build-san: the
# abbench commands the jobs run (run --shard, merge, gate, report, export)
# are the ones t172 and t175 run under ASan + UBSan on the same scenario;
# what this test adds is the cluster around them, which the sanitizers do
# not see. So it runs once, in the plain suite, and keeps `make test` short.
if grep -q __asan_init "$AB"; then
	skip "the Slurm cluster test runs in the plain suite; this abbench is the sanitizer build, whose commands t172 and t175 run"
fi
[ "$(id -u)" -eq 0 ] || skip "the cluster's daemons run as root (SlurmUser=root) and this test runs as uid $(id -u)"
PATH=$PATH:/usr/sbin:/sbin # the daemons' home, missing from some users' PATH
for c in munged mungekey slurmctld slurmd sbatch scontrol scancel; do
	command -v "$c" >/dev/null || skip "$c is not installed (make deps installs munge and slurm-wlm's packages)"
done
host=$(hostname -s) || true
[ -n "$host" ] || skip "no short host name (hostname -s) to name the node"

# --- the cluster -------------------------------------------------------------

daemons=() # pids, in the order started
submitted=() # job ids
stopped=

# ours: the processes (pid and name) whose working directory or an open
# file lies in $T: the daemons, slurmstepd and the jobs (which start in
# OUT_DIR), nothing of the machine's. Found through /proc by python3.
ours() {
	python3 - "$T" "$$" <<'PY'
import os, sys
root, me = sys.argv[1] + "/", {os.getpid(), int(sys.argv[2])}
for p in filter(str.isdigit, os.listdir("/proc")):
    if int(p) in me:
        continue
    try:
        paths = [os.readlink(f"/proc/{p}/cwd")]
        paths += [os.readlink(f"/proc/{p}/fd/{fd}") for fd in os.listdir(f"/proc/{p}/fd")]
        name = open(f"/proc/{p}/comm").read().strip()
    except OSError:
        continue  # gone meanwhile, or not ours to read
    if any((x + "/").startswith(root) for x in paths):
        print(p, name)
PY
}

# gone PID: the daemon (a child of this shell) has exited and is reaped.
gone() {
	local st
	kill -0 "$1" 2>/dev/null || return 0
	read -r st 2>/dev/null <"/proc/$1/stat" || return 0
	st=${st##*) }
	[ "${st%% *}" = Z ] || return 1
	wait "$1" 2>/dev/null
	return 0
}

# stop_cluster: cancel what is still queued or running, then SIGTERM each
# daemon by its pid (slurmd, slurmctld, munged) and wait for it, 15 s at
# most, then SIGKILL. Prints what it had to force; returns 1 if anything.
stop_cluster() {
	local pid i rc=0 left
	[ -z "$stopped" ] || return 0
	stopped=1
	if [ ${#submitted[@]} -gt 0 ] && [ ${#daemons[@]} -ge 2 ] && ! gone "${daemons[1]}"; then
		SLURM_CONF=$conf scancel "${submitted[@]}" 2>/dev/null || true
	fi
	for i in $(seq $((${#daemons[@]} - 1)) -1 0); do
		pid=${daemons[i]}
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 150); do gone "$pid" && break; sleep 0.1; done
		if ! gone "$pid"; then
			echo "# pid $pid did not stop on SIGTERM within 15 s: SIGKILL"
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			rc=1
		fi
	done
	left=$(ours)
	if [ -n "$left" ]; then
		echo "# left behind, killed: $left" | tr '\n' ' '
		echo
		# shellcheck disable=SC2046 # one pid a word
		kill -KILL $(cut -d' ' -f1 <<<"$left") 2>/dev/null
		rc=1
	fi
	return $rc
}
cleanup() {
	stop_cluster || echo "not ok - the cluster stopped cleanly on exit"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# logs: the last lines of every daemon's log, for a failure's context.
logs() {
	local f
	for f in "$T"/munge/munged.log "$T"/slurm/*.log; do
		[ -f "$f" ] || continue
		echo "    --- $f"
		grep -v -e 'pmix' -e 'is not a valid character or block device' "$f" | tail -8 | sed 's/^/    /'
	done
}
# alive: every daemon started is still running; else says which exited.
alive() {
	local pid
	for pid in "${daemons[@]}"; do
		if gone "$pid"; then
			echo "# pid $pid, a daemon of the cluster, has exited"
			return 1
		fi
	done
}
# until_ SECONDS COMMAND...: true as soon as COMMAND is (polled every
# 0.2 s, SECONDS of wall time at most); false at once if a daemon died.
until_() {
	local end=$((SECONDS + $1))
	shift
	while [ "$SECONDS" -lt "$end" ]; do
		alive || return 1
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
must() { # description, command...: a step the rest needs
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else
		fail "$desc"
		logs
		finish
	fi
}

# munge: key, socket, pid, seed and log in $T/munge; its socket's directory
# must be searchable by everyone (munged checks), so $T too (mode 0711).
chmod 711 "$T"
mkdir -m 755 "$T/munge"
mkdir -p "$T/slurm/state" "$T/slurm/spool"
export SLURM_CONF=$conf
start=$SECONDS
mungekey --create --keyfile="$T/munge/munge.key"
munged --foreground --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" \
	2>>"$T/munge/munged.log" &
daemons+=($!)
must "munged answers on its socket in the test's directory" until_ 60 test -S "$T/munge/munge.socket"

# Two free ports on the loopback, chosen now (bound together, so distinct).
read -r ctld_port slurmd_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
# Stand-in GPU files: slurmd counts a gpu gres by its files (it logs that
# they are no device nodes, and nothing here opens them).
touch "$T/slurm/gpu0" "$T/slurm/gpu1" "$T/slurm/gpu2"
cat >"$T/slurm/gres.conf" <<EOF
NodeName=$host Name=gpu File=$T/slurm/gpu[0-2]
EOF
cat >"$conf" <<EOF
# generated by tests/cli/t250-slurm-cluster.sh: a single-node cluster in $T
ClusterName=abbench-t250
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$T/slurm/state
SlurmdSpoolDir=$T/slurm/spool
SlurmctldPidFile=$T/slurm/slurmctld.pid
SlurmdPidFile=$T/slurm/slurmd.pid
SlurmctldLogFile=$T/slurm/slurmctld.log
SlurmdLogFile=$T/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
# the node below has more CPUs than this machine: take the configuration
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=12 Gres=gpu:3 State=UNKNOWN
PartitionName=t250 Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -f "$conf" >/dev/null 2>&1 &
daemons+=($!)
slurmd -D -f "$conf" -N "$host" >/dev/null 2>&1 &
daemons+=($!)
node_idle() { scontrol show node "$host" -o 2>/dev/null | grep -q 'State=IDLE '; }
must "slurmctld (port $ctld_port) and slurmd (port $slurmd_port) up, node $host idle" until_ 120 node_idle
check "the daemons are the pids started (pid files agree)" test "$(cat "$T/munge/munged.pid" "$T/slurm/slurmctld.pid" \
	"$T/slurm/slurmd.pid" | tr '\n' ' ')" = "${daemons[*]} "
echo "# cluster up in $((SECONDS - start)) s"

# --- the recipe --------------------------------------------------------------

export ABBENCH_FAKE_TIMER=1
sed 's/^min_samples = .*/min_samples = 20/; s/^max_samples = .*/max_samples = 20/; s/^max_time_ms = .*/max_time_ms = 60000/' \
	scenarios/smoke.ini >"$T/s.ini"
sed 's/^b = fused/b = eager/' "$T/s.ini" >"$T/reg.ini"
db=$T/nightly.db
"$AB" run "$T/s.ini" --backend cpu --no-progress --db "$db" --label whole >/dev/null
"$AB" baseline set nightly --db "$db" >/dev/null

# job_field ID FIELD: FIELD of each job record of ID (an array: per task).
job_field() {
	scontrol show job "$1" -o 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# ended ID...: every record of every job ID is in a final state, or
# pending on a dependency that can never be met (afterok on failed shards:
# Slurm keeps such a job; the checks then say what it is).
ended() {
	local id final='COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED'
	for id in "$@"; do
		scontrol show job "$id" -o >"$T/job" 2>/dev/null && [ -s "$T/job" ] || return 1
		! grep -qvE " JobState=($final) | Reason=DependencyNeverSatisfied " "$T/job" || return 1
	done
}
# is DESCRIPTION GOT WANTED: ok when equal, else says what it got.
is() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '${2//$'\n'/, }'"; fi; }
# submit SET SCENARIO RUN_OPTS: submit.sh with 3 shards against nightly;
# sets $array and $gate from what it prints, waits (300 s at most: a loaded machine).
submit() {
	local t0=$SECONDS
	expect_exit 0 "submit.sh $(basename "$2") 3 nightly (run set $1, $3)" env ABBENCH="$AB" DB="$db" RUN_OPTS="$3" \
		RUN_SET="$1" OUT_DIR="$T/out-$1" scripts/slurm/submit.sh "$2" 3 nightly
	array=$(sed -n 's/.*shards job \([0-9]*\) (array 1-3), merge and gate job \([0-9]*\) (afterany:\1).*/\1/p' "$T/out")
	gate=$(sed -n 's/.*shards job \([0-9]*\) (array 1-3), merge and gate job \([0-9]*\) (afterany:\1).*/\2/p' "$T/out")
	must "it prints the array's and the gate job's ids ($array, $gate)" test -n "$array" -a -n "$gate"
	submitted+=("$array" "$gate")
	must "all jobs of run set $1 ended" until_ 300 ended "$array" "$gate"
	echo "# run set $1: jobs ended $((SECONDS - t0)) s after submission"
}
# tasks ID: "TASK STATE EXIT" for each task of array ID, by task.
tasks() {
	paste -d' ' <(job_field "$1" ArrayTaskId) <(job_field "$1" JobState) <(job_field "$1" ExitCode) | sort -n
}
# after_shards: the gate job started no earlier than the last shard ended.
after_shards() {
	local last
	last=$(job_field "$array" EndTime | sort | tail -1)
	[ -n "$last" ] && [[ ! "$(job_field "$gate" StartTime)" < "$last" ]]
}

# 1. the run set against the baseline: pass, and the same as one run
submit s1 "$T/s.ini" "--backend cpu"
is "3 tasks, each COMPLETED with exit 0" "$(tasks "$array")" "$(printf '%s COMPLETED 0:0\n' 1 2 3)"
check "each task wrote its shard: shard-1.db shard-2.db shard-3.db" test -s "$T/out-s1/shard-1.db" -a -s "$T/out-s1/shard-2.db" -a -s "$T/out-s1/shard-3.db"
check "and its log in OUT_DIR, naming its shard" grep -q "shard 2/3 of run set 's1'" "$T/out-s1/slurm-shard-2.out"
is "the merge-and-gate job COMPLETED with exit 0" "$(job_field "$gate" JobState) $(job_field "$gate" ExitCode)" "COMPLETED 0:0"
check "it started after the last shard ended (afterany)" after_shards
check "its log gives the gate's exit" grep -q "run set s1: gate exit 0" "$T/out-s1/slurm-merge-gate-$gate.out"
check "the verdict is PASS" grep -q '^## gate: PASS' "$T/out-s1/gate.md"
check "and its JSON" grep -q '"verdict": "pass"' "$T/out-s1/gate.json"
check "and the report" test -s "$T/out-s1/report/report.md"
expect_exit 0 "show set:s1" "$AB" show set:s1 --db "$db"
check "the merged set has its 3 shards" grep -q "^run set 's1': 3 shards, runs" "$T/out"
"$AB" export whole --db "$db" --csv "$T/w.csv" --json "$T/w.json"
"$AB" export set:s1 --db "$db" --csv "$T/n.csv" --json "$T/n.json"
cols() { python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): r.pop("run_id"); print(r)' "$1"; }
check "export CSV of the set equals the single run's: $(($(wc -l <"$T/n.csv") - 1)) rows, run_id aside" \
	cmp -s <(cols "$T/w.csv") <(cols "$T/n.csv")
check "export JSON equal, sample for sample (ids and times aside)" \
	cmp -s <(python3 tests/tools/json_strip.py "$T/w.json") <(python3 tests/tools/json_strip.py "$T/n.json")
check "every slot's samples are there ($(grep -c '"samples_ns"' "$T/n.json") slots)" test "$(grep -c '"samples_ns"' "$T/n.json")" -eq 15

# 2. a regression: the gate job's exit status carries the verdict
submit r1 "$T/reg.ini" "--backend cpu"
is "3 tasks COMPLETED with exit 0" "$(tasks "$array")" "$(printf '%s COMPLETED 0:0\n' 1 2 3)"
is "the merge-and-gate job FAILED with exit 1" "$(job_field "$gate" JobState) $(job_field "$gate" ExitCode)" "FAILED 1:0"
check "the verdict is FAIL" grep -q '^## gate: FAIL' "$T/out-r1/gate.md"

# 3. shards that fail: the merge-and-gate job runs all the same, exit 2
submit f1 "$T/s.ini" "--backend cpu --device 7"
is "3 tasks FAILED with exit 2 (a device they lack)" "$(tasks "$array")" "$(printf '%s FAILED 2:0\n' 1 2 3)"
is "the merge-and-gate job ran after them (afterany) and FAILED with exit 2" \
	"$(job_field "$gate" JobState) $(job_field "$gate" ExitCode)" "FAILED 2:0"
check "it says why: no shard files" grep -q "no shard files in $T/out-f1" "$T/out-f1/slurm-merge-gate-$gate.out"
check "nothing was written in the directory sbatch ran from" test -z "$(find . -maxdepth 1 -newer "$T/s.ini" -name '*.out')"

# --- stop ---------------------------------------------------------------------

check "the cluster's processes are found by what they hold in \$T (the 3 daemons among them)" \
	test "$(ours | cut -d' ' -f1 | grep -cxF -e "${daemons[0]}" -e "${daemons[1]}" -e "${daemons[2]}")" -eq 3
t0=$SECONDS
check "every daemon stopped on SIGTERM by its pid, nothing of the cluster left" stop_cluster
for pid in "${daemons[@]}"; do
	check "pid $pid is gone (kill -0)" bash -c "! kill -0 $pid 2>/dev/null"
done
echo "# stopped in $((SECONDS - t0)) s; $((SECONDS - start)) s in all"
finish
