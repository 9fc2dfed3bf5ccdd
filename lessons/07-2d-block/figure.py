#!/usr/bin/env python3
"""Draws figure.svg for lesson 07: the groups of the distributed LayerNorm on a 2 x 2 grid, the
row all-reduces of the statistics and the column all-reduce of the gamma and beta gradients.
Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

Q, CELL_W, CELL_H, GAP = 2, 230, 120, 90
ROW_COLOR, COLUMN_COLOR = "#c0392b", "#1f5fa8"
FEATURE_FILLS = ["#fdf0d5", "#e3f1e0"]  # feature block j


def text(x, y, s, size, weight="normal", anchor="middle", color="#000"):
    """A label whose colour is always written: this figure colours some of them."""
    return svg.text(x, y, s, size, weight, anchor, color)


def both_ways(x1, y1, x2, y2, color, name):
    """An all-reduce: a thick line in color with the heads name-start and name-end."""
    return svg.arrow(x1, y1, x2, y2, color, 3, f"{name}-end", f"{name}-start")


def marker(name, color, orient):
    """An arrow head centred on the line's end."""
    return svg.marker(name, color, orient, ref_x=5)


def main():
    left, top = 90, 80
    width = left + Q * CELL_W + (Q - 1) * GAP + 40
    height = top + Q * CELL_H + (Q - 1) * GAP + 60
    out = svg.header(width, height, [marker("row-start", ROW_COLOR, "auto-start-reverse"),
                                     marker("row-end", ROW_COLOR, "auto"),
                                     marker("col-start", COLUMN_COLOR, "auto-start-reverse"),
                                     marker("col-end", COLUMN_COLOR, "auto")])
    out.append(text(width / 2, 28, "Distributed LayerNorm on a 2 x 2 grid: x(i,j) is [m/q, h/q]",
                    16, "bold"))
    for j in range(Q):
        out.append(text(left + j * (CELL_W + GAP) + CELL_W / 2, top - 12,
                        f"features {j}·h/q .. {j + 1}·h/q − 1 (column {j})", 12))
    for i in range(Q):
        y = top + i * (CELL_H + GAP)
        out.append(text(left - 12, y + CELL_H / 2 - 6, f"tokens", 12, anchor="end"))
        out.append(text(left - 12, y + CELL_H / 2 + 10, f"block {i}", 12, anchor="end"))
        for j in range(Q):
            x = left + j * (CELL_W + GAP)
            out.append(svg.rect(x, y, CELL_W, CELL_H, FEATURE_FILLS[j]))
            out.append(text(x + CELL_W / 2, y + 24, f"rank {i * Q + j} = ({i},{j})", 13, "bold"))
            out.append(text(x + CELL_W / 2, y + 48, f"x({i},{j}): tokens of block {i},", 12))
            out.append(text(x + CELL_W / 2, y + 64, f"features of block {j}", 12))
            out.append(text(x + CELL_W / 2, y + 92, f"gamma({j}), beta({j}) [h/q]", 12))
        # the row group: the features of one token block
        y_mid = y + CELL_H / 2
        x_from, x_to = left + CELL_W + 8, left + CELL_W + GAP - 8
        out.append(both_ways(x_from, y_mid, x_to, y_mid, ROW_COLOR, "row"))
        out.append(text((x_from + x_to) / 2, y_mid - 30, "row group", 12, "bold", color=ROW_COLOR))
        out.append(text((x_from + x_to) / 2, y_mid - 14, "mean, var", 11, color=ROW_COLOR))
        out.append(text((x_from + x_to) / 2, y_mid + 22, "(S1, S2)", 11, color=ROW_COLOR))
    for j in range(Q):
        # the column group: the replicas of gamma(j), beta(j)
        x_mid = left + j * (CELL_W + GAP) + CELL_W / 2
        y_from, y_to = top + CELL_H + 8, top + CELL_H + GAP - 8
        out.append(both_ways(x_mid, y_from, x_mid, y_to, COLUMN_COLOR, "col"))
        out.append(text(x_mid + 12, (y_from + y_to) / 2 - 4, "column group:", 12, "bold",
                        "start", COLUMN_COLOR))
        out.append(text(x_mid + 12, (y_from + y_to) / 2 + 12, "d_gamma, d_beta", 11, anchor="start",
                        color=COLUMN_COLOR))
    out.append(text(width / 2, height - 22,
                    "forward: 2 all-reduces of [m/q] on the row; backward: 1 of [m/q, 2] on the "
                    "row, 1 of [2, h/q] on the column", 12))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
