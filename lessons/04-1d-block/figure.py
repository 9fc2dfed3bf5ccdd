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
    left, top = 30, 80
    boxes = [
        ("A = LN1(x)", "[m, h] on every rank", svg.whole("#ccc")),
        ("Q_r, K_r, V_r", "[m, h/t]: n/t heads each", by_heads),
        ("ctx_r", "[m, h/t], heads local", by_heads),
        ("ctx_r Wo_r", "[m, h], a partial sum on each rank", svg.whole("#eee")),
        ("x1 = x + sum + bo", "[m, h] on every rank", svg.whole("#ccc")),
    ]
    between = [("f, A Wq_r ...", "by columns"), ("softmax", "per head"), ("ctx_r Wo_r", "Wo by rows"),
               ("g", "all_reduce")]
    width = left + len(boxes) * svg.STEP
    out = svg.header(width, top + svg.BOX_H + 110, [svg.marker("head")])
    out.append(svg.text(width / 2, 28,
                        "1D attention, t = 4, n = 8 heads: each rank owns n/t = 2 whole heads", 16,
                        "bold"))
    out += svg.box_row(left, top, boxes, between)
    out += svg.rank_legend(left, top + svg.BOX_H + 40, T)
    out.append(svg.text(width / 2, top + svg.BOX_H + 90,
                        "then y = x1 + MLP(LN2(x1)) as in lesson 03; backward: Q, K, V add their "
                        "partial dA, and f all-reduces it once", 12))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
