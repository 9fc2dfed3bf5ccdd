#!/usr/bin/env python3
"""Draws figure.svg for lesson 06: step k of SUMMA on a 3 x 3 grid, the row broadcasts of
X(i,k) and the column broadcasts of W(k,j). Run: python3 figure.py (writes figure.svg here)."""
from pathlib import Path

Q, K, CELL = 3, 1, 150
ROW_COLOR, COLUMN_COLOR = "#c0392b", "#1f5fa8"


def rect(x, y, w, h, fill, stroke="#333", width=1):
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"/>')


def text(x, y, s, size=13, weight="normal", anchor="middle"):
    return (f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{size}" '
            f'font-weight="{weight}" text-anchor="{anchor}">{s}</text>')


def arrow(x1, y1, x2, y2, color):
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" '
            f'stroke-width="3" marker-end="url(#head-{color[1:]})"/>')


def marker(color):
    return (f'<marker id="head-{color[1:]}" markerWidth="10" markerHeight="10" refX="9" refY="5" '
            f'orient="auto" markerUnits="userSpaceOnUse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{color}"/></marker>')


def cell_fill(i, j):
    """Roots of this step: column K sends X, row K sends W."""
    if i == K and j == K:
        return "#e8d6f0"
    if j == K:
        return "#f6d5d1"
    if i == K:
        return "#d3e2f4"
    return "#ffffff"


def main():
    left, top = 60, 70
    row_color, column_color = ROW_COLOR, COLUMN_COLOR
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + Q * CELL + 400}" '
           f'height="{top + Q * CELL + 70}">',
           f'<defs>{marker(row_color)}{marker(column_color)}</defs>',
           text(left + Q * CELL / 2, 30, f"SUMMA, q = {Q}, step k = {K}", 16, "bold")]
    for i in range(Q):
        out.append(text(left - 30, top + i * CELL + CELL / 2 + 5, f"row {i}", 12))
        for j in range(Q):
            x, y = left + j * CELL, top + i * CELL
            out.append(rect(x, y, CELL, CELL, cell_fill(i, j)))
            cx = x + CELL / 2 + 8
            out.append(text(cx, y + 22, f"rank {i * Q + j} = ({i},{j})", 12, "bold"))
            out.append(text(cx, y + 42, f"holds X({i},{j}), W({i},{j})", 11))
            out.append(text(cx, y + 70, f"Y({i},{j}) +=", 11))
            out.append(text(cx, y + 86, f"X({i},{K}) W({K},{j})", 11))
    for j in range(Q):
        out.append(text(left + j * CELL + CELL / 2, top - 10, f"column {j}", 12))
    for i in range(Q):  # X(i,K) from column K along row i
        y = top + i * CELL + CELL - 16
        for j in range(Q):
            if j != K:
                start = left + K * CELL + CELL / 2 + (-30 if j < K else 30)
                end = left + j * CELL + CELL / 2
                out.append(arrow(start, y, end, y, row_color))
    for j in range(Q):  # W(K,j) from row K down column j
        x = left + j * CELL + 12
        for i in range(Q):
            if i != K:
                start = top + K * CELL + CELL / 2 + (-30 if i < K else 30)
                end = top + i * CELL + CELL / 2
                out.append(arrow(x, start, x, end, column_color))
    lx = left + Q * CELL + 30
    legend = [(row_color, f"broadcast X(i,{K}) along row i (root: column {K})"),
              (column_color, f"broadcast W({K},j) along column j (root: row {K})")]
    for n, (color, words) in enumerate(legend):
        y = top + 20 + n * 30
        out.append(arrow(lx, y, lx + 40, y, color))
        out.append(text(lx + 50, y + 5, words, 12, anchor="start"))
    notes = [f"red cells (column {K}) send X, blue cells (row {K}) send W", f"after k = 0 .. {Q - 1}: Y(i,j) is whole",
             "on every rank, with no sum across ranks", "per rank: 2q broadcasts, (m in + in out)/q",
             "elements"]
    for n, words in enumerate(notes):
        out.append(text(lx, top + 110 + n * 20, words, 12, anchor="start"))
    out.append("</svg>")
    Path(__file__).with_name("figure.svg").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
