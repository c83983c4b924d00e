"""abbench_cert.py - an abbench certificate of bit-exactness, read where a
model runs (docs/CERTIFICATE.md). Standard library only: the model's
process needs nothing of abbench but this file and the certificate.

    import abbench_cert
    cert = abbench_cert.load("glm.cert.json")        # once: its sha256 checked
    if cert.covers("ln_modulate", x.shape, x.dtype, eps=1e-5, affine=False):
        ...                                          # the fused kernel: proven here
    cert.log_signature("ln_modulate", x.shape, x.dtype, eps=1e-5, affine=False)

load() refuses (CertificateError) a file that is not a certificate, or
one changed after abbench issued it: its sha256 must be that of its
canonical form (abbench's jansson, JSON_COMPACT | JSON_SORT_KEYS, rebuilt
here byte for byte). covers() holds a signature (site, shape in the site's
axis order, dtype, eps, affine) and the running environment (torch's and
Triton's versions, the device's compute capability: JUDGED_KEYS, read
lazily, and only if torch can be imported) against the certificate's
entries. log_signature() appends the signatures a model meets to a
JSON-lines file that `abbench coverage CERT.json LOG` reads.
"""
import atexit
import hashlib
import importlib.util
import json
import os
import threading

FORMAT = "abbench.certificate"
FORMAT_VERSION = 2
# The environment keys a model's run is judged by, where both the entry
# and the run name them: harness/common/cert_sig.c's cert_judged_keys.
JUDGED_KEYS = ("compute_capability", "torch", "triton")
# abbench's dtype names, from torch's and numpy's.
_DTYPES = {
    "bfloat16": "bf16", "bf16": "bf16", "float16": "f16", "half": "f16", "f16": "f16", "float32": "f32",
    "float": "f32", "f32": "f32", "int32": "i32", "i32": "i32", "int64": "i64", "long": "i64", "i64": "i64",
    "uint8": "u8", "u8": "u8"
}


class CertificateError(Exception):
    """A file that is not a certificate, or one changed after it was issued."""


# ---- the canonical form ----------------------------------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _canon_str(s):
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04X" % ord(ch))  # jansson writes upper-case hex
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical(value):
    """value as abbench's canonical form: no blank, object keys in the byte
    order of their UTF-8, only '"', '\\' and control characters escaped.
    A real number has no canonical text: a certificate holds none."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _canon_str(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(_canon_str(k) + ":" + canonical(value[k]) for k in keys) + "}"
    raise CertificateError("a certificate holds no %s (%r)" % (type(value).__name__, value))


def digest(doc):
    """The sha256 of a certificate document (its "sha256" member left out)."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise CertificateError("member %r appears twice" % k)
        seen[k] = v
    return seen


def _no_real(text):
    raise CertificateError("holds a real number (%s): a certificate has none" % text)


def _no_constant(text):
    raise CertificateError("holds %s: a certificate has none" % text)


# ---- the running environment ------------------------------------------------


def running_environment():
    """torch's and Triton's versions and the current CUDA device's name and
    compute capability, for what can be imported (torch first: nothing is
    read without it). Keys as abbench names them."""
    env = {}
    if importlib.util.find_spec("torch") is None:
        return env
    import torch
    env["torch"] = str(torch.__version__)
    if importlib.util.find_spec("triton") is not None:
        try:
            import triton
            env["triton"] = str(triton.__version__)
        except Exception:  # a broken Triton is no Triton
            pass
    try:
        if torch.cuda.is_available():
            dev = torch.cuda.current_device()
            major, minor = torch.cuda.get_device_capability(dev)
            env["compute_capability"] = "%d.%d" % (major, minor)
            env["device"] = torch.cuda.get_device_name(dev)
    except Exception:  # no driver: no device keys
        pass
    return env


def dtype_name(dtype):
    """abbench's name of a dtype: 'bf16' from torch.bfloat16, numpy's
    float16, or 'bf16' itself."""
    name = str(getattr(dtype, "name", None) or dtype)
    name = name[6:] if name.startswith("torch.") else name
    if name not in _DTYPES:
        raise ValueError("dtype %r has no abbench name (%s)" % (dtype, ", ".join(sorted(set(_DTYPES.values())))))
    return _DTYPES[name]


def _signature(site, shape, dtype, eps, affine):
    return (str(site), tuple(int(x) for x in shape), dtype_name(dtype), float(eps), bool(affine))


# ---- the signature log ------------------------------------------------------


class SignatureLog:
    """Appends the signatures a process meets to a JSON-lines file: a line
    the first time one is met (count 1), then at exit (or flush()) a line
    with the further calls counted since, so that a crash loses at most the
    counts, never a signature. `abbench coverage` sums the counts."""

    def __init__(self, path, env=None):
        self.path = path
        self._env = env
        self._counts = {}
        self._written = {}
        self._lock = threading.Lock()
        atexit.register(self.flush)

    def environment(self):
        if self._env is None:
            self._env = running_environment()
        return self._env

    def _line(self, sig, count):
        site, shape, dtype, eps, affine = sig
        return json.dumps({"site": site, "shape": list(shape), "dtype": dtype, "eps": eps, "affine": affine,
                           "count": count, "env": self.environment()}, sort_keys=True) + "\n"

    def _append(self, text):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)

    def log(self, site, shape, dtype, eps=1e-5, affine=False, count=1):
        sig = _signature(site, shape, dtype, eps, affine)
        with self._lock:
            first = sig not in self._counts
            self._counts[sig] = self._counts.get(sig, 0) + count
            if first:
                self._written[sig] = count
                self._append(self._line(sig, count))

    def flush(self):
        """Writes the calls counted since each signature's last line."""
        with self._lock:
            lines = []
            for sig, n in self._counts.items():
                extra = n - self._written.get(sig, 0)
                if extra > 0:
                    lines.append(self._line(sig, extra))
                    self._written[sig] = n
            if lines:
                self._append("".join(lines))


# ---- the certificate ---------------------------------------------------------


class Entry:
    """One certified signature and what it was proven on."""

    def __init__(self, doc):
        sig, site = doc["signature"], doc["site"]
        self.case = doc["case"]
        self.site = site["name"]
        self.axes = tuple(sig["axes"])
        self.shape = tuple(sig["shape"])
        self.dtype = sig["dtype"]
        self.eps = float(sig["eps"])
        self.affine = bool(sig["affine"])
        self.env = dict(doc["env"])
        self.arms = {side: dict(doc["arms"][side]) for side in ("a", "b")}
        self.inputs = dict(doc["inputs"])

    @property
    def signature(self):
        return (self.site, self.shape, self.dtype, self.eps, self.affine)

    def differs(self, env):
        """The judged keys both name whose values differ, as
        'torch 2.11.0 -> 2.12.0' (the certificate's -> env's)."""
        out = []
        for k in JUDGED_KEYS:
            if k in self.env and k in env and self.env[k] != env[k]:
                out.append("%s %s -> %s" % (k.replace("_", " "), self.env[k], env[k]))
        return ", ".join(out)


class Certificate:
    """A loaded certificate: its entries by signature, the running
    environment read once (lazily), and an optional signature log."""

    def __init__(self, doc, path, env=None, log=None):
        self.path = path
        self.doc = doc
        self.sha256 = doc["sha256"]
        self.entries = [Entry(e) for e in doc["entries"]]
        self._by_sig = {}
        for e in self.entries:
            self._by_sig.setdefault(e.signature, []).append(e)
        self._env = env
        self._covers = {}
        log = log if log is not None else os.environ.get("ABBENCH_SIGNATURE_LOG")
        self.log = SignatureLog(log, env) if log else None

    def environment(self):
        """The running environment (running_environment()), read once."""
        if self._env is None:
            self._env = running_environment()
        return self._env

    def explain(self, site, shape, dtype, eps=1e-5, affine=False, env=None):
        """None when the certificate covers the signature here, else why not."""
        sig = _signature(site, shape, dtype, eps, affine)
        now = self.environment() if env is None else env
        entries = self._by_sig.get(sig)
        if not entries:
            return "no entry for %s %s %s eps %r affine %s" % (sig[0], "x".join(map(str, sig[1])), sig[2], sig[3],
                                                                sig[4])
        diffs = [e.differs(now) for e in entries]
        if any(not d for d in diffs):
            return None
        return "certified in another environment: " + diffs[0]

    def covers(self, site, shape, dtype, eps=1e-5, affine=False, env=None):
        """Whether the certificate proves this signature here: an entry with
        it, and no judged key (JUDGED_KEYS) it and the running environment
        both name that differs. Cached per signature (env=None)."""
        if env is not None:
            return self.explain(site, shape, dtype, eps, affine, env) is None
        sig = _signature(site, shape, dtype, eps, affine)
        hit = self._covers.get(sig)
        if hit is None:
            hit = self._covers[sig] = self.explain(*sig) is None
        return hit

    def log_signature(self, site, shape, dtype, eps=1e-5, affine=False, count=1):
        """Appends the signature to the log (load(..., log=PATH), else
        $ABBENCH_SIGNATURE_LOG); nothing without one."""
        if self.log is not None:
            self.log.log(site, shape, dtype, eps, affine, count)


def loads(text, path="<text>", env=None, log=None):
    """A certificate from its JSON text; CertificateError when it is not
    one, or its sha256 is not that of its content."""
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_no_real, parse_constant=_no_constant)
    except CertificateError as e:
        raise CertificateError("certificate %r: %s" % (path, e)) from None
    except ValueError as e:
        raise CertificateError("certificate %r: not JSON (%s)" % (path, e)) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CertificateError("certificate %r: not an %s document" % (path, FORMAT))
    if doc.get("format_version") != FORMAT_VERSION:
        raise CertificateError("certificate %r: format_version %r, this module reads %d" %
                               (path, doc.get("format_version"), FORMAT_VERSION))
    want = doc.get("sha256")
    got = digest(doc)
    if want != got:
        raise CertificateError("certificate %r: its sha256 %.16s... is not that of its content (%.16s...): it was "
                               "changed after it was issued" % (path, want, got))
    try:
        return Certificate(doc, path, env, log)
    except (KeyError, TypeError, ValueError) as e:
        raise CertificateError("certificate %r: a member is missing or of the wrong type (%r)" % (path, e)) from None


def load(path, env=None, log=None):
    """The certificate at path, its sha256 checked (loads)."""
    with open(path, "r", encoding="utf-8") as f:
        return loads(f.read(), path, env, log)


def seal(doc):
    """doc with its sha256 set: what abbench does when it issues one (for
    tests and tools that rewrite a certificate on purpose)."""
    doc = dict(doc)
    doc["sha256"] = digest(doc)
    return doc


def log_signature(path, site, shape, dtype, eps=1e-5, affine=False, count=1, _logs={}):
    """Appends a signature to the JSON-lines file at path without a
    certificate (one SignatureLog per path and process)."""
    if path not in _logs:
        _logs[path] = SignatureLog(path)
    _logs[path].log(site, shape, dtype, eps, affine, count)
