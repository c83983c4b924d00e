"""glm_block.py - GLM-Image's DiT transformer block, eager and fused, as
abbench Python arms (docs/BLOCK.md).

The block is the one diffusers defines in
src/diffusers/models/transformers/transformer_glm_image.py
(GlmImageTransformerBlock with GlmImageAdaLayerNormZero, the joint
attention of GlmImageAttnProcessor, FeedForward with tanh-GELU, and the
final GlmImageAdaLayerNormContinuous), written here from that description
at GLM-Image's dimensions (glm_model.py).

No weights can be downloaded here, so the weights are drawn from a fixed
seed on the device (bf16, every Linear's weight and bias normal(0, 0.02)):
the kernels see the real shapes, the real chain and realistic magnitudes,
not the real model's values. The same weights and inputs go through two
paths:

  eager  the model's own PyTorch chain, op for op (F.layer_norm, `1 +
         scale`, `*`, `+`, F.linear, F.scaled_dot_product_attention ...);
  fused  the same code with the four site kinds swapped for byte-equal
         kernels: LayerNorm + modulate (norm1 of both streams through
         adaLN-Zero, norm2 of both streams, norm_out), the per-head qk
         LayerNorm (q and k in one launch), and the gate residuals (the
         attention gate and the feed-forward gate of both streams);
         abbench's CUDA kernels through build/libabbench_kernels.so
         (abk.py), or the exact Triton kernels (glm_block_triton.py).

Sites per block: 4 LayerNorm + modulate (2 per stream), 1 qk LayerNorm
(q and k of the joint 4360 tokens), 4 gate residuals (2 per stream); per
forward 30 times that, plus norm_out once.

abbench calls the arms as fn(t, d) (docs/PYTHON_ARMS.md) for the declared
sites of scenarios/sites/glm_block.ini: t holds img [B, I, W], txt
[B, S, W] and temb [B, E] (the conditioning as the blocks receive it,
after the model's SiLU) and the outputs img_out, txt_out; d['axes'] has
B I S W H E. block_* run one block (both streams); step_* the 30 blocks
of one forward and norm_out (img_out is norm_out's output, txt_out the
text stream after the last block, which the model drops). The outputs
are written into t's tensors with copy_. On the CPU backend (numpy
arrays) the same functions run glm_block_np.py, a numpy stand-in of the
same block with bf16 emulated.

Weights are made once per (device, hidden, time embedding, seed, block)
and kept at module level: the first call (abbench's untimed warm-up)
draws them, timed calls do not. One forward's 30 blocks hold about 13.6
GB of bf16 weights.
"""
import importlib
import os
import sys

from glm_model import (BLOCK_WEIGHTS, NORM_OUT_LAYER, OUT_WEIGHTS, ROPE_THETA, STEP_BLOCKS, WEIGHT_SEED,
                       dims_of, weight_seed, weight_std)


# ---- weights and RoPE tables, made once ----------------------------------

_CACHE = {}


def make_weights(torch, device, dims, layer, seed=WEIGHT_SEED, table=BLOCK_WEIGHTS, cache=True):
    """A block's weights (or norm_out's, table=OUT_WEIGHTS, layer=-1) as a
    dict of bf16 tensors on device, drawn in table order from one seeded
    generator: normal(0, glm_model.weight_std: 0.02 at the real dims)."""
    key = ("w", str(device), dims.hidden, dims.temb, seed, layer, table is OUT_WEIGHTS)
    if cache and key in _CACHE:
        return _CACHE[key]
    gen = torch.Generator(device=device)
    gen.manual_seed(weight_seed(seed, layer))
    w = {}
    for name, shape in table:
        draw = torch.randn(shape(dims.hidden, dims.temb), generator=gen, device=device, dtype=torch.float32)
        w[name] = draw.mul_(weight_std(table, name, dims.hidden, dims.temb)).to(torch.bfloat16)
    if cache:
        _CACHE[key] = w
    return w


def rope_tables(torch, device, dims):
    """GlmImageRotaryPosEmbed's (cos, sin), float32 [I, head_dim]: half the
    head's channels follow the row, half the column of the token grid.
    Computed on the CPU as the model computes them, kept on the device
    (the model's apply_rotary_emb moves them there at every call)."""
    key = ("rope", str(device), dims.img, dims.head_dim)
    if key in _CACHE:
        return _CACHE[key]
    height, width = dims.grid
    half = dims.head_dim // 2
    inv = 1.0 / (ROPE_THETA**(torch.arange(0, half, 2, dtype=torch.float32)[:half // 2] / half))
    fh = torch.outer(torch.arange(height, dtype=torch.float32), inv).unsqueeze(1).expand(height, width, -1)
    fw = torch.outer(torch.arange(width, dtype=torch.float32), inv).unsqueeze(0).expand(height, width, -1)
    freqs = torch.cat([fh, fw], dim=-1)
    freqs = torch.cat([freqs, freqs], dim=-1).reshape(height * width, -1)
    tables = (freqs.cos().to(device), freqs.sin().to(device))
    _CACHE[key] = tables
    return tables


# ---- the parts both paths share -------------------------------------------


def apply_rope(torch, x, cos, sin):
    """diffusers' apply_rotary_emb(use_real=True, use_real_unbind_dim=-2,
    sequence_dim=1) on [B, S, H, D]: rotate halves, in float32, back to x's
    dtype."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    x_real, x_imag = x.reshape(*x.shape[:-1], 2, -1).unbind(-2)
    x_rot = torch.cat([-x_imag, x_real], dim=-1)
    return (x.float() * cos + x_rot.float() * sin).to(x.dtype)


def joint_attention(torch, F, w, nh, ne, rope, heads, qk_norm, eps):
    """GlmImageAttnProcessor: attention over [text, image], per-head qk
    LayerNorm (qk_norm(q, k, eps) -> (q, k)), RoPE on the image tokens,
    SDPA, output projection; returns (image part, text part)."""
    s = ne.shape[1]
    x = torch.cat([ne, nh], dim=1)
    q = F.linear(x, w["q_w"], w["q_b"]).unflatten(2, (heads, -1))
    k = F.linear(x, w["k_w"], w["k_b"]).unflatten(2, (heads, -1))
    v = F.linear(x, w["v_w"], w["v_b"]).unflatten(2, (heads, -1))
    q, k = qk_norm(q, k, eps)
    cos, sin = rope
    q[:, s:, :, :] = apply_rope(torch, q[:, s:, :, :], cos, sin)
    k[:, s:, :, :] = apply_rope(torch, k[:, s:, :, :], cos, sin)
    # diffusers' native attention backend: [B, S, H, D] -> [B, H, S, D] and back.
    o = F.scaled_dot_product_attention(q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3), v.permute(0, 2, 1, 3),
                                       dropout_p=0.0, is_causal=False).permute(0, 2, 1, 3)
    o = o.flatten(2, 3).type_as(q)
    o = F.linear(o, w["o_w"], w["o_b"])
    o_txt, o_img = o.split([s, o.size(1) - s], dim=1)
    return o_img, o_txt


def feed_forward(F, w, x):
    """FeedForward(activation_fn='gelu-approximate'): Linear, tanh-GELU, Linear."""
    return F.linear(F.gelu(F.linear(x, w["ff1_w"], w["ff1_b"]), approximate="tanh"), w["ff2_w"], w["ff2_b"])


# ---- the eager chain: the model as written ---------------------------------


def block_eager_fwd(torch, F, w, h, e, temb, rope, heads, eps):
    """GlmImageTransformerBlock.forward, op for op: returns (image, text)."""
    wd = h.shape[-1]
    # 1. norm1: GlmImageAdaLayerNormZero
    norm_h = F.layer_norm(h, (wd, ), None, None, eps)
    norm_e = F.layer_norm(e, (wd, ), None, None, eps)
    (shift_msa, c_shift_msa, scale_msa, c_scale_msa, gate_msa, c_gate_msa, shift_mlp, c_shift_mlp, scale_mlp,
     c_scale_mlp, gate_mlp, c_gate_mlp) = F.linear(temb, w["ada_w"], w["ada_b"]).chunk(12, dim=1)
    norm_h = norm_h * (1 + scale_msa.unsqueeze(1)) + shift_msa.unsqueeze(1)
    norm_e = norm_e * (1 + c_scale_msa.unsqueeze(1)) + c_shift_msa.unsqueeze(1)
    # 2. attention, its gate residuals
    qk = lambda q, k, eps_: (F.layer_norm(q, (q.shape[-1], ), None, None, eps_),
                             F.layer_norm(k, (k.shape[-1], ), None, None, eps_))
    attn_h, attn_e = joint_attention(torch, F, w, norm_h, norm_e, rope, heads, qk, eps)
    h = h + attn_h * gate_msa.unsqueeze(1)
    e = e + attn_e * c_gate_msa.unsqueeze(1)
    # 3. norm2 + modulate, feed-forward, its gate residuals
    norm_h = F.layer_norm(h, (wd, ), None, None, eps) * (1 + scale_mlp.unsqueeze(1)) + shift_mlp.unsqueeze(1)
    norm_e = F.layer_norm(e, (wd, ), None, None, eps) * (1 + c_scale_mlp.unsqueeze(1)) + c_shift_mlp.unsqueeze(1)
    ff_h = feed_forward(F, w, norm_h)
    ff_e = feed_forward(F, w, norm_e)
    h = h + ff_h * gate_mlp.unsqueeze(1)
    e = e + ff_e * c_gate_mlp.unsqueeze(1)
    return h, e


def norm_out_eager(F, wo, h, temb, eps):
    """GlmImageAdaLayerNormContinuous (no affine): LN(x) * (1 + scale) + shift."""
    scale, shift = F.linear(temb.to(h.dtype), wo["out_w"], wo["out_b"]).chunk(2, dim=1)
    return F.layer_norm(h, (h.shape[-1], ), None, None, eps) * (1 + scale)[:, None, :] + shift[:, None, :]


# ---- the fused path: the same block, the four site kinds swapped ------------


def _dense(x):
    """x itself when contiguous (every tensor at batch 1), else a copy."""
    return x if x.is_contiguous() else x.contiguous()


def _ln_mod(torch, kern, x, scale, shift, eps):
    out = torch.empty_like(x)
    kern.ln_modulate(x, _dense(scale), _dense(shift), out, eps)
    return out


def _gate(torch, kern, x, y, gate):
    out = torch.empty_like(x)
    kern.gate_add(x, _dense(y), _dense(gate), out)
    return out


def block_fused_fwd(torch, F, kern, w, h, e, temb, rope, heads, eps):
    """block_eager_fwd with kern's LN + modulate, qk LayerNorm and gate add."""
    (shift_msa, c_shift_msa, scale_msa, c_scale_msa, gate_msa, c_gate_msa, shift_mlp, c_shift_mlp, scale_mlp,
     c_scale_mlp, gate_mlp, c_gate_mlp) = F.linear(temb, w["ada_w"], w["ada_b"]).chunk(12, dim=1)
    norm_h = _ln_mod(torch, kern, h, scale_msa, shift_msa, eps)
    norm_e = _ln_mod(torch, kern, e, c_scale_msa, c_shift_msa, eps)

    def qk(q, k, eps_):
        q_out, k_out = torch.empty_like(q), torch.empty_like(k)
        kern.qk_layernorm(q, k, q_out, k_out, eps_)
        return q_out, k_out

    attn_h, attn_e = joint_attention(torch, F, w, norm_h, norm_e, rope, heads, qk, eps)
    h = _gate(torch, kern, h, attn_h, gate_msa)
    e = _gate(torch, kern, e, attn_e, c_gate_msa)
    norm_h = _ln_mod(torch, kern, h, scale_mlp, shift_mlp, eps)
    norm_e = _ln_mod(torch, kern, e, c_scale_mlp, c_shift_mlp, eps)
    ff_h = feed_forward(F, w, norm_h)
    ff_e = feed_forward(F, w, norm_e)
    h = _gate(torch, kern, h, ff_h, gate_mlp)
    e = _gate(torch, kern, e, ff_e, c_gate_mlp)
    return h, e


def norm_out_fused(torch, F, kern, wo, h, temb, eps):
    scale, shift = F.linear(temb.to(h.dtype), wo["out_w"], wo["out_b"]).chunk(2, dim=1)
    return _ln_mod(torch, kern, h, scale, shift, eps)


# ---- paths: which kernels replace the sites --------------------------------

# Each fused path: the module beside this file whose Kernels class has
# ln_modulate, qk_layernorm and gate_add.
FUSED_PATHS = {"abk": "abk", "triton": "glm_block_triton"}
_KERNELS = {}


def kernels(path):
    """The fused kernel set of a path (FUSED_PATHS), made once."""
    if path not in _KERNELS:
        if path not in FUSED_PATHS:
            raise ValueError(f"no fused path '{path}' ({', '.join(FUSED_PATHS)})")
        _KERNELS[path] = importlib.import_module(FUSED_PATHS[path]).Kernels()
    return _KERNELS[path]


# ---- the signature log (docs/CERTIFICATE.md) ---------------------------------

_SIGLOG = []  # [] until first asked; then [SignatureLog] or [None]


def signature_log():
    """The log of $ABBENCH_SIGNATURE_LOG (python/abbench_cert.py), None
    when the variable is unset: made once per process."""
    if not _SIGLOG:
        path = os.environ.get("ABBENCH_SIGNATURE_LOG")
        if path:
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
                os.path.abspath(__file__)))), "python"))
            import abbench_cert
            _SIGLOG.append(abbench_cert.SignatureLog(path))
        else:
            _SIGLOG.append(None)
    return _SIGLOG[0]


def log_block_sites(log, dims, h, e, eps):
    """One block's fusion sites as the model meets them (glm_model's
    SITES_PER_BLOCK): LayerNorm + modulate twice per stream, the joint qk
    LayerNorm once, the gate residuals twice per stream."""
    q = (h.shape[0], e.shape[1] + h.shape[1], dims.heads, dims.head_dim)
    for x in (h, e):
        log.log("ln_modulate", x.shape, x.dtype, eps, False, count=2)
        log.log("residual_gate_add", x.shape, x.dtype, eps, False, count=2)
    log.log("qk_layernorm", q, h.dtype, eps, False)


def forward(torch, F, path, dims, h, e, temb, eps, blocks, norm_out, seed=WEIGHT_SEED, kern=None, weights=None):
    """`blocks` blocks (weights of blocks 0, 1, ...) and, with norm_out, the
    final norm; path 'eager' or a fused one (kern: its kernel set, else
    kernels(path)). weights(layer, table) gives a block's weights (default:
    make_weights, cached). Returns (image, text). With
    $ABBENCH_SIGNATURE_LOG set, every site's signature is appended to that
    JSON-lines file (python/abbench_cert.py) for `abbench coverage`."""
    dev = h.device
    log = signature_log()
    rope = rope_tables(torch, dev, dims)
    if path != "eager" and kern is None:
        kern = kernels(path)
    if weights is None:
        weights = lambda layer, table: make_weights(torch, dev, dims, layer, seed, table)
    for layer in range(blocks):
        if log is not None:
            log_block_sites(log, dims, h, e, eps)
        w = weights(layer, BLOCK_WEIGHTS)
        if path == "eager":
            h, e = block_eager_fwd(torch, F, w, h, e, temb, rope, dims.heads, eps)
        else:
            h, e = block_fused_fwd(torch, F, kern, w, h, e, temb, rope, dims.heads, eps)
    if norm_out:
        if log is not None:
            log.log("ln_continuous", h.shape, h.dtype, eps, False)
        wo = weights(NORM_OUT_LAYER, OUT_WEIGHTS)
        h = norm_out_eager(F, wo, h, temb, eps) if path == "eager" else norm_out_fused(torch, F, kern, wo, h, temb,
                                                                                       eps)
    return h, e


# ---- the abbench arms: fn(t, d) --------------------------------------------


def _arm(t, d, path, blocks, norm_out):
    if d.get("backend") == "cpu":
        import glm_block_np
        return glm_block_np.arm(t, d, path != "eager", blocks, norm_out)
    import torch
    import torch.nn.functional as F
    with torch.no_grad():
        dims = dims_of(t, d)
        h, e = forward(torch, F, path, dims, t["img"], t["txt"], t["temb"], float(d["eps"]), blocks, norm_out)
        t["img_out"].copy_(h)
        t["txt_out"].copy_(e)
    return None


def block_eager(t, d):
    """One block, both streams, PyTorch's eager chain."""
    return _arm(t, d, "eager", 1, False)


def block_fused(t, d):
    """One block, both streams, abbench's fused CUDA kernels (abk.py)."""
    return _arm(t, d, "abk", 1, False)


def block_fused_triton(t, d):
    """One block, both streams, the exact Triton kernels."""
    return _arm(t, d, "triton", 1, False)


def step_eager(t, d):
    """One forward: STEP_BLOCKS blocks and norm_out, eager."""
    return _arm(t, d, "eager", STEP_BLOCKS, True)


def step_fused(t, d):
    """One forward: STEP_BLOCKS blocks and norm_out, abbench's fused kernels."""
    return _arm(t, d, "abk", STEP_BLOCKS, True)


def step_fused_triton(t, d):
    """One forward: STEP_BLOCKS blocks and norm_out, the Triton kernels."""
    return _arm(t, d, "triton", STEP_BLOCKS, True)
