# Python arms for tests/unit/test_pyrt_fake_torch.c: what a cuda arm sees,
# checked against the stand-in torch in fake_torch/ (which records what
# pyrt asked of it).
import torch

KEPT = []


def check(t, d):
    x, xb, out = t['x'], t['xb'], t['out']
    if x.dtype is not torch.float32 or xb.dtype is not torch.bfloat16 or out.shape != (2, 3):
        raise TypeError('dtypes %r %r, shape %r' % (x.dtype, xb.dtype, out.shape))
    if d['backend'] != 'cuda' or d['device'] != 'cuda:1' or x.device != torch.device('cuda', 1):
        raise ValueError('device %r, backend %r' % (d['device'], d['backend']))
    if torch.cuda.current_device() != 1 or torch.cuda.current_stream().cuda_stream != d['stream']:
        raise ValueError('current stream %#x, abbench stream %#x' % (torch.cuda.current_stream().cuda_stream,
                                                                   d['stream']))
    if [p for op, p, dev in torch.LOG[-3:]] != [x.data_ptr(), xb.data_ptr(), out.data_ptr()]:
        raise ValueError('as_tensor calls %r' % (torch.LOG,))


def other_stream(t, d):
    torch.cuda.set_stream(torch.cuda.get_stream_from_external(0xdead, torch.device('cuda', 1)))


def keeps(t, d):
    KEPT.append(t['xb'])
