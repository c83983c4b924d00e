# What t and d hold for a declared site (tests/cli/t295-sites-python.sh):
# the site's tensors by its own axes, in their dtypes, d's axes the site's
# axis names in order with the case's values. check() raises on the first
# difference; when all holds it computes out = table[idx] + bias (a gather,
# in f16) so that two arms can be compared byte for byte, and says on
# stderr which case it saw. gather_off_by_one writes a different result.
import sys

import numpy as np

# name: (numpy dtype, dtype word, axes, writeable)
TENSORS = {
    'idx': (np.int32, 'i32', ('Seq', 'K2'), False),
    'table': (np.float16, 'f16', ('V', 'E'), False),
    'bias': (np.float32, 'f32', ('E',), False),
    'mask': (np.uint8, 'u8', ('Seq',), False),
    'n': (np.int64, 'i64', (), False),
    'out': (np.float16, 'f16', ('Seq', 'K2', 'E'), True),
    'acc': (np.float32, 'f32', ('Seq', 'E'), True),
}


def fail(d, what):
    raise ValueError('case %s (%s): %s' % (d['case'], d['site'], what))


def check(t, d):
    ax = d['axes']
    if list(ax) != ['Seq', 'K2', 'V', 'E']:
        fail(d, 'axes %r, not Seq, K2, V, E in order' % (list(ax),))
    if set(t) != set(TENSORS):
        fail(d, 't holds %s, not %s' % (sorted(t), sorted(TENSORS)))
    for name, (dtype, word, axes, writeable) in TENSORS.items():
        a, shape = t[name], tuple(ax[x] for x in axes)
        if a.shape != shape or a.dtype != dtype or d['dtypes'][name] != word:
            fail(d, '%s is %s %s (%s), not %s %s' % (name, a.dtype, a.shape, d['dtypes'][name], word, shape))
        if a.flags.writeable != writeable or not a.flags.c_contiguous:
            fail(d, '%s: writeable %s, contiguous %s' % (name, a.flags.writeable, a.flags.c_contiguous))
    if t['idx'].min() < 0 or t['idx'].max() >= ax['V'] or int(t['n']) != 7:
        fail(d, 'idx outside [0, V) or n %d, not 7' % int(t['n']))
    # a declared site's dims: its largest tensor's last axis and rows
    largest = max((t[x] for x in TENSORS), key=lambda a: a.size)
    if d['dims']['row_len'] != largest.shape[-1] or d['dims']['rows'] != largest.size // largest.shape[-1]:
        fail(d, 'dims %r do not describe the largest tensor %s' % (dict(d['dims']), largest.shape))
    print('declared_tensors: %s %s axes=%s' % (d['case'], d['site'], ','.join('%s=%d' % kv for kv in ax.items())),
          file=sys.stderr)


def gather(t, d):
    check(t, d)
    t['out'][...] = (t['table'][t['idx']] + t['bias'].astype(np.float16))


def gather_off_by_one(t, d):
    check(t, d)
    t['out'][...] = (t['table'][(t['idx'] + 1) % d['axes']['V']] + t['bias'].astype(np.float16))


def copy_first(t, d):
    """t295's nine-input site: out = i0."""
    t['out'][...] = t['i0']
