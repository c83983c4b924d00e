# A module that imports one that does not exist (test_pyrt.c).
import os
import abbench_no_such_module  # MARK: import-missing
