# Python arms that end the process, or never return, for
# tests/cli/t508-arm-exits.sh and t509-call-limit.sh (residual_gate_add on
# the CPU backend). Each copies x into out on its calls before call
# STOPS_FROM of the process (environment; default 2) and misbehaves from
# that one on. abbench calls every arm twice per case before the run (a
# slot's first call, then one sample: run_case_preflight), so the default
# misbehaves there, before anything is stored; STOPS_FROM = 2 x cases + 2
# misbehaves in the first sample of the first case's slot B, in the run.
# Lines the tests expect in messages carry a 'MARK:' comment.
import ctypes
import os
import time

CALLS = {}
FROM = int(os.environ.get('STOPS_FROM', '2'))


def _first(name, t):
    CALLS[name] = CALLS.get(name, 0) + 1
    if CALLS[name] < FROM:
        t['out'][...] = t['x']
        return True
    return False


def os_exit(t, d):
    if not _first('os_exit', t):
        os._exit(0)  # MARK: os-exit


def libc_exit(t, d):
    # _exit(0) through ctypes: no Python code runs, nothing in the process can catch it
    if not _first('libc_exit', t):
        ctypes.CDLL(None)._exit(0)


def segfault(t, d):
    if not _first('segfault', t):
        ctypes.string_at(0)


def spins(t, d):
    if not _first('spins', t):
        while True:  # MARK: spins
            pass


def sleeps(t, d):
    if not _first('sleeps', t):
        time.sleep(1000)  # MARK: sleeps


def stubborn(t, d):
    # swallows every exception, abbench's stop too: only the supervisor ends it
    if not _first('stubborn', t):
        while True:
            try:
                time.sleep(1000)
            except BaseException:
                pass


def slow_once(t, d):
    # returns, but past a 1 s limit
    if not _first('slow_once', t):
        t['out'][...] = t['x']
        time.sleep(1.5)


def kills_self(t, d):
    if not _first('kills_self', t):
        os.kill(os.getpid(), 9)
