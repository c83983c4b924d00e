"""glm_block_np.py - a numpy stand-in of glm_block.py's GLM-Image block, for
abbench's CPU backend (issue 22 item 5): the same structure (adaLN-Zero
modulation of both streams, joint attention with per-head qk LayerNorm,
RoPE on the image tokens, the two gate residuals per stream, norm2 +
modulate before the shared feed-forward, norm_out for a step), at any
dims, meant for tiny ones (hidden 64, 2 heads x 32, 16 + 8 tokens).

bf16 tensors are uint16 arrays of their bits, as abbench hands them to a
CPU arm; every op computes in float32 and rounds its result to bf16 (to
nearest even, NaN -> 0x7FC0), as each PyTorch op of the eager chain
rounds its output. Two paths, byte-equal by construction and checked so
(tests/tools/block_standin_check.py):

  eager  each op a whole-array pass that materialises its bf16 result
         (LayerNorm, 1 + scale, *, +; mul then add for a gate);
  fused  the four site kinds as single passes over blocks of rows, with
         the same per-element arithmetic and no whole-array intermediate:
         the shape a fused kernel has, in numpy.

What the stand-in is not: PyTorch's bits. Its LayerNorm statistics are a
float32 Welford pass of its own (not aten's thread tree), its GEMMs are
numpy's float32 matmul, its attention a plain softmax: on the CPU it
proves the harness path (a declared site, Python arms, md5 and byte
compare of two arms) and the byte-equality of its own two paths, nothing
about the GPU's kernels. Its weights come from numpy's generator with
glm_model's seed, draw order and magnitudes, so they differ from the
torch path's.
"""
import math

import numpy as np

from glm_model import (ADA_CHUNKS, BLOCK_WEIGHTS, FF_MULT, NORM_OUT_LAYER, OUT_WEIGHTS, ROPE_THETA, WEIGHT_SEED,
                       dims_of, weight_seed, weight_std)

F32 = np.float32
ROW_BLOCK = 8  # rows per pass of a fused site

# ---- bf16 as uint16 -------------------------------------------------------


def to_f32(u):
    """bf16 bits -> float32 values (exact)."""
    return (np.asarray(u, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_bf16(f):
    """float32 -> bf16 bits, round to nearest even; NaN -> 0x7FC0."""
    f = np.asarray(f, dtype=np.float32)
    bits = f.view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), rounded)


def bf16(f):
    """float32 values rounded through bf16 (the value of to_bf16(f))."""
    return to_f32(to_bf16(f))


# ---- the ops the sites share, per element ---------------------------------


def ln_stats(x32, eps):
    """Mean and rstd over the last axis: a float32 Welford pass, column by
    column (elementwise float32 arithmetic only, so any subset of rows gets
    the same bits)."""
    mean = np.zeros(x32.shape[:-1], F32)
    m2 = np.zeros(x32.shape[:-1], F32)
    for j in range(x32.shape[-1]):
        v = x32[..., j]
        delta = v - mean
        mean = mean + delta / F32(j + 1)
        m2 = m2 + delta * (v - mean)
    var = m2 / F32(x32.shape[-1])
    return mean, F32(1) / np.sqrt(var + F32(eps))


def normalize(x32, mean, rstd):
    """LayerNorm's output value, before its bf16 rounding."""
    return (x32 - mean[..., None]) * rstd[..., None]


# ---- eager: one materialised bf16 array per op ------------------------------


def layer_norm(x, eps):
    x32 = to_f32(x)
    mean, rstd = ln_stats(x32, eps)
    return to_bf16(normalize(x32, mean, rstd))


def add(a, b):
    return to_bf16(to_f32(a) + to_f32(b))


def mul(a, b):
    return to_bf16(to_f32(a) * to_f32(b))


def add_one(a):
    return to_bf16(to_f32(a) + F32(1))


def eager_ln_modulate(x, scale, shift, eps):
    """LayerNorm(x) * (1 + scale[:, None]) + shift[:, None], four passes."""
    return add(mul(layer_norm(x, eps), add_one(scale)[:, None, :]), shift[:, None, :])


def eager_qk(q, k, eps):
    return layer_norm(q, eps), layer_norm(k, eps)


def eager_gate(x, y, gate):
    """x + y * gate[:, None]: the product, then the sum."""
    return add(x, mul(y, gate[:, None, :]))


# ---- fused: each site one pass over blocks of rows ---------------------------


def fused_ln_modulate(x, scale, shift, eps):
    b, t, w = x.shape
    out = np.empty_like(x)
    for bi in range(b):
        s1 = bf16(to_f32(scale[bi]) + F32(1))
        sh = to_f32(shift[bi])
        for r in range(0, t, ROW_BLOCK):
            x32 = to_f32(x[bi, r:r + ROW_BLOCK])
            mean, rstd = ln_stats(x32, eps)
            z = bf16(bf16(normalize(x32, mean, rstd)) * s1)
            out[bi, r:r + ROW_BLOCK] = to_bf16(z + sh)
    return out


def fused_qk(q, k, eps):
    """q and k in one pass: their rows stacked, normalised block by block."""
    rows = np.concatenate([q.reshape(-1, q.shape[-1]), k.reshape(-1, k.shape[-1])])
    out = np.empty_like(rows)
    for r in range(0, rows.shape[0], ROW_BLOCK):
        x32 = to_f32(rows[r:r + ROW_BLOCK])
        mean, rstd = ln_stats(x32, eps)
        out[r:r + ROW_BLOCK] = to_bf16(normalize(x32, mean, rstd))
    n = q.size // q.shape[-1]
    return out[:n].reshape(q.shape), out[n:].reshape(k.shape)


def fused_gate(x, y, gate):
    b, t, _ = x.shape
    out = np.empty_like(x)
    for bi in range(b):
        g = to_f32(gate[bi])
        for r in range(0, t, ROW_BLOCK):
            prod = bf16(to_f32(y[bi, r:r + ROW_BLOCK]) * g)
            out[bi, r:r + ROW_BLOCK] = to_bf16(to_f32(x[bi, r:r + ROW_BLOCK]) + prod)
    return out


EAGER = dict(ln_modulate=eager_ln_modulate, qk=eager_qk, gate=eager_gate)
FUSED = dict(ln_modulate=fused_ln_modulate, qk=fused_qk, gate=fused_gate)

# ---- the rest of the block (both paths) -------------------------------------


def linear(x, w, b):
    """bf16 Linear: float32 products and sums, the bias added, one rounding."""
    return to_bf16(to_f32(x) @ to_f32(w).T + to_f32(b))


def gelu_tanh(x):
    v = to_f32(x)
    inner = F32(math.sqrt(2.0 / math.pi)) * (v + F32(0.044715) * v * v * v)
    return to_bf16(F32(0.5) * v * (F32(1) + np.tanh(inner)))


def rope_tables(dims):
    """GlmImageRotaryPosEmbed's (cos, sin), float32 [I, head_dim]."""
    height, width = dims.grid
    half = dims.head_dim // 2
    inv = F32(1) / (F32(ROPE_THETA)**(np.arange(0, half, 2, dtype=F32)[:half // 2] / F32(half)))
    fh = np.broadcast_to((np.arange(height, dtype=F32)[:, None] * inv)[:, None, :], (height, width, half // 2))
    fw = np.broadcast_to((np.arange(width, dtype=F32)[:, None] * inv)[None, :, :], (height, width, half // 2))
    freqs = np.concatenate([fh, fw], axis=-1)
    freqs = np.concatenate([freqs, freqs], axis=-1).reshape(height * width, -1)
    return np.cos(freqs).astype(F32), np.sin(freqs).astype(F32)


def apply_rope(x, cos, sin):
    """x [B, I, H, D]: rotate halves (use_real_unbind_dim=-2), float32, bf16."""
    x32 = to_f32(x)
    half = x.shape[-1] // 2
    rot = np.concatenate([-x32[..., half:], x32[..., :half]], axis=-1)
    return to_bf16(x32 * cos[None, :, None, :] + rot * sin[None, :, None, :])


def attention(q, k, v):
    """softmax(q k^T / sqrt(D)) v per head; [B, N, H, D] in and out."""
    q32, k32, v32 = (to_f32(a).transpose(0, 2, 1, 3) for a in (q, k, v))
    s = (q32 @ k32.transpose(0, 1, 3, 2)) * F32(1.0 / math.sqrt(q.shape[-1]))
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return to_bf16(p @ v32).transpose(0, 2, 1, 3)


def joint_attention(w, nh, ne, rope, heads, qk, eps):
    """[text, image] attention; returns (image part, text part)."""
    s = ne.shape[1]
    x = np.concatenate([ne, nh], axis=1)
    b, n, wd = x.shape
    q, k, v = (linear(x, w[p + "_w"], w[p + "_b"]).reshape(b, n, heads, -1) for p in "qkv")
    q, k = qk(q, k, eps)
    cos, sin = rope
    q[:, s:] = apply_rope(q[:, s:], cos, sin)
    k[:, s:] = apply_rope(k[:, s:], cos, sin)
    o = linear(attention(q, k, v).reshape(b, n, wd), w["o_w"], w["o_b"])
    return o[:, s:], o[:, :s]


def feed_forward(w, x):
    return linear(gelu_tanh(linear(x, w["ff1_w"], w["ff1_b"])), w["ff2_w"], w["ff2_b"])


def block(ops, w, h, e, temb, rope, heads, eps):
    """One GlmImageTransformerBlock; ops: EAGER or FUSED. Returns (image, text)."""
    wd = h.shape[-1]
    emb = linear(temb, w["ada_w"], w["ada_b"])
    c = {name: emb[:, i * wd:(i + 1) * wd] for i, name in enumerate(ADA_CHUNKS)}
    nh = ops["ln_modulate"](h, c["scale_msa"], c["shift_msa"], eps)
    ne = ops["ln_modulate"](e, c["c_scale_msa"], c["c_shift_msa"], eps)
    attn_h, attn_e = joint_attention(w, nh, ne, rope, heads, ops["qk"], eps)
    h = ops["gate"](h, attn_h, c["gate_msa"])
    e = ops["gate"](e, attn_e, c["c_gate_msa"])
    nh = ops["ln_modulate"](h, c["scale_mlp"], c["shift_mlp"], eps)
    ne = ops["ln_modulate"](e, c["c_scale_mlp"], c["c_shift_mlp"], eps)
    ff_h, ff_e = feed_forward(w, nh), feed_forward(w, ne)
    return ops["gate"](h, ff_h, c["gate_mlp"]), ops["gate"](e, ff_e, c["c_gate_mlp"])


def norm_out(ops, wo, h, temb, eps):
    emb = linear(temb, wo["out_w"], wo["out_b"])
    wd = h.shape[-1]
    return ops["ln_modulate"](h, emb[:, :wd], emb[:, wd:], eps)


# ---- weights, and the arm ------------------------------------------------

_CACHE = {}


def make_weights(dims, layer, seed=WEIGHT_SEED, table=BLOCK_WEIGHTS):
    """A block's (or norm_out's) weights as bf16 bits, drawn in table order
    from numpy's generator seeded as glm_model says; made once."""
    key = (dims.hidden, dims.temb, seed, layer, table is OUT_WEIGHTS)
    if key not in _CACHE:
        rng = np.random.default_rng(weight_seed(seed, layer))
        _CACHE[key] = {
            name: to_bf16(
                rng.standard_normal(shape(dims.hidden, dims.temb), dtype=F32) *
                F32(weight_std(table, name, dims.hidden, dims.temb)))
            for name, shape in table
        }
    return _CACHE[key]


def forward(dims, h, e, temb, eps, fused, blocks, with_norm_out, seed=WEIGHT_SEED):
    """`blocks` blocks, then norm_out when asked; returns (image, text)."""
    ops = FUSED if fused else EAGER
    rope = rope_tables(dims)
    for layer in range(blocks):
        h, e = block(ops, make_weights(dims, layer, seed), h, e, temb, rope, dims.heads, eps)
    if with_norm_out:
        h = norm_out(ops, make_weights(dims, NORM_OUT_LAYER, seed, OUT_WEIGHTS), h, temb, eps)
    return h, e


def arm(t, d, fused, blocks, with_norm_out):
    """glm_block.py's arms on abbench's CPU backend: t holds uint16 arrays."""
    dims = dims_of(t, d)
    tokens = dims.img + dims.txt
    if max(FF_MULT * dims.hidden * tokens, dims.batch * dims.heads * tokens * tokens) > (1 << 26):
        raise ValueError(f"{dims}: too large for the numpy stand-in (it is meant for tiny blocks)")
    h, e = forward(dims, t["img"], t["txt"], t["temb"], float(d["eps"]), fused, blocks, with_norm_out)
    t["img_out"][...] = h
    t["txt_out"][...] = e
