#!/usr/bin/env bash
# scripts/make_run.sh (`make run`) picks glm_1024.ini when a CUDA device
# answers, else glm_cpu.ini on --backend cpu after one line saying that CPU
# timings exercise the pipeline and do not judge GPU kernels (run's own
# fall-back notice is then not printed: one notice, not two); an explicit
# scenario is used as
# given. A stand-in abbench records what it is asked; then the real one
# runs glm_cpu.ini (fake timer, --quick): every site fused byte-equal.
. "$(dirname "$0")/lib.sh"

cat >"$T/fake" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/calls"
if [ "$1 $2" = "backends --check" ]; then exit "$FAKE_CUDA"; fi
exit 0
SH
chmod +x "$T/fake"

expect_exit 0 "no GPU" env FAKE_CUDA=1 scripts/make_run.sh "$T/fake"
check "the note comes first" bash -c "head -1 '$T/out' | grep -q 'CPU timings exercise the pipeline and do not judge GPU kernels'"
check "the note is one line" test "$(grep -c 'CPU' "$T/out")" -eq 1
check "runs glm_cpu.ini" grep -q '^run scenarios/glm_cpu.ini --db' "$T/calls"
check "on the CPU backend by name, so that run does not print a second notice" \
	grep -q '^run scenarios/glm_cpu.ini --db .* --backend cpu$' "$T/calls"
check "(run names no fall-back when told the backend)" bash -c \
	"ABBENCH_FAKE_TIMER=1 '$AB' run scenarios/smoke.ini --backend cpu --quick --db '$T/n.db' --no-progress 2>&1 >/dev/null | grep -c 'backend auto' | grep -qx 0"
check "then shows it" grep -q '^show last' "$T/calls"
rm -f "$T/calls"
expect_exit 0 "a GPU answers" env FAKE_CUDA=0 scripts/make_run.sh "$T/fake"
check "no note" test ! -s "$T/out"
check "runs glm_1024.ini" grep -q '^run scenarios/glm_1024.ini --db' "$T/calls"
rm -f "$T/calls"
expect_exit 0 "an explicit scenario" env FAKE_CUDA=1 scripts/make_run.sh "$T/fake" scenarios/smoke.ini
check "used as given, no check" bash -c "head -1 '$T/calls' | grep -q '^run scenarios/smoke.ini'"

expect_exit 0 "glm_cpu.ini runs (fake timer)" env ABBENCH_FAKE_TIMER=1 "$AB" run scenarios/glm_cpu.ini --backend cpu \
	--quick --db "$T/g.db" --no-progress
expect_exit 0 "show" "$AB" show --db "$T/g.db"
check "six cases, every fused byte-equal" test "$(grep -c 'b byte-equal to a: yes' "$T/out")" -eq 6
sites() { grep -E '^site *=' "$1" | sort -u; }
check "the same sites as glm_1024.ini" test "$(sites scenarios/glm_cpu.ini)" = "$(sites scenarios/glm_1024.ini)"
finish
