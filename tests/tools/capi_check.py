#!/usr/bin/env python3
"""Checks build/libabbench_kernels.so without a GPU (tests/cli/t270-capi.sh).

    python3 tests/tools/capi_check.py LIB.so HEADER.h [--no-launch]

Loads the library with ctypes, as examples/python/abk.py does, and checks:
  - every function HEADER.h declares is exported, and nothing else: the
    kernels' own launchers and the statically linked CUDA runtime stay
    local (the version script), so the library cannot bind to PyTorch's
    runtime or PyTorch to it;
  - abk_abi_version() equals the header's ABK_ABI_VERSION;
  - each function refuses, with return value 1 (cudaErrorInvalidValue)
    and a one-line abk_last_error() naming it, a shape its site's rule
    refuses, a dimension out of range and NULL pointers, none of which
    needs a device;
  - unless --no-launch: a launch with a valid shape on a machine without a
    usable CUDA driver returns a CUDA error other than 0 and 1, and
    abk_last_error() gives CUDA's message for it. (Never run that part
    where a GPU answers: its pointers are not device memory.)
Prints one "ok - ..." or "not ok - ..." line per check; exit 1 when any
check failed.
"""
import ctypes
import re
import sys

failures = 0


def check(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures += 1


def declared(header):
    text = open(header).read()
    names = re.findall(r"^\w[\w\s\*]*?\b(abk_\w+)\s*\(", text, re.M)
    version = int(re.search(r"#define\s+ABK_ABI_VERSION\s+(\d+)", text).group(1))
    return names, version


def bind(lib):
    vp, i64, f32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float
    lib.abk_abi_version.restype = ctypes.c_int
    lib.abk_last_error.restype = ctypes.c_char_p
    lib.abk_ln_modulate.argtypes = [vp, vp, vp, vp, i64, i64, i64, f32, vp]
    lib.abk_qk_layernorm.argtypes = [vp, vp, vp, vp, i64, i64, i64, i64, f32, vp]
    lib.abk_gate_add.argtypes = [vp, vp, vp, vp, i64, i64, i64, vp]


# Each function with a shape its rule refuses (and the rule's words), a
# valid shape, and the argument list around the pointers.
CALLS = {
    "abk_ln_modulate": dict(bad=(1, 4, 10), why="not a multiple of 4", good=(1, 4, 8), tail=(1e-5, None)),
    "abk_qk_layernorm": dict(bad=(1, 4, 2, 256), why="exceeds 128", good=(1, 4, 2, 8), tail=(1e-5, None)),
    "abk_gate_add": dict(bad=(1, 4, 6), why="not a multiple of 4", good=(1, 4, 8), tail=(None, )),
}


def refusals(lib, name, spec):
    fn = getattr(lib, name)
    null = (None, ) * 4

    def call(ptrs, dims):
        rc = fn(*ptrs, *dims, *spec["tail"])
        return rc, (lib.abk_last_error() or b"").decode()

    rc, msg = call(null, spec["bad"])
    check(rc == 1 and msg.startswith(name + ": ") and spec["why"] in msg,
          f"{name}: a shape its site refuses is rc 1 with the rule's reason ({rc}, '{msg}')")
    rc, msg = call(null, (0, ) + spec["good"][1:])
    check(rc == 1 and "dimension 1 is 0" in msg, f"{name}: a dimension of 0 is rc 1 ({rc}, '{msg}')")
    rc, msg = call(null, (1 << 31, ) + spec["good"][1:])
    check(rc == 1 and "outside 1 to 2147483647" in msg, f"{name}: a dimension of 2^31 is rc 1 ({rc}, '{msg}')")
    rc, msg = call(null, spec["good"])
    check(rc == 1 and "cannot take these pointers" in msg, f"{name}: NULL pointers are rc 1 ({rc}, '{msg}')")
    check("\n" not in msg, f"{name}: the message is one line")
    return call


def launch_without_driver(name, call):
    """Pointers that look aligned: the call reaches the CUDA runtime, which
    has no driver here."""
    fake = (1 << 20, 2 << 20, 3 << 20, 4 << 20)
    rc, msg = call(fake, CALLS[name]["good"])
    check(rc not in (0, 1) and msg.startswith(name + ": ") and len(msg) > len(name) + 2,
          f"{name}: without a driver the launch's CUDA error comes back ({rc}, '{msg}')")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    lib_path, header = sys.argv[1], sys.argv[2]
    launch = "--no-launch" not in sys.argv[3:]
    names, version = declared(header)
    check(sorted(names) == sorted(["abk_abi_version", "abk_last_error"] + list(CALLS)),
          f"the header declares the functions this check knows ({', '.join(names)})")
    lib = ctypes.CDLL(lib_path)
    for n in names:
        check(hasattr(lib, n), f"{n} is exported")
    for n in ("ln_modulate_cuda_fused", "qk_layernorm_cuda_fused", "residual_gate_add_cuda_fused", "site_find",
              "cudaLaunchKernel", "cudaGetErrorString", "__cudaRegisterFatBinary"):
        check(not hasattr(lib, n), f"{n} is not exported")
    bind(lib)
    check(lib.abk_abi_version() == version, f"abk_abi_version() is {lib.abk_abi_version()}, the header says {version}")
    for name, spec in CALLS.items():
        call = refusals(lib, name, spec)
        if launch:
            launch_without_driver(name, call)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
