# Python arms for tests/unit/test_pyrt.c: each function is called as
# fn(t, d) by pyrt (harness/arms/pyrt.h) with numpy arrays over the test's
# C buffers. Lines the test expects in messages carry a 'MARK:' comment
# (the test finds their numbers by it, so editing this file is safe).
import sys
import numpy as np


def add_one(t, d):
    t['out'][...] = t['x'] + 1


def bf16_bits(t, d):
    if t['x'].dtype != np.uint16 or t['out'].dtype != np.uint16:
        raise TypeError('bf16 should come as uint16, got %s' % t['x'].dtype)
    t['out'][...] = t['x'] + np.uint16(1)


def show_d(t, d):
    # d as the test describes it, written into an int64 output
    if d['case'] != 'c1' or d['site'] != 'toy' or d['backend'] != 'cpu' or d['stream'] is not None:
        raise ValueError('d is %r' % (dict(d),))
    if d['dtypes']['x'] != 'f32' or list(d['axes']) != ['B', 'T', 'W'] or t['w'] is not None:
        raise ValueError('dtypes %r, axes %r, w %r' % (dict(d['dtypes']), dict(d['axes']), t['w']))
    try:
        d['eps'] = 0
        frozen = 0
    except TypeError:
        frozen = 1
    o = t['out']
    o[0], o[1], o[2], o[3] = d['axes']['T'], d['dims']['rows'], int(d['affine']), round(d['eps'] * 1e9)
    o[4], o[5] = frozen, int(t['x'].flags.writeable)


def noop(t, d):
    pass


def returns(t, d):
    return t['x'] + 1


def replaces(t, d):
    t['out'] = t['x'] + 1


def deletes(t, d):
    del t['out']


def adds(t, d):
    t['extra'] = 1


def write_input(t, d):
    t['x'][0] = 7  # MARK: write-input


def bad_reshape(t, d):
    np.reshape(t['x'], (3, 3))  # MARK: bad-reshape


def nested(t, d):
    helper(t)  # MARK: nested-call


def helper(t):
    return 1 / 0  # MARK: helper-raise


def long_message(t, d):
    raise RuntimeError('compiling the kernel failed at 3:14:\n    x = tl.load(p)\n            ^\nNameError: foo')


def exits(t, d):
    sys.exit(3)


def reshape_in_place(t, d):
    t['out'].shape = (t['out'].size,)


KEPT = []


def keeps(t, d):
    KEPT.append(t['out'][1:])


def prints(t, d):
    print('hello from a python arm')


def one_arg(t):
    pass


NOT_A_FUNCTION = 3
