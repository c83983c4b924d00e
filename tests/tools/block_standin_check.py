#!/usr/bin/python3
"""Checks the numpy stand-in of the GLM-Image block (examples/python/
glm_block_np.py) through the Python-arm contract, without abbench:

    /usr/bin/python3 tests/tools/block_standin_check.py

Debian's interpreter, with python3-numpy (`make deps`). It calls
glm_block.py's block_eager, block_fused, step_eager and step_fused as
abbench's CPU backend will, fn(t, d) with uint16 arrays (the inputs
read-only, the outputs poisoned with 0xFFFF), at two tiny shapes (one
with batch 2 and token counts that are not multiples of the fused passes'
row block), and checks:
  - each call returns None and overwrites every output element;
  - eager and fused outputs are byte-equal (md5 too), block and step;
  - a second eager call gives the same bytes;
  - the outputs are finite, neither saturated nor constant, and depend on
    every input (the text stream reaches the image tokens through the
    joint attention, temb reaches both through the modulation);
  - the eager block is within bf16 rounding of a float64 model of the same
    block written without the stand-in's ops;
  - the byte compare can fail: a fused gate that skips the bf16 rounding
    of y * gate is caught.
One "ok -" / "not ok -" line per check; exit 1 when any failed.
"""
import hashlib
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "python"))

import glm_block  # noqa: E402
import glm_block_np as nb  # noqa: E402
import glm_model as gm  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures += 1


def md5(a):
    return hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()


def make_case(dims, seed, eps=1e-5):
    """t and d as abbench's CPU backend gives them to a Python arm."""
    rng = np.random.default_rng(seed)
    shapes = dict(img=(dims.batch, dims.img, dims.hidden), txt=(dims.batch, dims.txt, dims.hidden),
                  temb=(dims.batch, dims.temb))
    t = {}
    for name, shape in shapes.items():
        a = nb.to_bf16(rng.standard_normal(shape, dtype=np.float32))
        a.flags.writeable = False
        t[name] = a
    t["img_out"] = np.full(shapes["img"], 0xFFFF, np.uint16)
    t["txt_out"] = np.full(shapes["txt"], 0xFFFF, np.uint16)
    axes = dict(B=dims.batch, I=dims.img, S=dims.txt, W=dims.hidden, H=dims.heads, E=dims.temb)
    d = dict(case="standin", site="glm_block", axes=axes, dims=dict(axes), eps=eps, affine=False, backend="cpu",
             device="cpu", stream=None, dtypes={k: "bf16" for k in t})
    return t, d


def call(fn, t, d):
    """Runs fn on fresh outputs; returns its result and copies of the outputs."""
    t["img_out"][...] = 0xFFFF
    t["txt_out"][...] = 0xFFFF
    ret = fn(t, d)
    return ret, t["img_out"].copy(), t["txt_out"].copy()


def stats(a):
    v = nb.to_f32(a).astype(np.float64)
    return float(np.abs(v).max()), float(v.std())


# ---- a float64 model of the block, written apart from the stand-in ----------


def ref_block(w, h, e, temb, dims, eps):
    f = lambda a: nb.to_f32(a).astype(np.float64)
    lin = lambda x, p: x @ f(w[p + "_w"]).T + f(w[p + "_b"])

    def ln(x):
        return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)

    h, e, temb = f(h), f(e), f(temb)
    wd, s = dims.hidden, dims.txt
    emb = lin(temb, "ada")
    c = {n: emb[:, i * wd:(i + 1) * wd][:, None, :] for i, n in enumerate(gm.ADA_CHUNKS)}
    nh = ln(h) * (1 + c["scale_msa"]) + c["shift_msa"]
    ne = ln(e) * (1 + c["c_scale_msa"]) + c["c_shift_msa"]
    x = np.concatenate([ne, nh], axis=1)
    b, n, _ = x.shape
    q, k, v = (lin(x, p).reshape(b, n, dims.heads, -1) for p in "qkv")
    q, k = ln(q), ln(k)
    cos, sin = (a.astype(np.float64) for a in nb.rope_tables(dims))
    half = dims.head_dim // 2
    for a in (q, k):
        img = a[:, s:].copy()
        rot = np.concatenate([-img[..., half:], img[..., :half]], axis=-1)
        a[:, s:] = img * cos[None, :, None, :] + rot * sin[None, :, None, :]
    qh, kh, vh = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    sc = qh @ kh.transpose(0, 1, 3, 2) / math.sqrt(dims.head_dim)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    o = (p / p.sum(-1, keepdims=True)) @ vh
    o = lin(o.transpose(0, 2, 1, 3).reshape(b, n, wd), "o")
    h = h + o[:, s:] * c["gate_msa"]
    e = e + o[:, :s] * c["c_gate_msa"]

    def ff(x):
        u = lin(x, "ff1")
        u = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u**3)))
        return lin(u, "ff2")

    h = h + ff(ln(h) * (1 + c["scale_mlp"]) + c["shift_mlp"]) * c["gate_mlp"]
    e = e + ff(ln(e) * (1 + c["c_scale_mlp"]) + c["c_shift_mlp"]) * c["c_gate_mlp"]
    return h, e


# ---- the checks --------------------------------------------------------------


def check_contract_and_equality(name, dims, t, d):
    results = {}
    for path in ("eager", "fused"):
        fn = getattr(glm_block, f"{name}_{path}")
        ret, img, txt = call(fn, t, d)
        check(ret is None, f"{dims_name(dims)} {name}_{path} returns None")
        check(not (img == 0xFFFF).any() and not (txt == 0xFFFF).any(),
              f"{dims_name(dims)} {name}_{path} writes every element of img_out and txt_out")
        results[path] = (img, txt)
    (ei, et), (fi, ft) = results["eager"], results["fused"]
    check(np.array_equal(ei, fi) and md5(ei) == md5(fi),
          f"{dims_name(dims)} {name}: img_out eager == fused (md5 {md5(ei)} / {md5(fi)})")
    check(np.array_equal(et, ft) and md5(et) == md5(ft),
          f"{dims_name(dims)} {name}: txt_out eager == fused (md5 {md5(et)} / {md5(ft)})")
    _, img2, txt2 = call(getattr(glm_block, f"{name}_eager"), t, d)
    check(np.array_equal(ei, img2) and np.array_equal(et, txt2), f"{dims_name(dims)} {name}: eager twice, same bytes")
    for out, a in (("img_out", ei), ("txt_out", et)):
        amax, std = stats(a)
        check(np.isfinite(nb.to_f32(a)).all() and 0.05 < std and amax < 1e4,
              f"{dims_name(dims)} {name}: {out} finite, not constant, not saturated (max |x| {amax:.3g}, std {std:.3g})")
    return ei, et


def check_dependence(dims, t, d):
    """Each input moves the outputs it should."""
    _, img0, txt0 = call(glm_block.block_eager, t, d)
    for name, moved in (("txt", ("img_out", "txt_out")), ("temb", ("img_out", "txt_out")), ("img", ("img_out",
                                                                                                    "txt_out"))):
        t2 = dict(t)
        a = t[name].copy()
        flat = a.reshape(-1)
        flat[:1] = nb.to_bf16(nb.to_f32(flat[:1]) + np.float32(3.0))
        t2[name] = a
        _, img1, txt1 = call(glm_block.block_eager, t2, d)
        changed = {"img_out": not np.array_equal(img0, img1), "txt_out": not np.array_equal(txt0, txt1)}
        check(all(changed[m] for m in moved), f"{dims_name(dims)} a change in {name} reaches {', '.join(moved)}")


def check_reference(dims, t, d, img, txt):
    w = nb.make_weights(dims, 0)
    rh, re_ = ref_block(w, t["img"], t["txt"], t["temb"], dims, d["eps"])
    for out, got, ref in (("img_out", img, rh), ("txt_out", txt, re_)):
        err = np.abs(nb.to_f32(got).astype(np.float64) - ref).max() / max(ref.std(), 1e-30)
        check(err < 0.05, f"{dims_name(dims)} block {out} within bf16 rounding of the float64 model "
              f"(max |error| / std {err:.3g}, bound 0.05)")


def check_discrimination(dims, t, d):
    """An inexact fused gate (no rounding of y * gate) must be caught."""
    exact = nb.FUSED["gate"]
    nb.FUSED["gate"] = lambda x, y, g: nb.to_bf16(nb.to_f32(x) + nb.to_f32(y) * nb.to_f32(g)[:, None, :])
    try:
        _, fi, ft = call(glm_block.block_fused, t, d)
    finally:
        nb.FUSED["gate"] = exact
    _, ei, et = call(glm_block.block_eager, t, d)
    n = int((fi != ei).sum() + (ft != et).sum())
    check(n > 0, f"{dims_name(dims)} a fused gate without the product's rounding differs in {n} elements: caught")


def dims_name(dims):
    return f"B{dims.batch} I{dims.img} S{dims.txt} W{dims.hidden} H{dims.heads} E{dims.temb}:"


def main():
    shapes = [gm.Dims(1, 16, 8, 64, 2, 16), gm.Dims(2, 9, 5, 48, 3, 8)]
    for i, dims in enumerate(shapes):
        t, d = make_case(dims, 100 + i)
        img, txt = check_contract_and_equality("block", dims, t, d)
        check_contract_and_equality("step", dims, t, d)
        check_dependence(dims, t, d)
        check_reference(dims, t, d, img, txt)
        check_discrimination(dims, t, d)
    print(f"block_standin_check: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
