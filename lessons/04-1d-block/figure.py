#!/usr/bin/env python3
"""Draws figure.svg for lesson 04: 1D attention on t = 4 ranks with n = 8 heads, which rank holds
which heads, and where f and g communicate. Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

T = 4
HEADS = 8


def by_heads(x, y):
    """[m, h] cut into n heads of h/n columns; rank r holds heads r*n/t .. (r+1)*n/t - 1."""
    w = svg.BOX_W / HEADS
    parts = []
    for head in range(HEADS):
        parts.append(svg.rect(x + head * w, y, w, svg.BOX_H, svg.RANK_COLORS[head * T // HEADS]))
        parts.append(svg.text(x + head * w + w / 2, y + svg.BOX_H / 2 + 4, str(head), 10))
    return parts


def main():
    boxes = [
        ("A = LN1(x)", "[m, h] on every rank", svg.whole("#ccc")),
        ("Q_r, K_r, V_r", "[m, h/t]: n/t heads each", by_heads),
        ("ctx_r", "[m, h/t], heads local", by_heads),
        ("ctx_r Wo_r", "[m, h], a partial sum on each rank", svg.whole("#eee")),
        ("x1 = x + sum + bo", "[m, h] on every rank", svg.whole("#ccc")),
    ]
    between = [("f, A Wq_r ...", "by columns"), ("softmax", "per head"), ("ctx_r Wo_r", "Wo by rows"),
               ("g", "all_reduce")]
    title = "1D attention, t = 4, n = 8 heads: each rank owns n/t = 2 whole heads"
    note = ("then y = x1 + MLP(LN2(x1)) as in lesson 03; backward: Q, K, V add their "
            "partial dA, and f all-reduces it once")
    svg.box_row_figure(__file__, title, boxes, between, note, T)


if __name__ == "__main__":
    main()
