#!/usr/bin/python3
"""Checks the numpy arms of the lineage sites (examples/python/lineage_numpy.py)
as abbench's CPU backend will call them, without abbench:

    /usr/bin/python3 tests/tools/lineage_numpy_check.py

For each site, at a few small shapes (rows that are not a multiple of the
arms' blocks, a row length that is not a multiple of aten's 512 for the
RMSNorm) and on normal, offset-1000, constant-row and NaN/Inf/subnormal
inputs, it builds t as the CPU backend does (bf16 as uint16, inputs
read-only, outputs pre-filled) and checks that:
  - NAME_fused is byte-equal to NAME_eager on every input;
  - NAME_inexact differs from NAME_eager on normal inputs (the pair the
    gate must flag), yet stays within rounding of a float64 reference;
  - NAME_eager is within rounding of the float64 reference where it is
    finite, and NaN exactly where the reference is;
  - every output element is written (the same bytes with two fills).
Prints one line per check and 'N passed, N failed' last; exit 0 when all
pass, 1 otherwise. Needs numpy only (python3-numpy), about a second.
"""
import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples", "python"))
import lineage_numpy as ln  # noqa: E402

EPS = {"modulate_scale_shift": 1e-5, "rmsnorm_scale_shift": 1e-6, "qk_rmsnorm": 1e-5}

# site -> (axes letters, shapes, tensors: name -> (axes, role, kind)); kind
# "act" draws from the input set, "mod" normal(0, 0.5), "weight" normal(1, 0.1).
SITES = {
    "modulate_scale_shift": ("BTW", [(2, 33, 256), (1, 70, 3072)], {
        "x": ("BTW", "in", "act"), "scale": ("BW", "in", "mod"), "shift": ("BW", "in", "mod"),
        "out": ("BTW", "out", None)}),
    "rmsnorm_scale_shift": ("BTW", [(2, 37, 3000), (1, 70, 4096)], {
        "x": ("BTW", "in", "act"), "weight": ("W", "in", "weight"), "scale": ("BW", "in", "mod"),
        "shift": ("BW", "in", "mod"), "out": ("BTW", "out", None)}),
    "qk_rmsnorm": ("BTHD", [(2, 9, 3, 128), (1, 50, 24, 128)], {
        "q": ("BTHD", "in", "act"), "k": ("BTHD", "in", "act"), "q_weight": ("D", "in", "weight"),
        "k_weight": ("D", "in", "weight"), "q_out": ("BTHD", "out", None), "k_out": ("BTHD", "out", None)}),
}
INPUTS = ("normal", "offset_1000", "constant_rows", "special")


def draw(rng, shape, kind, inputs):
    """float64 values of one tensor (rounded to bf16 by the caller)."""
    if kind == "mod":
        return 0.5 * rng.standard_normal(shape)
    if kind == "weight":
        return 1.0 + 0.1 * rng.standard_normal(shape)
    v = rng.standard_normal(shape)
    if inputs == "offset_1000":
        v = v + 1000.0
    elif inputs == "constant_rows":
        v = np.broadcast_to(rng.standard_normal(shape[:-1] + (1, )), shape).copy()
    elif inputs == "special":
        flat = v.reshape(-1, shape[-1])
        specials = (np.nan, np.inf, -np.inf, 3.3895e38, -3.3895e38)
        for r in range(flat.shape[0]):
            flat[r, (7 * r) % shape[-1]] = specials[r % len(specials)]
            flat[r, (7 * r + 3) % shape[-1]] = 1e-39  # bf16 subnormals
            flat[r, (7 * r + 5) % shape[-1]] = -2e-40
    return v


def to_bits(v):
    return ln.bf16(np.asarray(v, np.float32))


def make_case(site, shape, inputs, seed):
    letters, _, tensors = SITES[site]
    axes = dict(zip(letters, shape))
    rng = np.random.default_rng(seed)
    t = {}
    for name, (dims, role, kind) in tensors.items():
        tshape = tuple(axes[c] for c in dims)
        if role == "in":
            a = to_bits(draw(rng, tshape, kind, inputs))
            a.setflags(write=False)
        else:
            a = np.empty(tshape, np.uint16)
        t[name] = a
    d = dict(case=f"{site}_{inputs}", site=site, axes=axes, dims={}, eps=EPS[site], affine=False, backend="cpu",
             device="cpu", stream=None, dtypes={k: "bf16" for k in t})
    return t, d


def outputs(site):
    return [n for n, (_, role, _) in SITES[site][2].items() if role == "out"]


def run(fn, t, d, fill):
    """Calls fn(t, d) with the outputs pre-filled; returns copies of them."""
    for name in outputs(d["site"]):
        t[name].fill(fill)
    fn(t, d)
    return {name: t[name].copy() for name in outputs(d["site"])}


def reference(site, t, d):
    """float64 reference and absolute tolerance per output (NaN tol: skip)."""
    x64 = lambda n: ln.f32(t[n]).astype(np.float64)
    if site == "qk_rmsnorm":
        ref = {}
        for name in ("q", "k"):
            x = x64(name)
            y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + d["eps"]) * x64(name + "_weight")
            ref[name + "_out"] = (y, 2.0**-5 * np.abs(y) + 1e-30)  # six bf16 roundings, the stats in bf16
        return ref
    x = x64("x")
    s1 = 1.0 + x64("scale")[:, None, :]
    sh = x64("shift")[:, None, :]
    if site == "rmsnorm_scale_shift":
        x = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + d["eps"]) * x64("weight")
    y = x * s1 + sh
    return {"out": (y, 2.0**-6 * (np.abs(x * s1) + np.abs(sh)) + 1e-30)}


def within(site, got, ref):
    """(elements out of tolerance, NaN mismatches) over the outputs."""
    bad = nan_bad = 0
    for name, (r, tol) in ref.items():
        g = ln.f32(got[name]).astype(np.float64)
        with np.errstate(invalid="ignore"):
            fin = np.isfinite(r) & np.isfinite(tol)
            bad += int((np.abs(g - r)[fin] > tol[fin]).sum())
            nan_bad += int((np.isnan(r) != np.isnan(g)).sum())
            inf = np.isinf(r)
            bad += int((g[inf] != r[inf]).sum())
    return bad, nan_bad


def differing(a, b):
    return sum(int((a[k] != b[k]).sum()) for k in a)


class Tally:

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def check_site(tally, site):
    _, shapes, _ = SITES[site]
    eager = getattr(ln, site + "_eager")
    fused = getattr(ln, site + "_fused")
    inexact = getattr(ln, site + "_inexact")
    for si, shape in enumerate(shapes):
        sname = "x".join(map(str, shape))
        for ii, inputs in enumerate(INPUTS):
            t, d = make_case(site, shape, inputs, seed=1000 * si + ii)
            e1, e2 = run(eager, t, d, 0xAAAA), run(eager, t, d, 0x5555)
            tally.check(differing(e1, e2) == 0, f"{site} {sname} {inputs}: eager writes every output element")
            f = run(fused, t, d, 0x5555)
            n = differing(e1, f)
            tally.check(n == 0, f"{site} {sname} {inputs}: fused byte-equal to eager ({n} differ)")
            bad, nan_bad = within(site, e1, reference(site, t, d))
            if inputs != "special":
                tally.check(bad == 0 and nan_bad == 0,
                            f"{site} {sname} {inputs}: eager within rounding of float64 ({bad} out, {nan_bad} NaN)")
            else:
                tally.check(nan_bad == 0, f"{site} {sname} {inputs}: eager NaN where float64 is ({nan_bad} not)")
            if inputs == "normal":
                g = run(inexact, t, d, 0xAAAA)
                n = differing(e1, g)
                bad, nan_bad = within(site, g, reference(site, t, d))
                tally.check(n > 0 and bad == 0, f"{site} {sname} normal: inexact differs from eager ({n} of "
                            f"{sum(v.size for v in e1.values())}) yet within rounding ({bad} out)")


def check_bf16(tally):
    """The bf16 helper: round to nearest even, ties to even, NaN -> 0x7FFF."""
    f = np.array([1.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -2.5, np.nan, np.inf, 1e-40], np.float32)
    got = ln.bf16(f)
    want = np.array([0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7FFF, 0x7F80, 0x0001], np.uint16)
    tally.check(np.array_equal(got, want), f"bf16 rounding: {[hex(v) for v in got]}")
    tally.check(np.array_equal(ln.f32(want[:4]), np.array([1.0, 1.0, 1.0 + 2.0**-6, -2.5], np.float32)),
                "bf16 -> float32")


def main():
    np.seterr(all="ignore")  # the hostile inputs overflow on purpose, in the references too
    tally = Tally()
    check_bf16(tally)
    for site in SITES:
        check_site(tally, site)
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
