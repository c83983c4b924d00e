"""One line per case of a stored run, read through `abbench show --format
json` (scripts are clients of the public interface): case, A1 / B / A2
medians, speedup, verdict, exactness. Usage: table.py TAG < show.json"""
import json
import sys

tag = sys.argv[1] if len(sys.argv) > 1 else ""
run = json.load(sys.stdin)
for c in run["cases"]:
    s = c["summary"]
    med = {sl["label"]: sl["median_ns"] / 1000.0 for sl in c["slots"]}
    meds = " / ".join(f"{med[k]:.2f}" for k in sorted(med, key=lambda k: (k[0] != "A", k)))
    sp = s.get("speedup") or {}
    print(f"{tag:<10} {c['name']:<22} {c['shape']:<16} {c['arm_a']:>14}/{c['arm_b']:<16} "
          f"A/B us {meds:<28} {sp.get('point', float('nan')):.3f}x  "
          f"{s.get('verdict', '?'):<22} byte-equal {s.get('b_byte_equal')}")
