#!/usr/bin/env python3
"""Draws figure.svg for lesson 03: the 1D MLP on t = 4 ranks, which rank holds which part of
each tensor, and where f and g communicate. Run: python3 figure.py (writes figure.svg here)."""
from pathlib import Path

T = 4
RANK_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"]
BOX_W, BOX_H, STEP = 120, 160, 230


def rect(x, y, w, h, fill, stroke="#333"):
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}"/>'


def text(x, y, s, size=12, weight="normal", anchor="middle"):
    return (f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{size}" '
            f'font-weight="{weight}" text-anchor="{anchor}">{s}</text>')


def arrow(x1, y, x2):
    return (f'<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="#333" stroke-width="2" '
            f'marker-end="url(#head)"/>')


def by_features(x, y):
    """[m, 4h] cut into t column stripes: rank r holds columns r*4h/t .. (r+1)*4h/t - 1."""
    w = BOX_W / T
    return [rect(x + r * w, y, w, BOX_H, RANK_COLORS[r]) for r in range(T)]


def main():
    left, top = 30, 80
    boxes = [
        ("X", "[m, h] on every rank", lambda x, y: [rect(x, y, BOX_W, BOX_H, "#ccc")]),
        ("H_r, A_r = gelu(H_r)", "[m, 4h/t] per rank", by_features),
        ("A_r W2_r", "[m, h], a partial sum on each rank",
         lambda x, y: [rect(x, y, BOX_W, BOX_H, "#eee")]),
        ("Y = sum + b2", "[m, h] on every rank", lambda x, y: [rect(x, y, BOX_W, BOX_H, "#ccc")]),
    ]
    between = [("f, X W1_r", "W1 by columns"), ("A_r W2_r", "W2 by rows"), ("g", "all_reduce")]
    width = left + len(boxes) * STEP
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + BOX_H + 110}">',
           '<defs><marker id="head" markerWidth="10" markerHeight="10" refX="9" refY="5" '
           'orient="auto" markerUnits="userSpaceOnUse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="#333"/></marker></defs>',
           text(width / 2, 28, "The 1D MLP, t = 4: f, fc1 by columns, GELU, fc2 by rows, g", 16, "bold")]
    for n, (title, shape, draw) in enumerate(boxes):
        x = left + n * STEP
        out += draw(x, top)
        out.append(text(x + BOX_W / 2, top - 22, title, 12, "bold"))
        out.append(text(x + BOX_W / 2, top - 8, shape, 11))
        if n < len(between):
            out.append(arrow(x + BOX_W + 4, top + BOX_H / 2, x + STEP - 4))
            above, below = between[n]
            middle = x + BOX_W + (STEP - BOX_W) / 2
            out.append(text(middle, top + BOX_H / 2 - 10, above, 12, "bold"))
            out.append(text(middle, top + BOX_H / 2 + 22, below, 11))
    for r in range(T):
        x = left + r * 110
        out.append(rect(x, top + BOX_H + 40, 14, 14, RANK_COLORS[r]))
        out.append(text(x + 20, top + BOX_H + 52, f"rank {r}", 12, anchor="start"))
    out.append(text(width / 2, top + BOX_H + 90,
                    "backward: g passes dY on; every rank's dX_r = dH_r W1_r^T is a partial sum, "
                    "and f all-reduces it", 12))
    out.append("</svg>")
    Path(__file__).with_name("figure.svg").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
