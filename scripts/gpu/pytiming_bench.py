"""do_bench's answer for the Python arms abbench times (issue 28): the
same functions abbench calls as arms, timed by triton.testing.do_bench
(L2 flushed before every rep, median), on tensors of the case's shapes
drawn on the GPU. Prints one line per case and arm and writes JSON.

Usage: pytiming_bench.py --json FILE [CASE=MODULE:EAGER:FUSED:SHAPE:NAMES ...]
with the default cases the silu_mul site's (examples/python/swiglu.py).
Run by scripts/gpu/pytiming.sh with the venv's python.
"""
import argparse
import importlib
import json
import os
import sys

import torch
import triton.testing

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples", "python"))

DEFAULT = [
    "mlp_4096=swiglu:silu_mul_eager:silu_mul_triton:4096x13696:a,b:out",
    "mlp_777=swiglu:silu_mul_eager:silu_mul_triton:777x11008:a,b:out",
    "mlp_777_f32=swiglu:silu_mul_eager:silu_mul_triton_f32:777x11008:a,b:out",
]


def case_run(spec):
    name, rest = spec.split("=", 1)
    module, eager, fused, shape, inputs, outputs = rest.split(":")
    dims = [int(x) for x in shape.split("x")]
    mod = importlib.import_module(module)
    g = torch.Generator(device="cuda").manual_seed(20261206)
    t = {n: torch.randn(dims, device="cuda", generator=g).to(torch.bfloat16) for n in inputs.split(",")}
    d = {"axes": dict(zip("MN", dims)), "case": name, "backend": "cuda"}
    res = {"case": name, "shape": shape}
    outs = {}
    for arm, fn_name in (("eager", eager), ("fused", fused)):
        fn = getattr(mod, fn_name)
        ta = dict(t)
        for o in outputs.split(","):
            ta[o] = torch.empty(dims, device="cuda", dtype=torch.bfloat16)
        fn(ta, d)
        torch.cuda.synchronize()
        outs[arm] = ta[outputs.split(",")[0]].clone()
        res[arm + "_us"] = 1000.0 * triton.testing.do_bench(lambda: fn(ta, d), warmup=25, rep=200,
                                                           return_mode="median")
    res["speedup"] = res["eager_us"] / res["fused_us"]
    res["differ"] = int((outs["eager"].view(torch.int16) != outs["fused"].view(torch.int16)).sum().item())
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    rows = [case_run(s) for s in (args.cases or DEFAULT)]
    for r in rows:
        print(f"do_bench {r['case']:<14} {r['shape']:<11} eager {r['eager_us']:8.2f} us  fused {r['fused_us']:8.2f} us"
              f"  {r['speedup']:.3f}x  differ {r['differ']}")
    with open(args.json, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
