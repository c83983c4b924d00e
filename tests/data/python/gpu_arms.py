# Python arms for the GPU check of pyrt (tests/gpu/pyrt_gpu_check.c, run by
# scripts/gpu/pyrt_check.sh on the GPU machine): torch and Triton on the
# tensors pyrt makes over abbench-style device buffers, with abbench's
# stream current. Tensors: x, out (f32), xb, outb (bf16), info (int64, 4).
import numpy as np
import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the check reports the Triton rows as failed
    triton = None


def numpy_add_one(t, d):
    t['out'][...] = t['x'] + np.float32(1)


def torch_add_one(t, d):
    torch.add(t['x'], 1, out=t['out'])
    torch.add(t['xb'], 1, out=t['outb'])


if triton is not None:
    @triton.jit
    def _add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def triton_add_one(t, d):
    if triton is None:
        raise ImportError('triton is not installed for %s' % d['device'])
    n = t['x'].numel()
    grid = (triton.cdiv(n, 1024),)
    _add_one[grid](t['x'], t['out'], n, BLOCK=1024)
    _add_one[grid](t['xb'], t['outb'], n, BLOCK=1024)


def check_stream(t, d):
    # what torch sees, for the C side to compare with what abbench gave
    s = torch.cuda.current_stream()
    info = torch.tensor([s.cuda_stream, torch.cuda.current_device(), t['x'].data_ptr(),
                         int(t['xb'].dtype == torch.bfloat16 and d['stream'] == s.cuda_stream)], dtype=torch.int64)
    t['info'].copy_(info)


def noop(t, d):
    pass


def raises(t, d):
    t['x'].view(7, 7)  # MARK: gpu-raise


KEPT = []


def keeps(t, d):
    KEPT.append(t['out'])


def changes_stream(t, d):
    torch.cuda.set_stream(torch.cuda.Stream())
