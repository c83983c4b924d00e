#!/usr/bin/env python3
"""Exports the Triton kernels of the declared site modulate_scale_shift
(scripts/triton/modulate_scale_shift.py) as Triton's own artefacts,
NAME.cubin and NAME.json, for abbench's cubin arms
(examples/cubin/mss_triton.ini), the way scripts/triton/export.py exports
the GLM sites' kernels: each variant is compiled by an ordinary launch with
TRITON_CACHE_DIR pointed at a fresh folder, and the cache's cubin whose
bytes are the compiled kernel's is copied out with its metadata. The bytes
are then checked by abbench itself, against the example plugin's eager
chain, in the run of examples/cubin/mss_triton.ini (scripts/gpu/sites.sh).

Runs on the GPU machine (torch and triton installed). Exit status 0 when
every variant exported, 1 when one failed, 2 without a GPU.

    python3 scripts/triton/export_mss.py [--out DIR]
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "triton-out"), help="output folder (default: REPO/triton-out)")
    args = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="abbench-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache  # before triton is imported
    import torch
    import triton
    if not torch.cuda.is_available():
        print("export_mss: no CUDA device for PyTorch", file=sys.stderr)
        return 2
    sys.path.insert(0, HERE)
    import modulate_scale_shift as mod
    from export import cached_files
    os.makedirs(args.out, exist_ok=True)
    x = torch.randn(1, 256, 3072, device="cuda").to(torch.bfloat16)
    scale = (0.5 * torch.randn(1, 3072, device="cuda")).to(torch.bfloat16)
    shift = (0.5 * torch.randn(1, 3072, device="cuda")).to(torch.bfloat16)
    failures = 0
    for name, spec in mod.variants().items():
        try:
            ck = mod.launch(spec, x, scale, shift, torch.empty_like(x))
            torch.cuda.synchronize()
            if ck.metadata.name != name:
                raise RuntimeError(f"kernel entry is {ck.metadata.name}, expected {name}")
            cubin, meta = cached_files(cache, ck)
            shutil.copyfile(cubin, os.path.join(args.out, name + ".cubin"))
            shutil.copyfile(meta, os.path.join(args.out, name + ".json"))
            print(f"export_mss: {name} -> {args.out}/{name}.cubin (+.json), triton {triton.__version__}, "
                  f"constexprs {spec['constexprs']}", flush=True)
        except Exception as e:  # one broken kernel must not hide the other
            print(f"export_mss: {name} FAILED: {e}", flush=True)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
