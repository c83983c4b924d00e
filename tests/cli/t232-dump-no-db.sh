#!/usr/bin/env bash
# `run --dump DIR` whose database cannot be opened: the run fails before
# measuring and leaves no empty DIR behind (it made it, so it removes it);
# a DIR that existed (empty) before the run is left as it was; a run that
# wrote into DIR keeps what it wrote.
. "$(dirname "$0")/lib.sh"
export ABBENCH_FAKE_TIMER=1

expect_exit 3 "a database in a missing directory" \
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --dump "$T/dump" --db "$T/no/such/dir/x.db"
check "says which database" grep -q "no/such/dir/x.db" "$T/err"
check "no dump directory left" test ! -e "$T/dump"

mkdir "$T/mine"
expect_exit 3 "the same with a dump directory that exists" \
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --dump "$T/mine" --db "$T/no/such/dir/x.db"
check "the existing directory is kept" test -d "$T/mine"

expect_exit 0 "a run that can store dumps as before" \
	"$AB" run scenarios/smoke.ini --backend cpu --quick --no-progress --dump "$T/dump" --db "$T/ok.db"
check "the dump has its manifest" test -f "$T/dump/manifest.json"
finish
