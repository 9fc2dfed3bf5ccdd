#!/usr/bin/env python3
"""Draws figure.svg for lesson 14: the mesh of p = D x t = 4 x 2 ranks, rank = dp_index x t +
tp_rank. Each row is one replica, a TP group of t consecutive ranks inside one node; each column
is a DP group, the D ranks that hold the same shards. Run: python3 figure.py (writes figure.svg
here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

D, T = 4, 2
CELL_W, CELL_H, ROW_GAP, PAD = 190, 74, 22, 12
NODE_FILL = "#eeeeee"
LEGEND_W = 520  # the legend right of the mesh: its longest line at 12 px


def line(x1, y1, x2, y2, color, width):
    """A plain line: a DP group's link between its ranks."""
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" '
            f'stroke-width="{width}" stroke-linecap="round"/>')


def cell(x, y, d, j):
    """Rank (d, j): its number, its coordinates and what it holds."""
    r = d * T + j
    return [svg.rect(x, y, CELL_W, CELL_H, "#ffffff", width=1),
            svg.rect(x, y, 10, CELL_H, svg.RANK_COLORS[j], width=1),
            svg.text(x + CELL_W / 2 + 5, y + 20, f"rank {r} = ({d}, {j})", 12, "bold"),
            svg.text(x + CELL_W / 2 + 5, y + 40, f"X rows of sequence {d}", 11),
            svg.text(x + CELL_W / 2 + 5, y + 58, f"W1 columns, W2 rows: block {j}", 11)]


def legend(x, top):
    """What the two kinds of group do, beside the mesh."""
    out = [svg.rect(x, top, 40, 24, NODE_FILL, width=1)]
    words = [
        (top + 16, "TP group (a row): t = 2 consecutive ranks of one replica,", "bold"),
        (top + 34, "colour rank / t; inside one node (NVLink). f and g", "normal"),
        (top + 52, "all-reduce activations in every layer, forward and backward.", "normal"),
        (top + 106, "DP group (a column): the D = 4 ranks of one tp_rank,", "bold"),
        (top + 124, "colour rank % t; across nodes. Once per step, after", "normal"),
        (top + 142, "backward: all-reduce each gradient shard, divide by D.", "normal"),
        (top + 196, "rank = dp_index x t + tp_rank (Megatron's order:", "normal"),
        (top + 214, "the TP rank varies fastest).", "normal"),
    ]
    for y, s, weight in words:
        out.append(svg.text(x + 52, y, s, 12, weight, anchor="start"))
    for j in range(T):
        y = top + 88 + j * 12
        out.append(line(x, y, x + 40, y, svg.RANK_COLORS[j], 4))
    return out


def main():
    left, top = 110, 70
    mesh_w = T * CELL_W + (T + 1) * PAD
    row_h = CELL_H + 2 * PAD
    height = top + D * row_h + (D - 1) * ROW_GAP + 50
    out = svg.header(left + mesh_w + LEGEND_W, height, [])
    out.append(svg.text((left + mesh_w + LEGEND_W) / 2, 30,
                        f"Data parallelism around tensor parallelism: p = D x t = {D} x {T}",
                        16, "bold"))
    for d in range(D):
        y = top + d * (row_h + ROW_GAP)
        out.append(svg.rect(left, y, mesh_w, row_h, NODE_FILL, width=1))
        out.append(svg.text(left - 50, y + row_h / 2 - 4, f"replica {d}", 12, "bold"))
        out.append(svg.text(left - 50, y + row_h / 2 + 12, f"node {d}", 11))
    for j in range(T):  # each DP group, under its ranks
        x = left + PAD + j * (CELL_W + PAD) + 5
        first = top + PAD + CELL_H / 2
        last = top + (D - 1) * (row_h + ROW_GAP) + PAD + CELL_H / 2
        out.append(line(x, first, x, last, svg.RANK_COLORS[j], 6))
    for d in range(D):
        y = top + d * (row_h + ROW_GAP) + PAD
        for j in range(T):
            out += cell(left + PAD + j * (CELL_W + PAD), y, d, j)
    out += legend(left + mesh_w + 40, top + 10)
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
