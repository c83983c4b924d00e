#!/usr/bin/env python3
"""figures_agree.py FIGURES.json SHOW.json EXPORT.csv SHOW.txt RUN.txt REPORT.md

Loops over the rows of the table of figures (`abbench figures --format
json`: analysis/figures.h) and checks, for one run, that every view that
prints a row prints the same figure:

  - the CSV export and the abbench.show document: each row both carry, per
    slot, arm and case, the same number (to the CSV's 15 digits), words,
    flag or interval;
  - show's slot tables, run's closing table, and the report's Summary,
    Bandwidth and Sweeps tables: each cell of a row is that row's value
    (from the CSV, else the JSON) formatted by the row's hint the way
    print/figure_fmt.c formats it for that sink (text or markdown), found
    under the head figure_head gives it ("A eager median" for an arm row).
    An unknown figure must print words, never "nan".

A row that reaches no machine-readable sink (the Sweeps' median interval)
cannot be checked against one: it is counted as such. Prints "ok - ..."
per check kind with its count and "not ok - ..." per disagreement; exits 1
when any.
"""
import csv
import json
import math
import re
import sys

fails = []
counts = {}


def ok(kind):
    counts[kind] = counts.get(kind, 0) + 1


def bad(msg):
    fails.append(msg)


# ---- formats, as print/figure_fmt.c and print/md.c ------------------------

def unit(ns):
    a = abs(ns)
    if math.isnan(ns) or a < 1e3:
        return "ns", 1.0, 0
    if a < 1e6:
        return "us", 1e3, 2
    if a < 1e9:
        return "ms", 1e6, 3
    return "s", 1e9, 3


def md_time(ns):
    name, div, dec = unit(ns)
    return "%.*f %s" % (dec, ns / div, name)


def md_bytes(b):
    if not b > 0:
        return "n/a"
    if b < 1e6:
        return "%.1f kB" % (b / 1e3)
    if b < 1e9:
        return "%.2f MB" % (b / 1e6)
    return "%.2f GB" % (b / 1e9)


def md_cell(s):
    out = []
    for ch in s:
        if ch in "\n\r\t":
            out.append(" ")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch in "|\\*_`[]~":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def md_code(s):
    if not s or "`" in s:
        return md_cell(s)
    return "`" + s.replace("|", "\\|") + "`"


VERDICT_WORDS = {"faster": "faster", "slower": "slower", "no_clear_change": "no clear change",
                 "not_exact": "lost bit-exactness", "few_samples": "too few samples (not trusted)"}


INVARIANCE_WORDS = {"yes": "yes", "not_checked": "not checked"}  # "no": words with the row that broke it


def nudge(v, e):
    """v with its numbers scaled by e: a unit of their 15th digit up or down
    (the CSV carries 15 digits, so a figure at a rounding edge, 3278.205 us,
    may have printed either way)."""
    return {k: x * e if isinstance(x, float) else x for k, x in v.items()}


def fmt(row, v, md):
    """The cell of value v (a dict: x, x2, lo, hi, n, text, absent) of row."""
    h, dg = row["hint"], row["digits"]
    if v.get("absent"):
        return None  # words: checked as "not a number, not nan"
    x = v.get("x")
    if h == "duration":
        lab = (row.get("label") or "") + (" " if row.get("label") else "")
        if v.get("x2") is None:
            return lab + md_time(x)
        return "%s%s, %s %s" % (lab, md_time(x), row.get("label2") or "and", md_time(v["x2"]))
    if h == "ratio":
        d = dg or 3
        b = "**" if md and v.get("good") else ""
        s = "%s%.*fx%s" % (b, d, x, b)
        if row["ci"]:
            s += " [n/a]" if v["lo"] is None else " [%.*f, %.*f]" % (d, v["lo"], d, v["hi"])
        return s
    if h == "fraction":
        return "%.2f%%" % (100 * x)
    if h == "percent":
        return "%.*f%%" % (dg or 1, x)
    if h == "bandwidth":
        return "%.1f" % x + ("" if v.get("x2") is None else " (%.1f%%)" % v["x2"])
    if h == "count":
        return "%.0f" % x + ("" if v.get("x2") is None else "/%.0f" % v["x2"])
    if h == "bytes":
        return md_bytes(x)
    if h == "number":
        return "%.*g" % (dg or 3, x)
    if h == "spread":
        name, div, dec = unit(x)
        iv = "[n/a]" if v["lo"] is None else "[%.*f, %.*f]" % (dec, v["lo"] / div, dec, v["hi"] / div)
        return "%.*f %s %s n=%d" % (dec, x / div, name, iv, v["n"])
    t = v.get("text") or ""
    if h == "digest":
        return md_code(t) if md else "+".join(p[:8] for p in t.split("+") if p)
    if h == "flag":
        if v.get("words"):
            return md_cell(v["words"]) if md else v["words"]
        if v.get("own") is not None:  # a flag's own words (launch_bound: yes, no)
            return md_cell(v["own"]) if md else v["own"]
        return "yes" if x else ("**no**" if md else "NO")
    if h == "verdict":
        w = (INVARIANCE_WORDS if row["key"] == "batch_invariant" else VERDICT_WORDS).get(t)
        if w is None:
            return None  # drifted: words with its drift
        return md_cell(w) if md else w
    if h == "name":
        return md_code(t) if md else t
    return md_cell(t) if md else t


# ---- values from the CSV and the JSON --------------------------------------

def num(s):
    return None if s == "" else float(s)


def csv_value(row, rec):
    """The value of row in one CSV record, or None when the CSV lacks it."""
    k, h = row["key"], row["hint"]
    if "csv" not in row["views"] or k not in rec:
        return None
    if h in ("text", "name") and rec[k] == "":
        return {"text": None, "absent": True}  # unknown (JSON null), or empty
    if h in ("text", "name", "digest", "verdict"):
        return {"text": rec[k]}
    if h == "flag":
        return {"absent": True} if rec[k] == "" else {"x": rec[k] == "1"}
    v = {"x": num(rec[k])}
    if v["x"] is None:
        v["absent"] = True
    if row["ci"]:
        v["lo"], v["hi"] = num(rec[k + "_low"]), num(rec[k + "_high"])
    if row["key2"]:
        v["x2"] = num(rec[row["key2"]])
    return v


def json_path(row, arm):
    p = row["json"] or row["key"]
    return p.replace("%c", arm) if arm else p


def json_get(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return KeyError
        obj = obj[part]
    return obj


def json_value(row, obj, arm=None):
    if "json" not in row["views"]:
        return None
    x = json_get(obj, json_path(row, arm))
    if x is KeyError:
        bad(f"{row['key']}: not in the JSON at {json_path(row, arm)}")
        return None
    h = row["hint"]
    if h in ("text", "name") and x in (None, ""):
        return {"text": None, "absent": True}
    if h in ("text", "name", "verdict"):
        return {"text": x}
    if h == "digest":
        return {"text": "+".join(x)}
    if h == "flag":
        return {"x": bool(x)}
    if row["ci"]:
        return {"x": x["point"], "lo": x["low"], "hi": x["high"], "absent": x["point"] is None}
    v = {"x": x, "absent": x is None}
    if row["key2"]:  # the second value, beside the first (json2, else key2)
        p = json_path(row, arm)
        k2 = (row.get("json2") or row["key2"]).replace("%c", arm or "")
        v["x2"] = json_get(obj, p.rsplit(".", 1)[0] + "." + k2 if "." in p else k2)
        if v["x2"] is KeyError:
            bad(f"{row['key']}: its second value is not in the JSON beside {p}")
            v["x2"] = None
    return v


def same(row, a, b):
    if a.get("absent") or b.get("absent"):
        return bool(a.get("absent")) == bool(b.get("absent")) or row["hint"] == "flag"
    if "text" in a or "text" in b:
        return a.get("text") == b.get("text")
    if row["hint"] == "flag":
        return bool(a["x"]) == bool(b["x"])
    for k in ("x", "lo", "hi", "x2"):
        if k == "x2" and (k not in a or k not in b):
            continue
        p, q = a.get(k), b.get(k)
        if (p is None) != (q is None):
            return False
        if p is not None and not math.isclose(p, q, rel_tol=1e-13, abs_tol=1e-300):
            return False
    return True


# ---- the tables -------------------------------------------------------------

def text_tables(path, first):
    """[(head cells, [row cells])] of the text tables whose first head is first."""
    tables, lines, i = [], open(path).read().split("\n"), 0
    while i < len(lines):
        cells = re.split(r"  +", lines[i].strip())
        if cells[0] != first or len(cells) < 3:
            i += 1
            continue
        head, rows, i = cells, [], i + 1
        while i < len(lines) and lines[i].strip():
            c = re.split(r"  +", lines[i].strip())
            if lines[i].startswith("       "):  # a note under a slot
                i += 1
                continue
            if len(c) < len(head):
                break
            rows.append(c)
            i += 1
        tables.append((head, rows))
    return tables


def md_tables(path):
    """{section: [(subsection, head cells, [row cells])]} of the report's tables."""
    out, sec, sub, lines, i = {}, None, None, open(path).read().split("\n"), 0
    cells = lambda l: [p.strip() for p in re.split(r"(?<!\\)\|", l.strip())[1:-1]]
    while i < len(lines):
        l = lines[i]
        if l.startswith("## "):
            sec, sub = l[3:], None
        m = re.match(r"^<details><summary><b>([^<]*)</b>", l)
        if m:  # a folded section (Accuracy, Clocks ...) is a section of its own
            sec, sub = m.group(1), None
        if l.startswith("### "):
            m = re.match(r"^### `([^`]*)`", l)
            sub = m.group(1) if m else None
        if l.startswith("| ") and i + 1 < len(lines) and re.match(r"^\|(:?-+:?\|)+$", lines[i + 1]):
            head, rows, i = cells(l), [], i + 2
            while i < len(lines) and lines[i].startswith("| "):
                rows.append(cells(lines[i]))
                i += 1
            out.setdefault(sec, []).append((sub, head, rows))
            continue
        i += 1
    return out


def head_of(row, arm, run):
    if row["level"] != "arm":
        return row["head"]
    name = run["arm_a" if arm == "a" else "arm_b"] or "(per case)"
    return "%s %s%s" % (arm.upper(), name, " " + row["head"] if row["head"] else "")


def columns(rows, view, run, compact=False):
    out = []
    for r in sorted((r for r in rows if view in r["views"]), key=lambda r: r["views"][view]):
        if compact and view in r["full_only"]:
            continue
        if r["level"] != "arm":
            out.append((r, None))
            continue
        if view not in r["b_only"]:
            out.append((r, "a"))
        out.append((r, "b"))
    return out


def fit(cols, heads, run, view, md):
    """The columns a table printed, in order: a row marked omit_unknown (or
    full_only, in a compact table) whose head the table lacks was left out.
    Returns (printed, left out)."""
    out, omitted, i = [], [], 0
    for row, arm in cols:
        h = head_of(row, arm, run)
        h = md_cell(h) if md else h
        if i < len(heads) and heads[i] == h:
            out.append((row, arm))
            i += 1
        elif row.get("omit_unknown") or view in row["full_only"]:
            omitted.append((row, arm))
        else:
            out.append((row, arm))
            i += 1
    return out, omitted


def main():
    figs = json.load(open(sys.argv[1]))["figures"]
    show = json.load(open(sys.argv[2]))
    recs = list(csv.DictReader(open(sys.argv[3], newline="")))
    run = show["run"]
    cases = {c["name"]: c for c in show["cases"]}
    by_case = {}
    for rec in recs:
        by_case.setdefault(rec["case"], []).append(rec)

    def value(row, case, arm=None, slot=None):
        """The row's value from the CSV (else the JSON) at case/arm/slot."""
        rs = by_case[case]
        rec = slot if slot is not None else next((r for r in rs if r["arm"] == (arm or "a")), rs[0])
        v = csv_value(row, rec)
        if v is None and row["key"] == "n_ab":
            a = next(r for r in rs if r["arm"] == "a")
            b = next(r for r in rs if r["arm"] == "b")
            v = {"x": int(a["arm_samples"]), "x2": int(b["arm_samples"])}
        if v is None and row["level"] == "arm" and row["key"] == "time":
            v = {"x": num(rec["arm_median_ns"]), "lo": num(rec["arm_p10_ns"]), "hi": num(rec["arm_p90_ns"]),
                 "n": int(rec["arm_samples"])}
        if v is None:
            c = cases[case]
            obj = c["slots"][rs.index(slot)] if row["level"] == "slot" else c
            v = json_value(row, obj, arm)
        if v is not None and row["key"] == "speedup":
            v["good"] = cases[case]["summary"]["verdict"] == "faster"
        if v is not None and row["key"] == "ref_ok" and not v.get("absent"):
            v["words"] = "ok" if v["x"] else "FAIL"
        if v is not None and row["key"] == "launch_bound" and not v.get("absent"):
            v["own"] = "yes" if v["x"] else "no"
        if v is not None and row["key"] == "deterministic" and not v.get("absent") and not v["x"]:
            v["own"] = "NO: %s, %s of %s calls differ" % (rec["nondeterministic_slot"], rec["calls_differ"],
                                                           rec["calls_hashed"])
        if v is None and row["key"] == "arm_launch_bound":  # GPU and host a call, where the host's is larger
            g, h = num(rec["arm_gpu_ns"]), num(rec["arm_host_median_ns"])
            v = {"x": g, "x2": h} if g is not None and h is not None and h > g else {"absent": True}
        return v

    # CSV against JSON
    for row in figs:
        if "csv" not in row["views"] or "json" not in row["views"]:
            continue
        for name, rs in by_case.items():
            c = cases[name]
            for k, rec in enumerate(rs):
                arm = rec["arm"] if row["level"] == "arm" else None
                obj = c["slots"][k] if row["level"] == "slot" else c
                a, b = csv_value(row, rec), json_value(row, obj, arm)
                if a is None or b is None:
                    continue
                if same(row, a, b):
                    ok("csv = json")
                else:
                    bad(f"{name} {rec['slot']} {row['key']}: csv {a} json {b}")

    def cell_check(kind, row, arm, case, cell, md, slot=None):
        if case not in by_case:
            bad(f"{kind}: case {case!r} is not in the CSV")
            return
        v = value(row, case, arm, slot)
        if v is None:
            counts["not in CSV or JSON: " + row["key"]] = 1
            return
        want = fmt(row, v, md)
        if want is not None and cell != want:  # a rounding edge the CSV's 15 digits cut
            want = next((w for w in (fmt(row, nudge(v, e), md) for e in (1 + 1e-14, 1 - 1e-14)) if w == cell), want)
        if "nan" in cell.lower().split():
            bad(f"{kind} {case} {row['key']}: prints nan")
        elif want is None:
            if re.fullmatch(r"-?[0-9.]+x?", cell):
                bad(f"{kind} {case} {row['key']}: unknown, yet prints a number {cell!r}")
            else:
                ok(kind)
        elif cell == want or (row["hint"] == "bandwidth" and cell == want + " (cache-resident)"):
            ok(kind)
        else:
            bad(f"{kind} {case} {row['key']}{' ' + arm if arm else ''}: prints {cell!r}, its value formats as {want!r}")

    def left_out(kind, omitted, case, slot=None):
        """A column left out must be unknown in every row of its table."""
        for row, arm in omitted:
            if not row.get("omit_unknown"):
                continue
            v = value(row, case, arm, slot)
            if v is not None and not v.get("absent"):
                bad(f"{kind} {case} {row['key']}: left out, yet known ({v})")
            else:
                ok(kind + " left out, unknown")

    # show's slot tables (text)
    names = list(cases)
    for t, (head, rows) in enumerate(text_tables(sys.argv[4], "slot")):
        case = names[t]
        cols, omitted = fit(columns(figs, "show", run), head, run, "show", False)
        for k, cells in enumerate(rows):
            left_out("show", omitted, case, by_case[case][k])
            for (row, arm), h, cell in zip(cols, head, cells):
                if h != head_of(row, arm, run):
                    bad(f"show: head {h!r}, the table's is {head_of(row, arm, run)!r}")
                cell_check("show cells", row, arm, case, cell, False, by_case[case][k])
    # run's closing table (text), the case first
    for head, rows in text_tables(sys.argv[5], "case"):
        cols, omitted = fit(columns(figs, "run", run), head[1:], run, "run", False)
        for cells in rows:
            left_out("run", omitted, cells[0])
            for (row, arm), h, cell in zip(cols, head[1:], cells[1:]):
                if h != head_of(row, arm, run):
                    bad(f"run: head {h!r}, the table's is {head_of(row, arm, run)!r}")
                cell_check("run cells", row, arm, cells[0], cell, False)
    # the report's tables (markdown)
    md = md_tables(sys.argv[6])
    for sec, view in (("Summary", "report"), ("Bandwidth", "bandwidth"), ("Sweeps", "sweeps"),
                      ("Where the bits differ", "accuracy")):
        for sub, head, rows in md.get(sec, []):
            cols, omitted = fit(columns(figs, view, run), head[1:], run, view, True)
            for cells in rows:
                if view == "sweeps":
                    case = next(n for n, c in by_case.items() if c[0]["axis_value"] == cells[0]
                                and c[0]["sweep"] == sub)
                else:
                    case = re.match(r"^`([^`]*)`", cells[0]).group(1).replace("\\|", "|")
                left_out(f"report {sec}", omitted, case)
                for (row, arm), h, cell in zip(cols, head[1:], cells[1:]):
                    if h != md_cell(head_of(row, arm, run)):
                        bad(f"{sec}: head {h!r}, the table's is {md_cell(head_of(row, arm, run))!r}")
                    cell_check(f"report {sec} cells", row, arm, case, cell, True)

    for k in sorted(counts):
        print(f"ok - {k}: {counts[k]}" if not k.startswith("not in") else f"# {k}")
    for f in fails:
        print(f"not ok - {f}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
