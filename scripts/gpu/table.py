"""One line per case of a stored run, read through `abbench show --format
json` (scripts are clients of the public interface): case, A1 / B / A2
medians, speedup, verdict, exactness, and the host time of a call (each
slot's host_median_ns, issue 28) with the launch-bound mark: an arm whose
host time per call exceeds its GPU time (the summary's launch_bound, with
each slot's figures: its median under launch_gaps = hide, its kernels'
median under include).
Usage: table.py TAG < show.json"""
import json
import sys

tag = sys.argv[1] if len(sys.argv) > 1 else ""
run = json.load(sys.stdin)
hide = run.get("run", {}).get("launch_gaps") == "hide"
for c in run["cases"]:
    s = c["summary"]
    med = {sl["label"]: sl["median_ns"] / 1000.0 for sl in c["slots"]}
    host = {sl["label"]: sl["host_median_ns"] / 1000.0 for sl in c["slots"] if sl.get("host_median_ns") is not None}
    order = sorted(med, key=lambda k: (k[0] != "A", k))
    meds = " / ".join(f"{med[k]:.2f}" for k in order)
    hosts = " / ".join(f"{host[k]:.1f}" for k in order if k in host) or "n/a"
    # an arm's GPU time per call: its median under hide, its kernels' under include (analysis/hosttime.h)
    gpu = {sl["label"]: (sl["median_ns"] if hide else sl.get("kernel_median_ns") or 0) / 1000.0 for sl in c["slots"]}
    bound = [f"{sl['arm']}: GPU {gpu[sl['label']]:.1f} us, host {host[sl['label']]:.1f} us a call"
             for sl in c["slots"] if sl["label"] in host and gpu[sl["label"]] > 0 and host[sl["label"]] > gpu[sl["label"]]]
    if "launch_bound" in s:  # the summary's own mark (arms pooled over their slots) decides
        bound = (bound or ["the summary's mark"]) if s["launch_bound"] else []
    sp = s.get("speedup") or {}
    print(f"{tag:<10} {c['name']:<22} {c['shape']:<16} {c['arm_a']:>14}/{c['arm_b']:<16} "
          f"A/B us {meds:<28} {sp.get('point', float('nan')):.3f}x  "
          f"{s.get('verdict', '?'):<22} byte-equal {s.get('b_byte_equal')}  host us {hosts}"
          + (f"  LAUNCH-BOUND ({'; '.join(sorted(set(bound)))})" if bound else ""))
