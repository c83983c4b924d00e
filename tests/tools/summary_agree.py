#!/usr/bin/env python3
"""summary_agree.py SHOW.txt REPORT.md EXPORT.csv

Parses what `abbench show`, `abbench report` and `abbench export --csv`
printed for one run and checks, case by case, that they print the same
figures: the pooled A and B medians (with p10, p90 and sample counts), the
speedup and its 95% interval, the A drift, the case's exactness, and each
arm's GB/s and % of copy bandwidth.

The CSV carries 15 significant digits, so each figure
is taken from it and formatted the way each printer formats it (show:
fmt_ns and %.3f; report: md_us = %.3f us, %.2f%%); the printed string must
match exactly, or be what the value one unit in its 15th digit up or down
prints (a figure at a rounding edge: 3278.205 us read back from
"3278205.00000000" rounds to .21 or .20 by the last bits the CSV cut). The speedup and drift strings of show and report are also
compared with each other directly. Prints TAP-like "ok - ..." lines and
exits 1 when any check fails.
"""
import csv
import math
import re
import sys

failures = 0


def check(desc, cond, detail=""):
    global failures
    if cond:
        print(f"ok - {desc}")
    else:
        failures += 1
        print(f"not ok - {desc}{': ' + detail if detail else ''}")


def fmt_ns(ns):
    """show.c's fmt_ns."""
    if math.isnan(ns):
        return "n/a"
    a = abs(ns)
    if a < 1e3:
        return "%.0f ns" % ns
    if a < 1e6:
        return "%.2f us" % (ns / 1e3)
    if a < 1e9:
        return "%.3f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def real(s):
    return float(s) if s != "" else math.nan


SHOW_CASE = re.compile(r"^case (\S+)  site ")
SHOW_FIGS = re.compile(r"^  \S+ / \S+: a (.+?), b (.+?), speedup (\S+)x \[(?:(\S+), (\S+)|n/a)\] 95% CI "
                       r"\(n=(\d+)/(\d+)\)(?:, drift A (\S+)%)?$")
SHOW_EXACT = re.compile(r"^  b byte-equal to a: (yes|NO)(.*)$")
SHOW_BW = re.compile(r"^  bandwidth: a \S+ (.+?); b \S+ (.+?)(?:; (?:copy|cache-resident:) .*)?$")


def show_bw(text):
    """show.c's show_bandwidth: "51.3 kB, 3.2 GB/s (19.8% of copy)" -> ("3.2", "19.8") or None."""
    m = re.match(r"^.+?, (\S+) GB/s(?: \((\S+)% of copy\)| \(cache-resident\))?$", text)
    return m.groups() if m else None


def report_bw(text):
    """report.c's put_gbps: "3.2 (19.8%)" -> ("3.2", "19.8"), "3.2 (cache-resident)" -> ("3.2", None), or None."""
    m = re.match(r"^(\S+)(?: \((\S+)%\)| \(cache-resident\))?$", text)
    return m.groups() if m and text != "n/a" else None


def interval(point, low, high):
    """(point, low, high) as printed; a missing interval (under 10 samples
    an arm) is "n/a" for both bounds."""
    return (point, low or "n/a", high or "n/a")


def parse_show(path):
    cases, name = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = SHOW_CASE.match(line)
        if m:
            name = m.group(1)
            cases[name] = {}
            continue
        m = SHOW_FIGS.match(line)
        if m and name:
            cases[name].update(a=m.group(1), b=m.group(2), speedup=interval(*m.group(3, 4, 5)),
                               n=(int(m.group(6)), int(m.group(7))), drift=m.group(8))
            continue
        m = SHOW_EXACT.match(line)
        if m and name:
            cases[name]["exact"] = m.group(1) == "yes" and "warning" not in m.group(2)
            continue
        m = SHOW_BW.match(line)
        if m and name:
            cases[name]["bw"] = (show_bw(m.group(1)), show_bw(m.group(2)))
    return cases


def cells(row):
    """The cells of a markdown table row ('\\|' is an escaped bar)."""
    parts = re.split(r"(?<!\\)\|", row.strip())
    return [p.strip() for p in parts[1:-1]]


def parse_report(path):
    cases, section, heads = {}, None, []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("## "):
            section = line[3:]
            continue
        if line.startswith("| case |"):  # the Summary's columns by head: host columns may stand between
            heads = cells(line)
            continue
        if not line.startswith("| `"):
            continue
        c = cells(line)
        m = re.match(r"^`([^`]*)`", c[0])  # a case's own arms follow its name: "`tp` (a `x`, b `y`)"
        name = (m.group(1) if m else c[0].strip("`")).replace("\\|", "|")
        if section == "Summary":
            sp = next((i for i, h in enumerate(heads) if h.startswith("speedup")), 4)
            ex = heads.index("bit-exact") if "bit-exact" in heads else 5
            m = re.match(r"^(?:\*\*)?(\S+?)x(?:\*\*)? \[(?:(\S+), (\S+)|n/a)\]$", c[sp])
            cases.setdefault(name, {}).update(a=c[2], b=c[3], speedup=interval(*m.groups()) if m else None,
                                              exact=c[ex])
        elif section == "A/B/A brackets":
            cases.setdefault(name, {})["drift"] = c[-2]
        elif section == "Bandwidth":
            cases.setdefault(name, {})["bw"] = (report_bw(c[4]), report_bw(c[5]))
    return cases


def parse_csv(path):
    cases = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            cases.setdefault(row["case"], {}).setdefault(row["arm"], row)
    return cases


def unit(ns):
    """md_time_unit: the unit and decimals of a time, from its size."""
    a = abs(ns)
    if math.isnan(ns) or a < 1e3:
        return "ns", 1.0, 0
    if a < 1e6:
        return "us", 1e3, 2
    if a < 1e9:
        return "ms", 1e6, 3
    return "s", 1e9, 3


def nudged(f, *xs):
    """What f prints of xs, and of xs a unit of their 15th digit up or down:
    the strings a value the CSV carries to 15 digits may have printed."""
    return {f(*(x * e for x in xs)) for e in (1.0, 1 + 1e-14, 1 - 1e-14)}


def spread(row):
    """md_spread_time: "16.19 us [16.16, 16.23] n=40" from the CSV's arm
    columns, p10 and p90 in the median's unit (each string it may be)."""
    return nudged(lambda med, p10, p90: spread_of(med, p10, p90, row["arm_samples"]),
                  *(real(row[k]) for k in ("arm_median_ns", "arm_p10_ns", "arm_p90_ns")))


def spread_of(med, p10, p90, n):
    name, div, dec = unit(med)
    return "%.*f %s [%.*f, %.*f] n=%s" % (dec, med / div, name, dec, p10 / div, dec, p90 / div, n)


def main():
    show, report, export = parse_show(sys.argv[1]), parse_report(sys.argv[2]), parse_csv(sys.argv[3])
    check("the three outputs name the same cases", set(show) == set(report) == set(export),
          f"show {sorted(show)}, report {sorted(report)}, csv {sorted(export)}")
    for name in sorted(set(show) & set(report) & set(export)):
        s, r, a, b = show[name], report[name], export[name]["a"], export[name]["b"]
        for arm, row in (("a", a), ("b", b)):
            want = nudged(fmt_ns, real(row["arm_median_ns"]))
            check(f"{name}: show's {arm} median is the csv's ({' or '.join(sorted(want))})", s[arm] in want, s[arm])
            want = spread(row)
            check(f"{name}: report's {arm} cell is the csv's ({' or '.join(sorted(want))})", r[arm] in want, r[arm])
        n = (int(a["arm_samples"]), int(b["arm_samples"]))
        check(f"{name}: show's n={s['n'][0]}/{s['n'][1]} is the csv's", s["n"] == n, str(n))
        want = tuple("n/a" if math.isnan(real(a[k])) else "%.3f" % real(a[k])
                     for k in ("speedup", "speedup_low", "speedup_high"))
        check(f"{name}: show's speedup {s['speedup']} is the csv's", s["speedup"] == want, str(want))
        check(f"{name}: report's speedup {r['speedup']} is the csv's", r["speedup"] == want, str(want))
        check(f"{name}: show and report print the same speedup and interval", s["speedup"] == r["speedup"])
        drift = real(a["drift"])
        want = None if math.isnan(drift) else "%.2f" % (100 * drift)
        check(f"{name}: show's drift {s['drift']}% is the csv's", s["drift"] == want, str(want))
        want_r = "n/a" if want is None else want + "%"
        check(f"{name}: report's drift {r['drift']} is the csv's", r["drift"] == want_r, want_r)
        exact = a["case_bit_exact"] == "1"
        check(f"{name}: show's exactness ({s['exact']}) is the csv's", s["exact"] == exact)
        check(f"{name}: report's bit-exact '{r['exact']}' is the csv's",
              r["exact"] == ("yes" if exact else "**no**"))
        for k, (arm, row) in enumerate((("a", a), ("b", b))):
            g, p = real(row["arm_gbps"]), real(row["arm_pct_copy"])
            want = None if math.isnan(g) else ("%.1f" % g, None if math.isnan(p) else "%.1f" % p)
            check(f"{name}: show's {arm} GB/s {s['bw'][k]} is the csv's", s["bw"][k] == want, str(want))
            check(f"{name}: report's {arm} GB/s {r['bw'][k]} is the csv's", r["bw"][k] == want, str(want))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
