# A module with a syntax error (test_pyrt.c): the parenthesis never closes.
def f(t, d:  # MARK: syntax
    pass
