"""The same pre-LN GPT block in PyTorch, timed like `tplab bench step`: forward + backward from
a random dY, f32, one thread, median of the repeats after warm-up. For comparing tplab's
single-rank step with what PyTorch's CPU kernels do on this machine.

usage: python3 bench/compare/pytorch_block.py [--shape 4,256,1024,16] [--repeats 5] [--dtype f32]
       (any Python with torch; Debian 12 has one: apt-get install python3-torch, /usr/bin/python3)

Debian's PyTorch does its matmuls in the system BLAS (libblas.so.3, whichever
update-alternatives selects: OpenBLAS once libopenblas-dev is installed, else the slow reference
BLAS), and torch.set_num_threads does not reach OpenBLAS's own threads: the thread counts are
therefore pinned through the environment before torch loads.
"""
import argparse
import math
import os
import statistics
import time

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"  # one thread, as one tplab rank; read when the libraries load

import torch  # noqa: E402  (after the thread counts are pinned)
import torch.nn.functional as F  # noqa: E402

BLAS_LINK = "/etc/alternatives/libblas.so.3-x86_64-linux-gnu"


def block(x, p, heads):
    """y = x1 + W2 gelu_tanh(W1 LN2(x1)), x1 = x + Wo attention(LN1(x)); weights [in, out]."""
    b, s, h = x.shape
    d = h // heads
    a = F.layer_norm(x, (h,), p["ln1_gamma"], p["ln1_beta"], 1e-5)
    q, k, v = (a @ p[f"w{n}"] + p[f"b{n}"] for n in "qkv")
    q, k, v = (t.view(b, s, heads, d).transpose(1, 2) for t in (q, k, v))  # [b, heads, s, d]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    mask = torch.ones(s, s, dtype=torch.bool).triu(1)
    probs = scores.masked_fill(mask, float("-inf")).softmax(-1)
    ctx = (probs @ v).transpose(1, 2).reshape(b, s, h)
    x1 = x + ctx @ p["wo"] + p["bo"]
    m = F.layer_norm(x1, (h,), p["ln2_gamma"], p["ln2_beta"], 1e-5)
    return x1 + F.gelu(m @ p["w1"] + p["b1"], approximate="tanh") @ p["w2"] + p["b2"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="4,256,1024,16", help="b,s,h,heads")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    args = parser.parse_args()
    b, s, h, heads = (int(v) for v in args.shape.split(","))
    dtype = torch.float32 if args.dtype == "f32" else torch.float64
    torch.set_num_threads(1)
    torch.manual_seed(1)

    def param(*shape, scale=1.0):
        return (torch.randn(*shape, dtype=dtype) * scale).requires_grad_()

    p = {"ln1_gamma": param(h), "ln1_beta": param(h), "ln2_gamma": param(h), "ln2_beta": param(h)}
    for n in "qkvo":
        p[f"w{n}"], p[f"b{n}"] = param(h, h, scale=h ** -0.5), param(h)
    p["w1"], p["b1"] = param(h, 4 * h, scale=h ** -0.5), param(4 * h)
    p["w2"], p["b2"] = param(4 * h, h, scale=(4 * h) ** -0.5), param(h)
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    dy = torch.randn(b, s, h, dtype=dtype)

    samples = []
    for i in range(args.warmup + args.repeats):
        for t in list(p.values()) + [x]:
            t.grad = None
        start = time.perf_counter()
        block(x, p, heads).backward(dy)
        if i >= args.warmup:
            samples.append(time.perf_counter() - start)
    flops = 3 * (24 * b * s * h * h + 4 * b * s * s * h)
    median = statistics.median(samples)
    blas = os.path.realpath(BLAS_LINK) if os.path.exists(BLAS_LINK) else "unknown"
    print(f"PyTorch {torch.__version__} (system BLAS: {blas}), 1 thread, {args.dtype}, b={b} s={s} "
          f"h={h} heads={heads}: step {median * 1e3:.1f} ms (min {min(samples) * 1e3:.1f}, max "
          f"{max(samples) * 1e3:.1f}), {flops / median / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
