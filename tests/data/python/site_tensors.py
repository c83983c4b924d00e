# What t and d hold for each built-in site, as docs/PYTHON_ARMS.md says
# (tests/cli/t262-python-tensors.sh, CPU backend): check() raises on the
# first difference (the run then fails with its message); when all holds
# it writes zeros into the outputs and says on stderr which case it saw.
import sys

import numpy as np

# Each tensor's shape, by the case's axis letters (d['axes']; '1': 1).
SHAPES = {
    'residual_gate_add': {'x': 'BTW', 'ff': 'BTW', 'gate': 'BW', 'out': 'BTW', 'ff_gated': 'BTW'},
    'ln_modulate': {'x': 'BTW', 'scale': 'BW', 'shift': 'BW', 'weight': 'W', 'bias': 'W', 'out': 'BTW',
                    'mean': 'BT', 'rstd': 'BT', 'ln_out': 'BTW', 'scale1': 'BW', 'mod_mul': 'BTW'},
    'qk_layernorm': {'q': 'BTHD', 'k': 'BTHD', 'weight': 'D', 'bias': 'D', 'q_out': 'BTHD', 'k_out': 'BTHD',
                     'q_mean': 'BTH', 'q_rstd': 'BTH', 'k_mean': 'BTH', 'k_rstd': 'BTH'},
}
SHAPES['ln_continuous'] = SHAPES['ln_modulate']
INPUTS = {'x', 'ff', 'gate', 'scale', 'shift', 'weight', 'bias', 'q', 'k'}
AFFINE = {'weight', 'bias'}
F32 = {'mean', 'rstd', 'q_mean', 'q_rstd', 'k_mean', 'k_rstd'}
OUTPUTS = {'out', 'q_out', 'k_out'}
seen = set()


def fail(d, what):
    raise ValueError('case %s (%s): %s' % (d['case'], d['site'], what))


def check_d(d):
    ax, dims = d['axes'], d['dims']
    letters = ''.join(ax)
    n = dims['row_len']
    rows = int(np.prod([ax[c] for c in letters[:-1]]))
    if dims['rows'] != rows or n != ax[letters[-1]] or dims['batch'] != ax['B'] or dims['tokens'] != ax['T']:
        fail(d, 'dims %r do not fit axes %r' % (dict(dims), dict(ax)))
    if dims['width'] * dims['batch'] * dims['tokens'] != rows * n or dims['heads'] != ax.get('H', 1):
        fail(d, 'dims %r do not fit axes %r' % (dict(dims), dict(ax)))
    if d['backend'] != 'cpu' or d['device'] != 'cpu' or d['stream'] is not None:
        fail(d, 'backend %r, device %r, stream %r' % (d['backend'], d['device'], d['stream']))


def check(t, d):
    want = SHAPES[d['site']]
    if set(t) != set(want):
        fail(d, 't holds %s, not %s' % (sorted(t), sorted(want)))
    check_d(d)
    for name, letters in want.items():
        a = t[name]
        if name in AFFINE and not d['affine']:
            if a is not None:
                fail(d, '%s is given without affine' % name)
            continue
        shape = tuple(1 if c == '1' else d['axes'][c] for c in letters)
        dtype, dname = (np.float32, 'f32') if name in F32 else (np.uint16, 'bf16')
        if a.shape != shape or a.dtype != dtype or d['dtypes'][name] != dname:
            fail(d, '%s is %s %s (%s), not %s %s' % (name, a.dtype, a.shape, d['dtypes'][name], dname, shape))
        if a.flags.writeable == (name in INPUTS) or not a.flags.c_contiguous:
            fail(d, '%s: writeable %s, contiguous %s' % (name, a.flags.writeable, a.flags.c_contiguous))
    for name in OUTPUTS & set(t):
        t[name][...] = 0
    if d['case'] not in seen:
        seen.add(d['case'])
        print('site_tensors: %s %s eps=%g affine=%s axes=%s' % (d['case'], d['site'], d['eps'], d['affine'],
                                                                ','.join('%s=%d' % kv for kv in d['axes'].items())),
              file=sys.stderr)


def check_torch_gate(t, d):
    # As check, but expecting gate as torch broadcasts it, [B, 1, W]: abbench
    # gives [B, W], so this must fail (the check compares for real).
    SHAPES['residual_gate_add']['gate'] = 'B1W'
    check(t, d)
