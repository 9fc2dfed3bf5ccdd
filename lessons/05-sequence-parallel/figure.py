#!/usr/bin/env python3
"""Draws figure.svg for lesson 05: the LayerNorm + MLP sublayer under sequence parallelism on
t = 4 ranks, which rank holds which part of each tensor, and the all-gather and reduce-scatter
between them. Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

T = 4


def by_tokens(x, y):
    """[m, h] cut into t row stripes: rank r holds tokens r*m/t .. (r+1)*m/t - 1."""
    h = svg.BOX_H / T
    return [svg.rect(x, y + r * h, svg.BOX_W, h, svg.RANK_COLORS[r]) for r in range(T)]


def main():
    boxes = [
        ("x_r, LN, residual", "[m/t, h] per rank", by_tokens),
        ("a: gathered", "[m, h] on every rank", svg.whole("#ccc")),
        ("fc1, GELU", "[m, 4h/t] per rank", svg.by_features(T)),
        ("fc2's partials", "[m, h] on every rank", svg.whole("#eee")),
        ("+ b2 + x_r = y_r", "[m/t, h] per rank", by_tokens),
    ]
    between = [("g", "all_gather"), ("a W1_r", "W1 by columns"), ("act W2_r", "W2 by rows"),
               ("g-bar", "reduce_scatter")]
    title = "Sequence parallelism, t = 4: LayerNorm + MLP"
    note = ("backward: the same with the collectives swapped (all_gather of dy, "
            "reduce_scatter of da); d_gamma, d_beta, d_b2 all-reduced")
    svg.box_row_figure(__file__, title, boxes, between, note, T)


if __name__ == "__main__":
    main()
