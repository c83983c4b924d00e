#!/usr/bin/env python3
"""probe.py - issue 31's reliability probe, re-runnable and bounded in time.

Attacks abbench from outside on the CPU backend (fake timer) and counts what
held. Usage (from the repository root, after `make`; `make sanitize` for the
ASan + UBSan part):

    scripts/probe/probe.py [PART ...] [--out DIR] [--seed N]

Parts (all by default), with their counts (environment variables scale them):

  grammar   PROBE_MUTANTS (4100) mutants of the declared-site grammar, each
            given to `abbench sites` and to `abbench run` against a copy of
            a database; PROBE_SAN_MUTANTS (600) of them again through
            build-san/abbench (ASan + UBSan). Holds when no command ends by
            a signal or a sanitizer report, none hangs (30 s), every refusal
            is exit 2 with one line naming the file, and the database is
            byte-identical after every refusal.
  includes  19 include tricks (itself, twice, a loop, links, a FIFO, a
            directory, devices, 2 MiB, NUL, Latin-1, a [case] in a site
            file, ...): each refused at its line (or taken, where legal),
            none hangs.
  python    17 Python-arm faults (exceptions, tensors replaced, sys.exit,
            os._exit, _exit through ctypes, a segfault, SIGKILL to itself,
            spinning and sleeping past call_limit_s, swallowing the stop,
            os._exit and a loop at import): never exit 0, never hang, the
            run's row never left 'running'.
  numbers   420 implausible stored numbers (42 columns x 10 values) against
            9 commands (show, show --json, export --csv, export --format
            json, report, compare, gate, history, publish): each refused
            with exit 2 naming the bad row; no crash.
  html      every text column of the run's tables (55; 58 in the issue's
            first probe) planted with HTML, script and URLs (the longest
            of four payloads that fits the field), then `publish`; headless Chromium's DOM of the dashboard and the
            run's report checked: no script element, no on* attribute, no
            link to the planted URLs, no mark a script would leave.
  kills     30 runs killed with SIGKILL at random moments (the supervisor
            or the run's own process), 6 publishes killed, 4 runs at once
            into one new database: `list` leaves no row 'running', the
            integrity check passes, every 'ok' run is complete, no
            publish temporary survives the next publish, every concurrent
            run is 'ok'.

Prints one table last (part, count, held, not held) and writes the details
of every finding to DIR/findings.txt. Exit 0 when everything held.
"""
import argparse
import hashlib
import html.parser
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AB = os.path.join(ROOT, "build", "abbench")
AB_SAN = os.path.join(ROOT, "build-san", "abbench")
PY = "/usr/bin/python3"
LIB = os.path.join(ROOT, "build", "examples", "plugin", "libdeclared_plugin.so")
FAULT_LIB = os.path.join(ROOT, "build", "examples", "plugin", "libfault_plugin.so")
PYDATA = os.path.join(ROOT, "tests", "data", "python")


class Part:
    """Counts of one part and its findings."""

    def __init__(self, name):
        self.name, self.count, self.bad, self.notes = name, 0, [], []
        self.t0 = time.time()

    def held(self, ok, what):
        self.count += 1
        if not ok:
            self.bad.append(what)


def env_base(**extra):
    e = dict(os.environ)
    e.update(ABBENCH_FAKE_TIMER="1", ABBENCH_PYTHON=PY, PYTHONDONTWRITEBYTECODE="1")
    e.pop("ABBENCH_DB", None)
    e.update(extra)
    return e


def run(argv, cwd=None, timeout=30, env=None):
    """(rc, stdout, stderr, seconds); rc 'timeout' when it hung."""
    t0 = time.time()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env or env_base(), stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired:
        return "timeout", "", "", time.time() - t0


def digest(path):
    h = hashlib.sha256()
    for suffix in ("", "-wal"):
        if os.path.exists(path + suffix):
            with open(path + suffix, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def signalled(rc):
    return rc == "timeout" or rc < 0 or rc >= 128


# ---- grammar ------------------------------------------------------------------

SEED_SITE = """[scenario]
name = probe
backend = cpu
warmup = 0
min_samples = 3
max_samples = 3
max_time_ms = 2000
call_limit_s = 20
[site modulate_scale_shift]
summary = x * (1 + scale) + shift
axes = B T W
tensors = x:bf16:B,T,W:input, scale:bf16:B,W:input, shift:bf16:B,W:input, out:bf16:B,T,W:output
tensor.s1 = bf16:B,W:scratch
tensor.mul = bf16:B,T,W:scratch
require = W % 8 == 0, T <= 4096
input.scale = normal(0, 0.5)
[site embed_gather]
axes = B T V W
tensors = idx:i32:B,T:input, table:f16:V,W:input, out:f16:B,T,W:output
require = W % 8 == 0
input.idx = randint(0, V)
[arm e]
type = plugin
site = modulate_scale_shift
library = {lib}
name = mss_eager
writes = s1, mul
bytes = 2 * (2 * B * W + 4 * B * T * W + 2 * B * W)
[arms]
a = e
b = plugin:{lib}:mss_fused
[case mod]
site = modulate_scale_shift
shape = 1x{{16,32}}x64
[case embed]
site = embed_gather
shape = 2x8x50x16
a = plugin:{lib}:gather
b = plugin:{lib}:gather_rows
"""

TRICKY = ["", "0", "-1", "1", "B", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
          "18446744073709551616", "1e309", "nan", "inf", "x" * 300, "\u00e9t\u00e9", "\u202e", "B*B*B*B*B*B*B*B*B*B*B",
          "(" * 40 + "B" + ")" * 40, "cdiv(B, 0)", "B / 0", "B % 0", "B &&", "== ==", "B < T < W", "i64", "f16",
          "B,B,B,B,B,B,B,B,B,B", ":::", "x:bf16::input", "x:q8:B:input", "x:bf16:B:weird", "randint(0, 0)",
          "randint(1, 0)", "randint(-9223372036854775807 - 1, 9223372036854775807)", "constant(1e999)",
          "constant(9223372036854775807)", "normal(0, -1)", "uniform(1, 1)", "special(0)", "0x{1:999999999:x2}x8",
          "1x{0,1}x8", "{1:2}x{1:2}x{1:2}", "1x1x1", "65536x65536x65536", "B T T", "A B C D E F G H I J",
          "_ __ ___", "input.", "tensor.", "site", "[arm]", "=", ";", "#", "\t", "W % 8 == 0, " * 20,
          "1" * 400, "T <= 4096 || 1 / 0", "-(-(-(-(-B))))", "2147483648", "4294967296", "-0"]
BYTES = [b"\x00", b"\xff", b"\xc3", b"\x1b", b"\x7f", b"\r", b"\n", b"[", b"]", b"=", b",", b":", b"(", b")",
         b"\xe2\x80\xae", b"\xed\xa0\x80"]


def mutate(text, rng):
    """One mutant of the seed: 1 to 3 operations on lines, values or bytes."""
    data = text.encode()
    for _ in range(rng.randint(1, 3)):
        lines = data.split(b"\n")
        op = rng.randrange(8)
        i = rng.randrange(len(lines))
        if op == 0 and b"=" in lines[i]:  # a value replaced
            key = lines[i].split(b"=", 1)[0]
            lines[i] = key + b"= " + rng.choice(TRICKY).encode()
        elif op == 1:
            del lines[i]
        elif op == 2:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 3:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 4 and b"," in lines[i]:  # a list item dropped or doubled
            items = lines[i].split(b",")
            k = rng.randrange(len(items))
            items.insert(k, items[k]) if rng.random() < 0.5 else items.pop(k)
            lines[i] = b",".join(items)
        elif op == 5:  # a tricky value appended to a key of another section
            lines.insert(i, rng.choice([b"require = ", b"axes = ", b"tensors = ", b"input.idx = ", b"bytes = ",
                                        b"shape = ", b"tensor.z = ", b"writes = "]) + rng.choice(TRICKY).encode())
        else:
            data = b"\n".join(lines)
            k = rng.randrange(len(data) + 1)
            piece = rng.choice(BYTES)
            data = data[:k] + piece + data[k + (1 if op == 6 else 0):]
            continue
        data = b"\n".join(lines)
    return data


def part_grammar(out, rng, n, n_san):
    part = Part("grammar")
    work = tempfile.mkdtemp(prefix="probe-grammar-", dir=out)
    seed = SEED_SITE.format(lib=LIB)
    base_db = os.path.join(work, "base.db")
    rc, _, err, _ = run([AB, "run", os.path.join(ROOT, "scenarios", "smoke.ini"), "--backend", "cpu", "--quick",
                         "--no-progress", "--only", "ln_modulate_short", "--db", base_db])
    if rc != 0:
        part.notes.append("base run failed: " + err[:200])
        return part
    good = os.path.join(work, "seed.ini")
    with open(good, "w") as f:
        f.write(seed)
    rc, _, err, _ = run([AB, "run", good, "--db", os.path.join(work, "seed.db"), "--no-progress"])
    part.notes.append("the seed itself: exit %s %s" % (rc, err.strip()[:120]))
    stats = {"refused": 0, "ran": 0, "failed": 0, "san": 0}
    for k in range(n):
        m = os.path.join(work, "m.ini")
        with open(m, "wb") as f:
            f.write(mutate(seed, rng))
        san = k < n_san and os.path.exists(AB_SAN)
        binary = AB_SAN if san else AB
        env = env_base(ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
        rc, _, err, _ = run([binary, "sites", m], cwd=work, env=env)
        ok = not signalled(rc) and rc in (0, 2) and "runtime error" not in err and "Sanitizer" not in err
        if rc == 2:
            ok = ok and len(err.strip().splitlines()) == 1 and ("m.ini" in err or "cannot" in err)
        db = os.path.join(work, "r.db")
        for p in (db, db + "-wal", db + "-shm"):
            if os.path.exists(p):
                os.remove(p)
        shutil.copy(base_db, db)
        before = digest(db)
        rc2, _, err2, _ = run([binary, "run", m, "--db", db, "--no-progress"], cwd=work, env=env)
        ok2 = not signalled(rc2) and rc2 in (0, 2, 3) and "runtime error" not in err2 and "Sanitizer" not in err2
        if rc2 == 2:
            stats["refused"] += 1
            ok2 = ok2 and digest(db) == before and len(err2.strip().splitlines()) == 1
        else:
            stats["ran" if rc2 == 0 else "failed"] += 1
        stats["san"] += san
        part.held(ok and ok2, "mutant %d (%s): sites exit %s %s | run exit %s %s" % (
            k, "asan" if san else "plain", rc, err.strip()[:160], rc2, err2.strip()[:200]))
        if not (ok and ok2):
            shutil.copy(m, os.path.join(out, "grammar-finding-%d.ini" % k))
    part.notes.append("runs: %(refused)d refused (exit 2, database unchanged checked), %(ran)d ran, "
                      "%(failed)d failed (exit 3); %(san)d under ASan+UBSan" % stats)
    shutil.rmtree(work, ignore_errors=True)
    return part


# ---- includes -----------------------------------------------------------------

def part_includes(out):
    part = Part("includes")
    work = tempfile.mkdtemp(prefix="probe-inc-", dir=out)
    site = "[site s]\naxes = B W\ntensors = x:bf16:B,W:input, out:bf16:B,W:output\n"
    def w(name, data, mode="w"):
        p = os.path.join(work, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, mode) as f:
            f.write(data)
        return p
    w("ok.ini", site)
    w("nul.ini", site.encode() + b"\x00", "wb")
    w("latin1.ini", site.encode() + b"; caf\xe9\n", "wb")
    w("case.ini", site + "[case c]\nsite = s\nshape = 1x8\n")
    w("arm.ini", site + "[arm x]\ntype = python\nmodule = m.py\nfunction = f\n")
    w("big.ini", "; " + "x" * 190 + "\n" * 1 + ("; " + "y" * 190 + "\n") * 11000)
    w("sub/inner.ini", "[site t]\naxes = B\ntensors = x:bf16:B:input\ninclude = ../ok.ini\n")
    w("scen.ini", "[scenario]\nname = inner\n" + site)
    os.mkfifo(os.path.join(work, "fifo.ini"))
    os.mkdir(os.path.join(work, "dir.ini"))
    os.symlink("self_link.ini", os.path.join(work, "self_link.ini"))
    os.symlink("ok.ini", os.path.join(work, "link_ok.ini"))
    os.symlink("nowhere.ini", os.path.join(work, "dangling.ini"))
    tricks = [
        ("itself", "main.ini", 2), ("twice", "ok.ini, ok.ini", 2), ("a FIFO", "fifo.ini", 2),
        ("a directory", "dir.ini", 2), ("/dev/null", "/dev/null", 2), ("/dev/zero", "/dev/zero", 2),
        ("a link to itself", "self_link.ini", 2), ("a dangling link", "dangling.ini", 2),
        ("a NUL byte", "nul.ini", 2), ("a Latin-1 byte", "latin1.ini", 2), ("a [case] in a site file", "case.ini", 2),
        ("an [arm] in a site file", "arm.ini", 2), ("past 1 MiB", "big.ini", 2), ("a missing file", "missing.ini", 2),
        ("an include inside an included file", "sub/inner.ini", 2), ("a [scenario] in a site file", "scen.ini", 2),
        ("an empty item", "ok.ini, ", 2), ("a path of 5000 bytes", "a/" * 2500 + "x.ini", 2),
        ("a link to a good file (legal)", "link_ok.ini", 0),
    ]
    for desc, inc, want in tricks:
        main = w("main.ini", "[scenario]\nname = inc\nbackend = cpu\ninclude = %s\nmin_samples = 3\nmax_samples = 3\n"
                 "[arms]\na = eager\nb = fused\n[case c]\nsite = residual_gate_add\nshape = 1x8x8\n" % inc)
        rc, _, err, secs = run([AB, "sites", main], cwd=work, timeout=20)
        # one line, at the include's line or at the line of the included file at fault
        one_line = rc == 0 or (len(err.strip().splitlines()) == 1 and re.search(r"\.ini:\d+: ", err) is not None)
        part.held(rc == want and one_line, "include %s: exit %s (wanted %d) in %.1f s: %s" % (
            desc, rc, want, secs, err.strip()[:200]))
    shutil.rmtree(work, ignore_errors=True)
    return part


# ---- python -------------------------------------------------------------------

def part_python(out):
    part = Part("python")
    work = tempfile.mkdtemp(prefix="probe-py-", dir=out)
    faults, stops = os.path.join(PYDATA, "faults.py"), os.path.join(PYDATA, "stops.py")
    with open(os.path.join(work, "imp_exit.py"), "w") as f:
        f.write("import os\nos._exit(0)\ndef f(t, d):\n    pass\n")
    with open(os.path.join(work, "imp_loop.py"), "w") as f:
        f.write("while True:\n    pass\ndef f(t, d):\n    pass\n")
    # (what, arm b, call_limit_s, exits wanted, SIGTERM after seconds or None)
    cases = [("an exception", faults + ":divides", 60, {3}, None),
             ("a bad reshape", faults + ":bad_reshape", 60, {3}, None),
             ("the wrong dtype", faults + ":wrong_dtype", 60, {3}, None),
             ("a tensor replaced", faults + ":replaces", 60, {3}, None),
             ("a value returned", faults + ":returns", 60, {3}, None),
             ("an input written", faults + ":into_input", 60, {3}, None),
             ("a tensor kept", faults + ":keeps", 60, {3}, None),
             ("sys.exit", faults + ":exits", 60, {3}, None),
             ("os._exit in a call", stops + ":os_exit", 60, {3}, None),
             ("_exit through ctypes", stops + ":libc_exit", 60, {3}, None),
             ("a segfault", stops + ":segfault", 60, {3}, None),
             ("SIGKILL to itself", stops + ":kills_self", 60, {137}, None),
             ("spinning past the limit", stops + ":spins", 1, {3}, None),
             ("asleep past the limit", stops + ":sleeps", 1, {3}, None),
             ("swallowing the stop past the limit", stops + ":stubborn", 1, {3}, None),
             ("os._exit at import", os.path.join(work, "imp_exit.py") + ":f", 60, {2}, None),
             ("a loop at import, then SIGTERM", os.path.join(work, "imp_loop.py") + ":f", 0, {143}, 1.0)]
    for k, (desc, arm, limit, want, term) in enumerate(cases):
        ini = os.path.join(work, "p%d.ini" % k)
        with open(ini, "w") as f:
            f.write("[scenario]\nname = py\nbackend = cpu\nwarmup = 0\nmin_samples = 3\nmax_samples = 3\n"
                    "call_limit_s = %s\n[arms]\na = eager\nb = python:%s\n[case gate]\nsite = residual_gate_add\n"
                    "shape = 1x64x256\n" % (limit, arm))
        db = os.path.join(work, "p%d.db" % k)
        t0 = time.time()
        p = subprocess.Popen([AB, "run", ini, "--db", db, "--no-progress"], env=env_base(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        if term:
            time.sleep(term)
            p.send_signal(signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=60)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            rc = "timeout"
        secs = time.time() - t0
        status = ""
        if os.path.exists(db):
            with sqlite3.connect(db) as c:
                status = ",".join(r[0] for r in c.execute("SELECT status FROM runs"))
        ok = rc in want and "running" not in status
        part.held(ok, "%s: exit %s (wanted %s) in %.1f s, rows '%s': %s" % (
            desc, rc, sorted(want), secs, status, err.decode(errors="replace").strip()[:200]))
    shutil.rmtree(work, ignore_errors=True)
    return part


# ---- numbers ------------------------------------------------------------------

TIME_BAD = ["-1", "-1e-9", "-1e300", "1e16", "1e308", "-0.5", "2e15", "-123456", "1e300", "-3"]
COUNT_BAD = ["-1", "-2", "-9223372036854775808", "-100", "-7", "-1000000", "-5", "-42", "-3", "-99"]
COLUMNS = [("slots", c, TIME_BAD) for c in ("median_ns", "p10_ns", "p90_ns", "min_ns", "max_ns", "mean_ns",
                                            "kernel_median_ns")] + [
    ("slots", "elapsed_s", ["-1", "-1e-9", "2e6", "1e300", "-5", "1e7", "-0.5", "3e6", "1e12", "-1e300"]),
    ("slots", "noise", ["-1", "-0.5", "-1e-9", "1e309", "-1e300", "-2", "-0.001", "-100", "-7", "-3"]),
    ("slots", "before_temp_c", ["5000", "-300", "100000", "-1000", "2000", "9999", "-274", "1001", "65535", "-40000"]),
    ("slots", "after_sm_mhz", ["-1", "100001", "1000000", "-5", "2000000", "-100", "999999", "-1000", "500000", "-9"]),
    ("slots", "n_samples", ["-1", "-5", "4294967301", "100000000", "-100", "10000001", "-2", "99999999", "-3", "-9"]),
    ("samples", "wall_ns", TIME_BAD), ("samples", "kernel_ns", TIME_BAD), ("samples", "host_ns", TIME_BAD),
    ("slots", "host_median_ns", TIME_BAD), ("slots", "host_p90_ns", TIME_BAD),
    ("kernel_times", "total_ns", TIME_BAD), ("kernel_times", "min_ns", TIME_BAD), ("kernel_times", "max_ns", TIME_BAD),
    ("kernel_times", "launches", COUNT_BAD),
    ("outputs", "mismatches", ["-1", "1e12", "-5", "9223372036854775807", "-100", "99999999999", "-2", "1e15", "-3", "-9"]),
    ("outputs", "ref_skipped", ["-1", "1e12", "-5", "9223372036854775807", "-100", "99999999999", "-2", "1e15", "-3", "-9"]),
    ("outputs", "max_abs_err", ["-1", "-1e300", "-0.5", "-1e-9", "-2", "-100", "-3", "-7", "-1e10", "-42"]),
    ("outputs", "max_err_ratio", ["-1", "-1e300", "-0.5", "-1e-9", "-2", "-100", "-3", "-7", "-1e10", "-42"]),
    ("outputs", "bytes", COUNT_BAD),
    ("cases", "copy_floor_ns", ["-1", "-1e300", "1e-300", "1e-9", "2e15", "1e308", "-0.5", "1e-20", "-3", "1e-100"]),
    ("cases", "copy_floor_kernel_ns", ["-1", "-1e300", "1e-300", "1e-9", "2e15", "1e308", "-0.5", "1e-20", "-3", "1e-100"]),
    ("cases", "eps", ["-1", "-1e-5", "1e309", "-1e300", "-0.5", "-2", "-1e-9", "-100", "-3", "-7"]),
    ("cases", "bytes_min", COUNT_BAD), ("cases", "bytes_a", COUNT_BAD), ("cases", "count", COUNT_BAD),
    ("cases", "ordinal", COUNT_BAD), ("cases", "copy_floor_samples", ["-1", "-2", "10000001", "-100", "99999999",
                                                                     "-5", "-7", "-9", "-3", "-42"]),
    ("devices", "copy_gbps", ["1e308", "-1", "1e7", "1e300", "-1e300", "2e6", "-0.5", "1e9", "-3", "5e6"]),
    ("devices", "default_sm_mhz", ["-1", "100001", "1000000", "-5", "2000000", "-100", "999999", "-1000", "500000",
                                   "-9"]),
    ("devices", "l2_bytes", COUNT_BAD), ("devices", "mem_bytes", COUNT_BAD), ("devices", "sm_count", COUNT_BAD),
    ("runs", "steps", COUNT_BAD), ("runs", "forwards_per_step", COUNT_BAD), ("runs", "cases_planned", COUNT_BAD),
]
COMMANDS = [["show", "2"], ["show", "2", "--format", "json"], ["export", "2", "--csv", "{t}/x.csv"],
            ["export", "2", "--format", "json", "--out", "{t}/x.json"], ["report", "2", "--no-plots", "--out", "{t}/rep"],
            ["compare", "1", "2"], ["gate", "2", "--baseline", "1"], ["history"], ["publish", "{t}/pub", "--no-plots"]]


def where_run2(table):
    slots = "(SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.run_id = 2)"
    return {"slots": "id IN " + slots, "samples": "slot_id IN " + slots, "kernel_times": "slot_id IN " + slots,
            "outputs": "slot_id IN " + slots, "cases": "run_id = 2",
            "devices": "id = (SELECT device_id FROM runs WHERE id = 2)", "runs": "id = 2"}[table]


def part_numbers(out):
    part = Part("numbers")
    work = tempfile.mkdtemp(prefix="probe-num-", dir=out)
    good = os.path.join(work, "good.db")
    for k in (1, 2):
        rc, _, err, _ = run([AB, "run", os.path.join(ROOT, "scenarios", "smoke.ini"), "--backend", "cpu", "--quick",
                             "--no-progress", "--only", "ln_modulate_short", "--db", good])
        if rc != 0:
            part.notes.append("base run %d failed: %s" % (k, err[:200]))
            return part
    with sqlite3.connect(good) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    refused = crashed = 0
    for table, column, values in COLUMNS:
        assert len(values) == 10, (table, column)
        for v in values:
            t = tempfile.mkdtemp(dir=work)
            db = os.path.join(t, "bad.db")
            shutil.copy(good, db)
            with sqlite3.connect(db) as c:
                c.execute("UPDATE %s SET %s = %s WHERE %s" % (table, column, v, where_run2(table)))
            bad = []
            for cmd in COMMANDS:
                argv = [AB] + [a.format(t=t) for a in cmd] + ["--db", db]
                rc, _, err, _ = run(argv, cwd=t, timeout=60)
                crashed += signalled(rc)
                if rc == 2 and "bad row in table" in err:
                    refused += 1
                else:
                    bad.append("%s: exit %s %s" % (cmd[0], rc, err.strip()[:120]))
            part.held(not bad, "%s.%s = %s: %s" % (table, column, v, "; ".join(bad)[:400]))
            shutil.rmtree(t, ignore_errors=True)
    part.notes.append("%d command runs refused the row (exit 2, 'bad row'), %d ended by a signal" % (refused, crashed))
    shutil.rmtree(work, ignore_errors=True)
    return part


# ---- html ---------------------------------------------------------------------

PAYLOAD = ("<script>document.documentElement.setAttribute('data-pwned','s')</script>"
           "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','i')\">"
           " www.evil.example http://evil.example/x javascript:alert(1) [l](javascript:alert(2)) ](http://evil.example)")
# shorter ones for the text fields of fixed size (the longest that fits is planted)
PAYLOADS = [PAYLOAD, "<img src=x onerror=alert(1)> www.evil.example", "<svg onload=alert(1)>", "www.evil.example"]


class Injected(html.parser.HTMLParser):
    """What a planted string would have added to the DOM: script elements,
    on* attributes, links to the planted URLs, the mark a script leaves."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            v = (value or "").lower()
            if name.startswith("on") or name == "data-pwned":
                self.found.append("<%s %s=...>" % (tag, name))
            if name in ("href", "src") and (v.startswith("javascript:") or re.match(r"(https?:)?//[^/]*evil|www\.evil", v)):
                self.found.append("<%s %s=%s>" % (tag, name, v[:40]))
        if tag == "script":
            self.found.append("<script>")


def injected(dom):
    p = Injected()
    p.feed(dom)
    return p.found


def chromium_dom(page):
    rc, dom, err, _ = run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                           "file://" + page], timeout=60, env=dict(os.environ, HOME=os.path.dirname(page)))
    return rc, dom


def part_html(out):
    part = Part("html")
    work = tempfile.mkdtemp(prefix="probe-html-", dir=out)
    good = os.path.join(work, "good.db")
    scn = os.path.join(work, "s.ini")
    with open(scn, "w") as f:
        f.write("[scenario]\nname = html\nbackend = cpu\nwarmup = 0\nmin_samples = 3\nmax_samples = 3\n[arms]\n"
                "a = eager\nb = python:%s:rga_exact\n[case gate]\nsite = residual_gate_add\nshape = 1x64x256\n"
                % os.path.join(PYDATA, "rga_numpy.py"))
    rc, _, err, _ = run([AB, "run", scn, "--db", good, "--no-progress", "--label", "base"])
    if rc != 0 or not shutil.which("chromium"):
        part.notes.append("no base run or no chromium: " + err[:200])
        return part
    with sqlite3.connect(good) as c:
        columns = [(t, col) for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                   for (_, col, typ, _, _, _) in c.execute("PRAGMA table_info(%s)" % t)
                   if typ.upper() == "TEXT" and t in ("runs", "cases", "slots", "kernel_times", "outputs", "devices",
                                                       "run_arms")]
    refused = shown = 0
    for table, column in columns:
        t = tempfile.mkdtemp(dir=work)
        db = os.path.join(t, "p.db")
        shutil.copy(good, db)
        for payload in PAYLOADS:  # the longest that fits the field (a longer one is refused, 'bytes long')
            shutil.copy(good, db)
            try:
                with sqlite3.connect(db) as c:
                    c.execute("UPDATE %s SET %s = ? " % (table, column), (payload,))
            except sqlite3.IntegrityError as e:  # the schema's own CHECK refuses it: held
                rc, err = "check", str(e)
                break
            shutil.rmtree(os.path.join(t, "site"), ignore_errors=True)
            rc, _, err, _ = run([AB, "publish", os.path.join(t, "site"), "--db", db], cwd=t, timeout=120)
            if not (rc == 2 and "bytes long" in err):
                break
        if rc == "check":
            refused += 1
            part.held(True, "%s.%s: %s" % (table, column, err))
            shutil.rmtree(t, ignore_errors=True)
            continue
        if rc == 2 and "bad row" in err:  # a checked column: refused, nothing written
            refused += 1
            part.held(not os.path.exists(os.path.join(t, "site", "index.html")), "%s.%s refused" % (table, column))
            shutil.rmtree(t, ignore_errors=True)
            continue
        pages = [os.path.join(r, n) for r, _, ns in os.walk(os.path.join(t, "site")) for n in ns if n.endswith(".html")]
        bad = [] if rc == 0 else ["publish exit %s %s" % (rc, err[:120])]
        for page in pages:
            crc, dom = chromium_dom(page)
            if crc != 0 or "<html" not in dom:
                bad.append("chromium exit %s on %s" % (crc, page))
                continue
            found = injected(dom)
            if found:
                bad.append("injected in %s: %s" % (os.path.relpath(page, t), ", ".join(found[:3])))
        shown += 1
        part.held(not bad, "%s.%s: %s" % (table, column, "; ".join(bad)))
        shutil.rmtree(t, ignore_errors=True)
    part.notes.append("%d text columns: %d refused by the row check, %d published and read by Chromium" % (
        len(columns), refused, shown))
    shutil.rmtree(work, ignore_errors=True)
    return part


# ---- kills --------------------------------------------------------------------

def part_kills(out, rng, trials):
    part = Part("kills")
    work = tempfile.mkdtemp(prefix="probe-kill-", dir=out)
    db = os.path.join(work, "k.db")
    scn = os.path.join(work, "k.ini")
    with open(scn, "w") as f:
        f.write("[scenario]\nname = kill\nbackend = cpu\nwarmup = 0\nmin_samples = 2000\nmax_samples = 2000\n"
                "min_time_ms = 1\nmax_time_ms = 100000\ntarget_noise = 0.0000001\nl2_flush = false\n[arms]\na = eager\n"
                "b = fused\n[case c1]\nsite = ln_modulate\nshape = 1x16x256\n[case c2]\nsite = residual_gate_add\n"
                "shape = 1x16x256\n")
    t0 = time.time()
    run([AB, "run", scn, "--db", db, "--no-progress"], timeout=120)
    span = max(time.time() - t0, 0.2)
    children = 0
    for k in range(trials):
        p = subprocess.Popen([AB, "run", scn, "--db", db, "--no-progress"], env=env_base(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.random() * span * 0.9)
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
        child = int(kids[0]) if kids else 0
        target, whom = p.pid, "supervisor"
        if k % 2 and child:  # the run's own process, not its supervisor
            target, whom, children = child, "run's process", children + 1
        landed = p.poll() is None
        if landed:
            os.kill(target, signal.SIGKILL)
        else:
            whom += " (the run had ended)"
        rc_run = p.wait(timeout=30)
        time.sleep(0.1)  # a killed supervisor's run dies with it (PR_SET_PDEATHSIG), a moment later
        orphan = False
        if child and target != child:
            try:
                os.kill(child, 0)
                orphan = open("/proc/%d/stat" % child).read().split()[2] != "Z"
            except (ProcessLookupError, FileNotFoundError):
                pass
        rc, _, err, _ = run([AB, "list", "--db", db])
        with sqlite3.connect(db) as c:
            integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
            running = c.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0]
            incomplete = c.execute("SELECT count(*) FROM runs r WHERE status = 'ok' AND (SELECT count(*) FROM cases c "
                                   "WHERE c.run_id = r.id) <> 2").fetchone()[0]
        part.held(rc == 0 and integrity == "ok" and running == 0 and incomplete == 0 and (rc_run != 0 or not landed)
                  and not orphan,
                  "kill %d of the %s: run exit %s, list exit %s, integrity %s, %d running, %d incomplete ok%s" % (
                      k, whom, rc_run, rc, integrity, running, incomplete, ", its run still alive" if orphan else ""))
    with sqlite3.connect(db) as c:
        n_runs = c.execute("SELECT count(*) FROM runs").fetchone()[0]
    part.notes.append("%d kill -9 trials (%d of the run's own process, the rest of its supervisor), %d runs stored" % (
        trials, children, n_runs))
    # publish killed, then one that finishes
    site = os.path.join(work, "site")
    left = 0
    tmp = re.compile(r"\.(png|svg|html|md|css|dat|gp)\.tmp[A-Za-z0-9]{6}$")
    temporaries = lambda: [n for _, _, ns in os.walk(site) for n in ns if tmp.search(n)]
    seen = 0
    t0 = time.time()
    run([AB, "publish", site, "--db", db], timeout=300)
    span_pub = time.time() - t0
    for k in range(6):
        p = subprocess.Popen([AB, "publish", site, "--db", db], env=env_base(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(span_pub * (k + 0.5) / 6)
        p.kill()
        p.wait()
        seen = max(seen, len(temporaries()))
        rc, _, err, _ = run([AB, "publish", site, "--db", db], timeout=300)
        left = temporaries()
        part.held(rc == 0 and not left, "publish after a killed one: exit %s, %d temporaries left" % (rc, len(left)))
    part.notes.append("6 publishes killed over its %.1f s (up to %d temporaries left by one), each followed by a "
                      "whole one" % (span_pub, seen))
    # four runs at once into one new database
    db2 = os.path.join(work, "c.db")
    procs = [subprocess.Popen([AB, "run", os.path.join(ROOT, "scenarios", "smoke.ini"), "--backend", "cpu", "--quick",
                               "--no-progress", "--db", db2], env=env_base(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for _ in range(4)]
    rcs = [p.wait(timeout=300) for p in procs]
    with sqlite3.connect(db2) as c:
        status = [r[0] for r in c.execute("SELECT status FROM runs ORDER BY id")]
    for k, rc in enumerate(rcs):
        part.held(rc == 0 and k < len(status) and status[k] == "ok", "concurrent run %d: exit %s, rows %s" % (
            k, rc, status))
    shutil.rmtree(work, ignore_errors=True)
    return part


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("parts", nargs="*", default=["grammar", "includes", "python", "numbers", "html", "kills"])
    ap.add_argument("--out", default=os.environ.get("OUT", os.path.join(ROOT, "probe-out")))
    ap.add_argument("--seed", type=int, default=31)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    n = int(os.environ.get("PROBE_MUTANTS", 4100))
    n_san = int(os.environ.get("PROBE_SAN_MUTANTS", 600))
    kills = int(os.environ.get("PROBE_KILLS", 30))
    parts = {"grammar": lambda: part_grammar(a.out, rng, n, n_san), "includes": lambda: part_includes(a.out),
             "python": lambda: part_python(a.out), "numbers": lambda: part_numbers(a.out),
             "html": lambda: part_html(a.out), "kills": lambda: part_kills(a.out, rng, kills)}
    done = []
    with open(os.path.join(a.out, "findings.txt"), "w") as log:
        for name in a.parts:
            p = parts[name]()
            p.secs = time.time() - p.t0
            done.append(p)
            for b in p.bad:
                log.write("%s: %s\n" % (name, b))
            log.flush()
            print("%s: %d, %d not held (%.0f s)" % (name, p.count, len(p.bad), p.secs), flush=True)
    print()
    print("%-9s %7s %6s %9s %6s  %s" % ("part", "count", "held", "not held", "secs", "notes"))
    for p in done:
        print("%-9s %7d %6d %9d %6.0f  %s" % (p.name, p.count, p.count - len(p.bad), len(p.bad), p.secs,
                                             "; ".join(p.notes)))
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump([{"part": p.name, "count": p.count, "not_held": len(p.bad), "notes": p.notes} for p in done], f,
                  indent=1)
    return 0 if all(not p.bad for p in done) else 1


if __name__ == "__main__":
    sys.exit(main())
