"""Draws comm_share.svg for lesson 11: the share of a 1D block's step spent communicating,
by group size t, for two hidden sizes on dgx-h100, from tplab's own cost model.

Run from the repository root after building tplab:
    python3 lessons/11-scaling-cost-model/comm_share.py
"""

import json
import pathlib
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "tplab"  # the same file on every run
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GPUS = [1, 2, 4, 8, 16]
SHAPES = [  # (label, batch, seq, hidden, heads)
    ("h = 12288 (GPT-3 175B)", 1, 2048, 12288, 96),
    ("h = 1024", 1, 2048, 1024, 16),
]


def projections(batch, seq, hidden, heads):
    """tplab model's 1D projections on dgx-h100 at every count of GPUS."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "model.json"
        subprocess.run(
            [str(ROOT / "tplab"), "model", "--scheme", "1d", "--batch", str(batch),
             "--seq", str(seq), "--hidden", str(hidden), "--heads", str(heads),
             "--gpus", ",".join(map(str, GPUS)), "--hardware", "dgx-h100", "--json", str(out)],
            check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())["projections"]


def main():
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, *shape in SHAPES:
        rows = [p for p in projections(*shape) if p["fits"]]
        ax.plot([p["gpus"] for p in rows], [100 * p["comm_share"] for p in rows], marker="o",
                label=label)
    ax.axvspan(8.5, GPUS[-1] * 1.2, color="0.9", zorder=0)
    ax.text(9.2, 8, "more than one\n8-GPU node:\nInfiniBand", fontsize=8)
    ax.axhline(50, color="0.5", linewidth=0.8, linestyle="--")
    ax.text(1.05, 45, "communication = compute", fontsize=8, color="0.4")
    ax.set_xscale("log", base=2)
    ax.set_xticks(GPUS, [str(g) for g in GPUS])
    ax.set_xlim(0.9, GPUS[-1] * 1.2)
    ax.set_ylim(0, 100)
    ax.set_xlabel("t, ranks of the 1D group (one per GPU)")
    ax.set_ylabel("communication share of the step (%)")
    ax.set_title("1D tensor parallelism on dgx-h100, one block, b = 1, s = 2048", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "comm_share.svg", metadata={"Date": None, "Creator": None})
    return 0


if __name__ == "__main__":
    sys.exit(main())
