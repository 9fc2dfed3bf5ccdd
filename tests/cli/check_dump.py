"""Checks `tplab dump` from outside C++: loads the .npy files with NumPy and recomputes the
block's forward pass and the MLP's weight gradients independently of tplab.

usage: check_dump.py DIR b s h heads
"""
import math
import sys
from pathlib import Path

import numpy as np

PARAMETERS = ["ln1_gamma", "ln1_beta", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo",
              "ln2_gamma", "ln2_beta", "w1", "b1", "w2", "b2"]


def layernorm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def main():
    folder, (b, s, h, heads) = Path(sys.argv[1]), map(int, sys.argv[2:6])
    t = {p.stem: np.load(p) for p in folder.glob("*.npy")}
    expected = {"x", "dy", "y", "dx"} | set(PARAMETERS) | {"d_" + p for p in PARAMETERS}
    assert set(t) == expected, f"files differ: {sorted(set(t) ^ expected)}"
    m, d = b * s, h // heads
    for name, shape in {"x": (m, h), "wq": (h, h), "w1": (h, 4 * h), "w2": (4 * h, h),
                        "b1": (4 * h,), "d_w1": (h, 4 * h), "dx": (m, h)}.items():
        assert t[name].shape == shape and t[name].dtype == np.float64, (name, t[name].shape)

    a = layernorm(t["x"], t["ln1_gamma"], t["ln1_beta"])
    q, k, v = (a @ t["w" + n] + t["b" + n] for n in "qkv")
    ctx = np.zeros((m, h))
    mask = np.triu(np.ones((s, s), dtype=bool), 1)
    for bi in range(b):
        rows = slice(bi * s, (bi + 1) * s)
        for hi in range(heads):
            cols = slice(hi * d, (hi + 1) * d)
            scores = q[rows, cols] @ k[rows, cols].T / math.sqrt(d)
            scores[mask] = -np.inf
            p = np.exp(scores - scores.max(axis=1, keepdims=True))
            ctx[rows, cols] = (p / p.sum(axis=1, keepdims=True)) @ v[rows, cols]
    x1 = t["x"] + ctx @ t["wo"] + t["bo"]
    pre = layernorm(x1, t["ln2_gamma"], t["ln2_beta"]) @ t["w1"] + t["b1"]
    y = x1 + gelu(pre) @ t["w2"] + t["b2"]
    error = np.linalg.norm(y - t["y"]) / np.linalg.norm(t["y"])
    assert error < 1e-12, f"y differs from NumPy's forward: relative L2 {error:.3e}"

    # The last layer's gradients follow from y = x1 + gelu(pre) W2 + b2 directly.
    dw2 = gelu(pre).T @ t["dy"]
    dw2_error = np.linalg.norm(dw2 - t["d_w2"]) / np.linalg.norm(dw2)
    db2_error = np.abs(t["dy"].sum(axis=0) - t["d_b2"]).max()
    assert dw2_error < 1e-12 and db2_error < 1e-10, (dw2_error, db2_error)
    print(f"ok: {len(t)} arrays; y agrees with NumPy to {error:.1e}, d_w2 to {dw2_error:.1e}")


if __name__ == "__main__":
    main()
