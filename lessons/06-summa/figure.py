#!/usr/bin/env python3
"""Draws figure.svg for lesson 06: step k of SUMMA on a 3 x 3 grid, the row broadcasts of
X(i,k) and the column broadcasts of W(k,j). Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

Q, K, CELL = 3, 1, 150
ROW_COLOR, COLUMN_COLOR = "#c0392b", "#1f5fa8"


def head(color):
    """The id of the arrow head drawn in color."""
    return f"head-{color[1:]}"


def arrow(x1, y1, x2, y2, color):
    """A broadcast: a thick arrow in color."""
    return svg.arrow(x1, y1, x2, y2, color, 3, head(color))


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
    markers = [svg.marker(head(color), color) for color in (row_color, column_color)]
    out = svg.header(left + Q * CELL + 400, top + Q * CELL + 70, markers)
    out.append(svg.text(left + Q * CELL / 2, 30, f"SUMMA, q = {Q}, step k = {K}", 16, "bold"))
    for i in range(Q):
        out.append(svg.text(left - 30, top + i * CELL + CELL / 2 + 5, f"row {i}", 12))
        for j in range(Q):
            x, y = left + j * CELL, top + i * CELL
            out.append(svg.rect(x, y, CELL, CELL, cell_fill(i, j), width=1))
            cx = x + CELL / 2 + 8
            out.append(svg.text(cx, y + 22, f"rank {i * Q + j} = ({i},{j})", 12, "bold"))
            out.append(svg.text(cx, y + 42, f"holds X({i},{j}), W({i},{j})", 11))
            out.append(svg.text(cx, y + 70, f"Y({i},{j}) +=", 11))
            out.append(svg.text(cx, y + 86, f"X({i},{K}) W({K},{j})", 11))
    for j in range(Q):
        out.append(svg.text(left + j * CELL + CELL / 2, top - 10, f"column {j}", 12))
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
        out.append(svg.text(lx + 50, y + 5, words, 12, anchor="start"))
    notes = [f"red cells (column {K}) send X, blue cells (row {K}) send W", f"after k = 0 .. {Q - 1}: Y(i,j) is whole",
             "on every rank, with no sum across ranks", "per rank: 2q broadcasts, (m in + in out)/q",
             "elements"]
    for n, words in enumerate(notes):
        out.append(svg.text(lx, top + 110 + n * 20, words, 12, anchor="start"))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
