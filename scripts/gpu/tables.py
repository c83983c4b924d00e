#!/usr/bin/env python3
"""tables.py - the closing tables of the GPU stage scripts, read from the
JSON documents each stage wrote with lib.sh's ab_json (abbench export
and show --format json, docs/JSON.md) into one folder, DIR/RUN.export.json
and DIR/RUN.show.json; never from the database. Standard library only.

  tables.py floor DIR       floor.sh: copy floors, the span, graph timing
  tables.py sites DIR RUN.. sites.sh: B median, GB/s and % of copy, exactness
  tables.py triton DIR RUN..triton.sh: every slot, its bytes and kernels
  tables.py kernels DIR RUN.. kernels.sh: slot medians, md5 agreement, B/A
  tables.py sweep DIR RUN   sweeps.sh: a sweep's speedup and B GB/s per value
  tables.py stopping DIR OLD NEW  sweeps.sh: two runs' slots side by side

Exit status: 0; 1 when a table finds what its stage calls a failure
(an md5 that differs, a case not byte-equal that should be); 2 when a
document is missing or not abbench's.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abjson  # noqa: E402  (beside this file)
from abjson import arm_slots, slot, slot_md5s, us  # noqa: E402


def doc(folder, run, kind):
    """The run's document of kind ('export', 'show'), None when the stage wrote none."""
    path = os.path.join(folder, f"{run}.{kind}.json")
    return abjson.load(path, f"abbench.{kind}") if os.path.exists(path) else None


# ---- floor.sh ---------------------------------------------------------------

# glm_1024's md5s as docs/PERF_NOTES.md recorded them (session of 2026-12-01, unchanged since)
FLOOR_MD5 = {"img_ln_modulate": "f580d733", "txt_ln_modulate": "613c9470", "qk_layernorm": "1677ad86+9d54a703",
             "ln_continuous": "bf6b1cde", "img_gate_add": "4ae11dc5", "txt_gate_add": "e8ad4036"}
# the floors measured in the issue-24 session (copy_floor.cu as cubin arms, CUPTI, us)
FLOOR_EXPECT = {"img_ln_modulate": 17.95, "txt_ln_modulate": 2.82, "qk_layernorm": 35.30, "ln_continuous": 17.95,
                "img_gate_add": 26.62, "txt_gate_add": 3.49}


def floor_glm(run):
    bad = 0
    print("glm_1024 (events): copy floor per case, fused over it, md5 against PERF_NOTES")
    print(f"{'case':<17} {'floor us':>9} {'kernel':>7} {'method':<7} {'expect':>6} {'B kernel':>8} {'B/floor':>7} "
          f"{'B wall':>7} {'A wall':>8} {'md5':<18} ok")
    for c in run["cases"]:
        fl = c["copy_floor"] or {}
        b = slot(c, "B")
        a = statistics.median([s["median_ns"] for s in arm_slots(c, "a")])
        sums = {slot_md5s(s) for s in c["slots"]}
        ok = sums == {FLOOR_MD5.get(c["name"])}
        bad += not ok
        flk = fl.get("kernel_median_ns")
        ratio = b["kernel_median_ns"] / flk if b["kernel_median_ns"] and flk else None
        print(f"{c['name']:<17} {us(fl.get('median_ns')):>9} {us(flk):>7} {fl.get('method', '-'):<7} "
              f"{FLOOR_EXPECT.get(c['name'], 0):>6.2f} {us(b['kernel_median_ns']):>8} "
              f"{'n/a' if ratio is None else f'{ratio:.3f}':>7} {us(b['median_ns']):>7} {us(a):>8} "
              f"{'/'.join(sorted(sums)):<18} {'yes' if ok else 'NO'}")
    reasons = {}
    for c in run["cases"]:
        for s in c["slots"]:
            n, m = reasons.get(s["stopping_reason"], (0, 0))
            reasons[s["stopping_reason"]] = (n + 1, m + s["n_samples"])
    print("stop reasons: " + ", ".join(f"{r} {n} slots ({m} samples)" for r, (n, m) in sorted(reasons.items())))
    for part in run["run"]["notes"].split("; "):
        if part.startswith("cases ") or part.startswith("span"):
            print("notes: " + part)
    return bad


def floor_span(runs):
    labels = [lbl for lbl in ("span-legacy1", "span-new", "span-legacy2") if lbl in runs]
    if not labels:
        return
    print("\nwall - kernel of the fused (one-launch) B slots, us: legacy order, issue-24.3 order, legacy again")
    print(f"{'case':<17} " + " ".join(f"{lbl:>13}" for lbl in labels))
    for c in runs[labels[0]]["cases"]:
        row = []
        for lbl in labels:
            case = next((x for x in runs[lbl]["cases"] if x["name"] == c["name"]), None)
            b = slot(case, "B") if case else None
            row.append(f"{(b['median_ns'] - b['kernel_median_ns']) / 1e3:13.2f}" if b and b["kernel_median_ns"]
                       else f"{'n/a':>13}")
        print(f"{c['name']:<17} " + " ".join(row))
    for lbl in labels:
        span = [p for p in runs[lbl]["run"]["notes"].split("; ") if p.startswith("span")]
        print(f"{lbl}: {span[0] if span else 'no span note'}")


def floor_graph(g, e):
    bad = 0
    print("\ntiming = graph against events (the glm run), us: launch-free, events, CUPTI kernel")
    print(f"{'case':<17} {'arm':<6} {'graph':>8} {'events':>8} {'kernel':>8} {'graph md5 ok':>12}")
    for c in g["cases"]:
        ec = next((x for x in e["cases"] if x["name"] == c["name"]), None)
        ok = {slot_md5s(s) for s in c["slots"]} == {FLOOR_MD5.get(c["name"])}
        bad += not ok
        for label in ("A1", "B"):
            gg, ee = slot(c, label), slot(ec, label) if ec else None
            print(f"{c['name']:<17} {gg['variant'][:6]:<6} {us(gg['median_ns']):>8} "
                  f"{us(ee['median_ns'] if ee else None):>8} {us(ee['kernel_median_ns'] if ee else None):>8} "
                  f"{'yes' if ok else 'NO':>12}")
    print("graph copy floors: " + ", ".join(
        f"{c['name']} {us((c['copy_floor'] or {}).get('median_ns'))} ({(c['copy_floor'] or {}).get('method', '-')})"
        for c in g["cases"]))
    return bad


def table_floor(folder):
    runs = {lbl: d for lbl in ("glm", "span-legacy1", "span-new", "span-legacy2", "graph")
            if (d := doc(folder, lbl, "export")) and d["run"]["status"] == "ok"}
    bad = floor_glm(runs["glm"]) if "glm" in runs else 0
    floor_span(runs)
    if "graph" in runs and "glm" in runs:
        bad += floor_graph(runs["graph"], runs["glm"])
    return 1 if bad else 0


# ---- sites.sh ---------------------------------------------------------------

# What each case must show: byte-equal, except the arms that are inexact on purpose.
SITES_INEXACT = ("mss_inexact", "mss_triton_f32", "ln_modulate_naive", "qk_naive")


def table_sites(folder, *runs):
    bad, rows = 0, 0
    print(f"{'run':<18} {'case':<34} {'a':<10} {'b':<20} {'B median':>11} {'B GB/s':>8} {'% copy':>7} {'exact':>6}"
          "  verdict")
    for run in runs:
        d = doc(folder, run, "show")
        if not d:
            continue
        for c in d["cases"]:
            s = c["summary"]
            exact = s["b_byte_equal"]
            want = c["arm_b"] not in SITES_INEXACT
            ok = exact == want
            bad += not ok
            rows += 1
            gbps, pct = s["b_gbps"], s["b_pct_copy"]
            print(f"{run:<18} {c['name']:<34} {c['arm_a']:<10} {c['arm_b']:<20} {us(s['median_b_ns']):>9}us "
                  f"{'n/a' if gbps is None else f'{gbps:.1f}':>8} {'n/a' if pct is None else f'{pct:.1f}%':>7} "
                  f"{'yes' if exact else 'NO':>6}  {'PASS' if ok else 'FAIL'} "
                  f"({'byte-equal' if want else 'not byte-equal'} expected)")
    if not rows:
        print("sites.sh: no run stored")
    return 1 if bad or not rows else 0


# ---- triton.sh --------------------------------------------------------------

def table_triton(folder, *runs):
    print(f"{'run':<32} {'case':<18} {'slot':<4} {'arm':<24} {'median us':>9} {'kernel us':>9} "
          f"{'byte-equal':>10} {'differing':>18}  CUPTI kernels")
    for run in runs:
        d = doc(folder, run, "export")
        if not d or d["run"]["status"] != "ok":
            continue
        for c in d["cases"]:
            for s in c["slots"]:
                outs = s["outputs"]
                eq = "-" if not outs else "yes" if all(o["bit_exact"] for o in outs) else "NO"
                elems = sum(o["bytes"] for o in outs) // 2  # bf16 outputs
                diff = "-" if not outs else f"{sum(o['mismatches'] for o in outs)}/{elems}"
                kernels = " + ".join(k["name"] for k in s["kernels"]) or "-"
                print(f"{run:<32} {c['name']:<18} {s['label']:<4} {s['variant']:<24} {us(s['median_ns']):>9} "
                      f"{us(s['kernel_median_ns']):>9} {eq:>10} {diff:>18}  {kernels[:160]}")
    return 0


# ---- kernels.sh -------------------------------------------------------------

def table_kernels(folder, *runs):
    """Per case and arm the slots' event and CUPTI medians; the md5 agreement
    and B over A as show --format json states them (summary.c's figures:
    b_byte_equal, a_deterministic, the speedup of the pooled medians)."""
    bad = 0
    print(f"{'run':<26} {'case':<16} {'arm':<15} {'events us (slots)':>20} {'CUPTI us (slots)':>20} {'md5'}")
    for run in runs:
        d, sh = doc(folder, run, "export"), doc(folder, run, "show")
        if not d or not sh:
            continue
        copy = run.startswith("copy-")  # a copy of the bytes: its md5 differs by design
        for c, sc in zip(d["cases"], sh["cases"]):
            s = sc["summary"]
            agree = s["b_byte_equal"] and s["a_deterministic"]
            for arm in ("a", "b"):
                ss = arm_slots(c, arm)
                ev = "/".join(us(x["median_ns"]) for x in ss)
                ku = "/".join(us(x["kernel_median_ns"]) for x in ss)
                own = len({slot_md5s(x) for x in ss}) == 1
                print(f"{run:<26} {c['name']:<16} {ss[0]['variant'][:15]:<15} {ev:>20} {ku:>20} "
                      f"{slot_md5s(ss[0]) if agree else ('own' if own else 'DIFFER')}")
            if not agree and not copy:
                bad += 1
                print(f"{'':<26} {c['name']:<16} md5 differ across slots: "
                      f"{' '.join(sorted({slot_md5s(x) for x in c['slots']}))}")
            if run.startswith("tuning-") or copy:
                sp = s["speedup"]["point"]
                kb = [x["kernel_median_ns"] for x in arm_slots(c, "b") if x["kernel_median_ns"]]
                ka = [x["kernel_median_ns"] for x in arm_slots(c, "a") if x["kernel_median_ns"]]
                kr = statistics.median(kb) / statistics.median(ka) if ka and kb else None
                print(f"{'':<26} {c['name']:<16} {'B / A':<15} {'n/a' if not sp else f'{1 / sp:.3f}':>20} "
                      f"{'n/a' if kr is None else f'{kr:.3f}':>20}")
    print(f"md5 agreement: {'every case' if bad == 0 else f'{bad} case(s) DIFFER'}")
    return 1 if bad else 0


# ---- sweeps.sh --------------------------------------------------------------

def table_sweep(folder, run):
    """Each swept case's value, speedup [95% CI] and B GB/s (% of copy):
    export gives the sweep and the value, show the figures."""
    d, sh = doc(folder, run, "export"), doc(folder, run, "show")
    if not d or not sh:
        print(f"sweeps: no documents of run '{run}'")
        return 2
    for c, sc in zip(d["cases"], sh["cases"]):
        if not c["sweep"]:
            continue
        s = sc["summary"]
        sp = s["speedup"]
        ci = "n/a" if sp["point"] is None else (
            f"{sp['point']:.3f}x [{sp['low']:.3f}, {sp['high']:.3f}]" if sp["low"] is not None
            else f"{sp['point']:.3f}x")
        gbps, pct = s["b_gbps"], s["b_pct_copy"]
        bw = "n/a" if gbps is None else f"{gbps:.1f} GB/s" + ("" if pct is None else f" ({pct:.1f}%)")
        print(f"  {c['sweep']:<14} {c['axis']}={c['axis_value']:<6} {ci:<28} B {bw}")
    return 0


def table_stopping(folder, old, new):
    """Per slot of two runs of one scenario: samples, stop reason and median."""
    o, n = doc(folder, old, "export"), doc(folder, new, "export")
    if not o or not n:
        print("stopping: a run is missing")
        return 2
    before = {(c["name"], s["label"]): s for c in o["cases"] for s in c["slots"]}
    for c in n["cases"]:
        for s in c["slots"]:
            p = before.get((c["name"], s["label"]))
            if not p or not p["median_ns"] or not s["median_ns"]:
                continue
            mo, mn = p["median_ns"] / 1e3, s["median_ns"] / 1e3
            print(f"  {c['name']:<20} {s['label']:<3} {p['n_samples']:>5} -> {s['n_samples']:<5} "
                  f"{p['stopping_reason']:>15} -> {s['stopping_reason']:<15} {mo:9.3f} -> {mn:9.3f} us "
                  f"({100 * (mn / mo - 1):+.2f}%)")
    return 0


TABLES = {"floor": table_floor, "sites": table_sites, "triton": table_triton, "kernels": table_kernels,
          "sweep": table_sweep, "stopping": table_stopping}


def main(argv):
    if len(argv) < 3 or argv[1] not in TABLES:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        rc = TABLES[argv[1]](*argv[2:])
        sys.stdout.flush()
        return rc
    except BrokenPipeError:  # a reader that wanted the first lines only
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"tables.py {argv[1]}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
