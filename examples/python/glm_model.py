"""glm_model.py - what GLM-Image's DiT block is made of, shared by its two
implementations: glm_block.py (PyTorch, eager and fused) and
glm_block_np.py (the numpy stand-in for abbench's CPU backend).

Dimensions of the released model (diffusers'
src/diffusers/models/transformers/transformer_glm_image.py with GLM-Image's
config): hidden 4096 = 32 heads x 128, time embedding 512, feed-forward
4 x 4096 with tanh-GELU, 30 blocks; at 1024x1024, 4096 image tokens (a
64 x 64 grid of 2 x 2 patches of the 128 x 128 latent) and, in the seed's
prompt, 264 text tokens. No weights can be downloaded here: both
implementations draw theirs from WEIGHT_SEED, in the order of the tables
below. Plain Python: no torch, no numpy.
"""
import math
from dataclasses import dataclass

HIDDEN = 4096
HEADS = 32
HEAD_DIM = 128
TEMB_DIM = 512
BLOCKS = 30
IMG_TOKENS = 4096
TXT_TOKENS = 264
EPS = 1e-5
FF_MULT = 4
ROPE_THETA = 10000.0

WEIGHT_SEED = 20261129
# Every Linear's weight and bias at the real dims: normal(0, 0.02), drawn in
# float32, then bf16. With normal(0, 1) inputs the adaLN-Zero modulation
# (scale, shift, gate) comes out at about 0.45 and q, k, v at about 1.3
# before the qk LayerNorm (docs/BLOCK.md has the magnitudes measured
# through the blocks). At other dims weight_std() scales it with the fan-in.
WEIGHT_STD = 0.02

# The blocks a step (one forward) runs: the model's 30. They fit on one
# H200: about 13.6 GB of bf16 weights.
STEP_BLOCKS = BLOCKS

# One block's weights in the order they are drawn, each as the (out, in)
# shape of its Linear from the hidden size W and the time embedding E.
BLOCK_WEIGHTS = (
    ("ada_w", lambda W, E: (12 * W, E)),  # GlmImageAdaLayerNormZero.linear: 12 modulation chunks
    ("ada_b", lambda W, E: (12 * W, )),
    ("q_w", lambda W, E: (W, W)),  # attn1.to_q, to_k, to_v, to_out[0]
    ("q_b", lambda W, E: (W, )),
    ("k_w", lambda W, E: (W, W)),
    ("k_b", lambda W, E: (W, )),
    ("v_w", lambda W, E: (W, W)),
    ("v_b", lambda W, E: (W, )),
    ("o_w", lambda W, E: (W, W)),
    ("o_b", lambda W, E: (W, )),
    ("ff1_w", lambda W, E: (FF_MULT * W, W)),  # ff: GELU(tanh)'s proj, then the output Linear
    ("ff1_b", lambda W, E: (FF_MULT * W, )),
    ("ff2_w", lambda W, E: (W, FF_MULT * W)),
    ("ff2_b", lambda W, E: (W, )),
)
# norm_out (GlmImageAdaLayerNormContinuous).linear: scale then shift.
OUT_WEIGHTS = (("out_w", lambda W, E: (2 * W, E)), ("out_b", lambda W, E: (2 * W, )))
NORM_OUT_LAYER = -1

# The 12 chunks of the adaLN-Zero Linear, in the model's order.
ADA_CHUNKS = ("shift_msa", "c_shift_msa", "scale_msa", "c_scale_msa", "gate_msa", "c_gate_msa", "shift_mlp",
              "c_shift_mlp", "scale_mlp", "c_scale_mlp", "gate_mlp", "c_gate_mlp")

# The site kinds of one block and how often each runs (per block, both
# streams), and once per forward for norm_out: docs/BLOCK.md.
SITES_PER_BLOCK = (
    ("ln_modulate", "image", 2, "norm1 (adaLN-Zero) and norm2"),
    ("ln_modulate", "text", 2, "norm1_context and norm2_context"),
    ("qk_layernorm", "joint", 1, "norm_q and norm_k over the 4360 tokens: two LayerNorm launches eager"),
    ("residual_gate_add", "image", 2, "attention gate (gate_msa) and feed-forward gate (gate_mlp)"),
    ("residual_gate_add", "text", 2, "c_gate_msa and c_gate_mlp"),
)
SITES_PER_FORWARD = (("ln_continuous", "image", 1, "norm_out"), )


def weight_std(table, name, W, E):
    """The std of weight or bias `name` of table at hidden W, time embedding
    E: WEIGHT_STD at the real dims, else times sqrt(real fan-in / fan-in),
    so that each Linear's output keeps the magnitude it has in the real
    model (a tiny stand-in block then changes its streams as much as a real
    one does, rather than almost nothing)."""
    shape = dict(table)[name[:-2] + "_w"]
    return WEIGHT_STD * math.sqrt(shape(HIDDEN, TEMB_DIM)[1] / shape(W, E)[1])


def weight_seed(seed, layer):
    """The seed of one block's generator (norm_out: layer -1)."""
    return (seed * 1000003 + (layer + 1) * 7919) % (1 << 63)


@dataclass(frozen=True)
class Dims:
    batch: int  # B
    img: int  # I: image tokens
    txt: int  # S: text tokens
    hidden: int  # W
    heads: int  # H
    temb: int  # E

    @property
    def head_dim(self):
        return self.hidden // self.heads

    @property
    def grid(self):
        """The image token grid (height, width): square, as at 1024x1024."""
        side = math.isqrt(self.img)
        return side, side

    def check(self):
        """The model's constraints beyond the site file's `require`."""
        side = math.isqrt(self.img)
        if side * side != self.img:
            raise ValueError(f"I={self.img} image tokens are not a square grid (RoPE needs height x width)")
        if self.hidden % self.heads or self.head_dim % 4:
            raise ValueError(f"W={self.hidden}, H={self.heads}: head_dim W/H must be a whole multiple of 4")
        return self


def real_dims(batch=1):
    return Dims(batch, IMG_TOKENS, TXT_TOKENS, HIDDEN, HEADS, TEMB_DIM)


def dims_of(t, d):
    """A case's dims: the tensors' shapes, the heads from d['axes']['H']
    (numpy arrays and torch tensors alike)."""
    b, i, w = t["img"].shape
    return Dims(int(b), int(i), int(t["txt"].shape[1]), int(w), int(d["axes"]["H"]), int(t["temb"].shape[1])).check()
