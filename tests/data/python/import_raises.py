# A module whose neighbour raises while it is imported (test_pyrt.c): the
# error names this file's line and, after it, the neighbour's.
import pyrt_neighbour  # MARK: import-neighbour


def f(t, d):
    pass
