#!/usr/bin/env python3
"""Draws figure.svg for lesson 04: 1D attention on t = 4 ranks with n = 8 heads, which rank holds
which heads, and where f and g communicate. Run: python3 figure.py (writes figure.svg here)."""
from pathlib import Path

T = 4
HEADS = 8
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


def by_heads(x, y):
    """[m, h] cut into n heads of h/n columns; rank r holds heads r*n/t .. (r+1)*n/t - 1."""
    w = BOX_W / HEADS
    parts = []
    for head in range(HEADS):
        parts.append(rect(x + head * w, y, w, BOX_H, RANK_COLORS[head * T // HEADS]))
        parts.append(text(x + head * w + w / 2, y + BOX_H / 2 + 4, str(head), 10))
    return parts


def main():
    left, top = 30, 80
    boxes = [
        ("A = LN1(x)", "[m, h] on every rank", lambda x, y: [rect(x, y, BOX_W, BOX_H, "#ccc")]),
        ("Q_r, K_r, V_r", "[m, h/t]: n/t heads each", by_heads),
        ("ctx_r", "[m, h/t], heads local", by_heads),
        ("ctx_r Wo_r", "[m, h], a partial sum on each rank",
         lambda x, y: [rect(x, y, BOX_W, BOX_H, "#eee")]),
        ("x1 = x + sum + bo", "[m, h] on every rank", lambda x, y: [rect(x, y, BOX_W, BOX_H, "#ccc")]),
    ]
    between = [("f, A Wq_r ...", "by columns"), ("softmax", "per head"), ("ctx_r Wo_r", "Wo by rows"),
               ("g", "all_reduce")]
    width = left + len(boxes) * STEP
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + BOX_H + 110}">',
           '<defs><marker id="head" markerWidth="10" markerHeight="10" refX="9" refY="5" '
           'orient="auto" markerUnits="userSpaceOnUse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="#333"/></marker></defs>',
           text(width / 2, 28, "1D attention, t = 4, n = 8 heads: each rank owns n/t = 2 whole heads", 16, "bold")]
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
                    "then y = x1 + MLP(LN2(x1)) as in lesson 03; backward: Q, K, V add their "
                    "partial dA, and f all-reduces it once", 12))
    out.append("</svg>")
    Path(__file__).with_name("figure.svg").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
