# torch arms of the built-in site residual_gate_add for the GPU self-check
# of Python arms (scripts/gpu/python.sh, CUDA backend): t holds torch
# tensors over abbench's device buffers, bf16 as torch.bfloat16, and
# abbench's stream is torch's current one (docs/PYTHON_ARMS.md).
import sys
import time

import torch


def rga_eager(t, d):
    # PyTorch's eager chain: ff * gate (gate [B, W] broadcast over tokens),
    # then x + that; two aten launches, the product rounded to bf16 in
    # between, as abbench's built-in eager arm (which IS this, bit for bit).
    # The product goes into abbench's scratch tensor instead of a new one.
    torch.mul(t['ff'], t['gate'].unsqueeze(1), out=t['ff_gated'])
    torch.add(t['x'], t['ff_gated'], out=t['out'])


def rga_inductor(t, d):
    # The product kept in float32, as a fused kernel would: not byte-equal.
    p = t['ff'].float() * t['gate'].unsqueeze(1).float()
    t['out'].copy_(t['x'].float() + p)


def raises(t, d):
    t['x'].view(3, -1)  # MARK: raises


def into_input(t, d):
    rga_eager(t, d)
    t['x'][0, 0, 0] = 1.0


_slots = []


def slow_first(t, d):
    # The first call of every slot sleeps, as a JIT compilation takes its
    # time: the CUDA backend makes that call untimed (the warm-up).
    if not any(s is d for s in _slots):
        _slots.append(d)
        print('slow_first: first call of a slot, sleeping 0.3 s', file=sys.stderr)
        time.sleep(0.3)
    rga_eager(t, d)


def syncs(t, d):
    # Waits for the GPU while queueing: behind the blocking kernel of
    # launch_gaps = hide the GPU waits for this call to return, and the
    # call for the GPU; abbench must say so within the kernel's timeout.
    rga_eager(t, d)
    torch.cuda.synchronize()


def item(t, d):
    # The same through .item(): a copy to the host, waited for.
    rga_eager(t, d)
    t['out'][0, 0, 0].item()
