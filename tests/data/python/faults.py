# Python arms that misbehave while the run measures, for
# tests/cli/t264-python-faults.sh (residual_gate_add on the CPU backend):
# each one fails the run (exit 3) with one line. Lines the test expects in
# messages carry a 'MARK:' comment; the test finds their numbers by it.
import sys

import numpy as np

from rga_numpy import rga_exact

KEPT = []


def divides(t, d):
    helper(t)  # MARK: divides-call


def helper(t):
    return 1 / 0  # MARK: helper-raise


def bad_reshape(t, d):
    np.reshape(t['x'], (3, 3))  # MARK: bad-reshape


def wrong_dtype(t, d):
    np.copyto(t['out'], t['x'].astype(np.float32))  # MARK: wrong-dtype


def replaces(t, d):
    t['out'] = t['x'].copy()


def returns(t, d):
    rga_exact(t, d)
    return t['out']


def deletes(t, d):
    del t['ff_gated']


def into_input(t, d):
    t['x'][0, 0, 0] = 1  # MARK: into-input


def reshapes(t, d):
    t['out'].shape = (t['out'].size,)


def retypes(t, d):
    rga_exact(t, d)
    t['out'].dtype = np.int16


def keeps(t, d):
    rga_exact(t, d)
    KEPT.append(t['out'][1:])


def exits(t, d):
    sys.exit(3)


_calls = [0]


def fails_later(t, d):
    # the first five calls pass (two per case before the run, of t264's
    # two cases, then the slot's untimed warm-up); the sixth raises
    _calls[0] += 1
    if _calls[0] == 6:
        raise RuntimeError('the sixth call fails')  # MARK: fails-later
    rga_exact(t, d)
