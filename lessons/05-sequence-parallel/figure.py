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
    left, top = 30, 80
    boxes = [
        ("x_r, LN, residual", "[m/t, h] per rank", by_tokens),
        ("a: gathered", "[m, h] on every rank", svg.whole("#ccc")),
        ("fc1, GELU", "[m, 4h/t] per rank", svg.by_features(T)),
        ("fc2's partials", "[m, h] on every rank", svg.whole("#eee")),
        ("+ b2 + x_r = y_r", "[m/t, h] per rank", by_tokens),
    ]
    between = [("g", "all_gather"), ("a W1_r", "W1 by columns"), ("act W2_r", "W2 by rows"),
               ("g-bar", "reduce_scatter")]
    width = left + len(boxes) * svg.STEP
    out = svg.header(width, top + svg.BOX_H + 110, [svg.marker("head")])
    out.append(svg.text(width / 2, 28, "Sequence parallelism, t = 4: LayerNorm + MLP", 16, "bold"))
    out += svg.box_row(left, top, boxes, between)
    out += svg.rank_legend(left, top + svg.BOX_H + 40, T)
    out.append(svg.text(width / 2, top + svg.BOX_H + 90,
                        "backward: the same with the collectives swapped (all_gather of dy, "
                        "reduce_scatter of da); d_gamma, d_beta, d_b2 all-reduced", 12))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
