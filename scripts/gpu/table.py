"""One line per case of a stored run, read through `abbench show --format
json` (scripts are clients of the public interface): case, A1 / B / A2
medians, speedup, verdict, exactness, and the host time of a call (A and B
medians, issue 28) with the launch-bound mark: an arm whose host time per
call exceeds its GPU time (its median under launch_gaps = hide).
Usage: table.py TAG [DB] < show.json

The host figures come from the JSON once its printers carry them (the
summary's per-arm host figures and launch_bound); until then from the
database DB, the slots' host_median_ns (migration 10), read-only."""
import json
import sqlite3
import sys

tag = sys.argv[1] if len(sys.argv) > 1 else ""
db = sys.argv[2] if len(sys.argv) > 2 else None
run = json.load(sys.stdin)
hide = run.get("run", {}).get("launch_gaps") == "hide"


def host_from_db(run_id):
    """{(case, slot label): host median ns} of the run's slots, {} without them."""
    if not db or run_id is None:
        return {}
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        rows = con.execute("SELECT c.name, s.label, s.host_median_ns FROM slots s JOIN cases c ON c.id = s.case_id "
                           "WHERE c.run_id = ?", (run_id,)).fetchall()
    except sqlite3.Error:
        return {}
    return {(c, l): h for c, l, h in rows if h is not None}


host_db = host_from_db(run.get("run", {}).get("id"))
for c in run["cases"]:
    s = c["summary"]
    med = {sl["label"]: sl["median_ns"] / 1000.0 for sl in c["slots"]}
    host = {sl["label"]: sl["host_median_ns"] / 1000.0 for sl in c["slots"] if sl.get("host_median_ns") is not None}
    if not host:
        host = {l: h / 1000.0 for (n, l), h in host_db.items() if n == c["name"]}
    order = sorted(med, key=lambda k: (k[0] != "A", k))
    meds = " / ".join(f"{med[k]:.2f}" for k in order)
    hosts = " / ".join(f"{host[k]:.1f}" for k in order if k in host) or "n/a"
    bound = [f"{sl['arm']}: GPU {med[sl['label']]:.1f} us, host {host[sl['label']]:.1f} us a call"
             for sl in c["slots"] if sl["label"] in host and hide and host[sl["label"]] > med[sl["label"]]]
    if "launch_bound" in s:  # the summary's own mark, once the JSON carries it
        bound = bound if s["launch_bound"] else []
    sp = s.get("speedup") or {}
    print(f"{tag:<10} {c['name']:<22} {c['shape']:<16} {c['arm_a']:>14}/{c['arm_b']:<16} "
          f"A/B us {meds:<28} {sp.get('point', float('nan')):.3f}x  "
          f"{s.get('verdict', '?'):<22} byte-equal {s.get('b_byte_equal')}  host us {hosts}"
          + (f"  LAUNCH-BOUND ({'; '.join(sorted(set(bound)))})" if bound else ""))
