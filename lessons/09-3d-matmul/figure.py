#!/usr/bin/env python3
"""Draws figure.svg for lesson 09: the q x q x q cube (q = 2), which rank holds each block of X,
W and Y, and what one rank gathers, multiplies and reduce-scatters to compute its block of Y.
Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import cube_figure as cube  # noqa: E402
import svg_figure as svg  # noqa: E402

Q = 2
RANK = 1  # the rank whose work the lower half follows: (i, j, k) = (1, 0, 0)
W_BOX, H_BOX, STEP = 120, 160, 250


def rank_of(i, j, k):
    """Rank r of cube coordinates (i, j, k)."""
    return cube.rank_of(i, j, k, Q)


def x_owner(row, col):
    """X[m_JI, h_K]."""
    return cube.block_layout_owner(row, col, Q)


def w_owner(row, col):
    """W[h_KJ, 4h_I]."""
    return cube.weight_owner(row, col, Q)


def y_owner(row, col):
    """Y[m_JK, 4h_I]."""
    return cube.swapped_layout_owner(row, col, Q)


def matrix(x, y, title, notation, source, numbered=False):
    """A q^2 x q tensor of this figure's size (cube_figure.matrix)."""
    return cube.matrix(x, y, (W_BOX, H_BOX), Q, title, notation, source, numbered)


def ranks(x, y):
    """The ranks as q layers k of a q x q grid (i across, j down), each in its colour."""
    cell, out = 44, []
    for k in range(Q):
        lx = x + k * (Q * cell + 30)
        out.append(svg.text(lx + Q * cell / 2, y - 8, f"layer k = {k}", 12, "bold"))
        out += svg.block_grid(lx, y, Q * cell, Q * cell, Q, Q,
                              lambda j, i, k=k: svg.CUBE_COLORS[rank_of(i, j, k)],
                              lambda j, i, k=k: f"{rank_of(i, j, k)}")
    notes = ["i across: the input group (axis I)", "j down: the weight group (axis J)",
             "k across layers: the output group (axis K)"]
    for n, words in enumerate(notes):
        out.append(svg.text(x, y + Q * cell + 24 + n * 18, words, 12, anchor="start"))
    return out


def main():
    i, j, k = cube.coordinates(RANK, Q)
    left, top = 40, 100
    width = left + 4 * STEP
    flow_top = top + H_BOX + 130
    height = flow_top + 2 * H_BOX + 100
    out = svg.header(width, height, [svg.marker("head")])
    out.append(svg.text(width / 2, 30, f"The 3D matmul on the {Q} x {Q} x {Q} cube, rank r = i + q (j + q k)",
                        16, "bold"))
    out.append(svg.text(width / 2, 52, "each block of X, W and Y shows the one rank that holds it", 12))

    out += matrix(left, top, "X, tokens x in", "X[m_JI, h_K]", x_owner, numbered=True)
    out += matrix(left + STEP, top, "W, in x out", "W[h_KJ, 4h_I]", w_owner, numbered=True)
    out += matrix(left + 2 * STEP, top, "Y, tokens x out", "Y[m_JK, 4h_I]", y_owner, numbered=True)
    out += ranks(left + 3 * STEP - 20, top + 10)

    out.append(svg.text(width / 2, flow_top - 60, f"rank {RANK} = (i, j, k) = ({i}, {j}, {k}): its blocks, "
                        "each coloured by the rank it comes from", 14, "bold"))

    def own(owner):
        return lambda r, c: RANK if owner(r, c) == RANK else None

    row_x, row_w = flow_top, flow_top + H_BOX + 70
    middle = (row_x + row_w) / 2
    out += matrix(left, row_x, "X: its block", "[m/q^2, h/q]", own(x_owner))
    out += matrix(left + STEP, row_x, "X~ = X[m_J, h_K]", "[m/q, h/q]",
                  lambda r, c: x_owner(r, c) if r // Q == j and c == k else None)
    out += matrix(left, row_w, "W: its block", "[h/q^2, 4h/q]", own(w_owner))
    out += matrix(left + STEP, row_w, "W~ = W[h_K, 4h_I]", "[h/q, 4h/q]",
                  lambda r, c: w_owner(r, c) if r // Q == k and c == i else None)
    out += matrix(left + 2 * STEP, middle, "P = X~ W~", "Y[m_J, 4h_I]{U_K}",
                  lambda r, c: RANK if r // Q == j and c == i else None)
    out += matrix(left + 3 * STEP, middle, "Y: its block", "Y[m_JK, 4h_I]", own(y_owner))

    for row, group in ((row_x, "over I (input)"), (row_w, "over J (weight)")):
        out += svg.labelled_arrow(left + W_BOX + 4, row + H_BOX / 2, left + STEP - 4, row + H_BOX / 2,
                                  "all_gather", group)
    joint = left + 2 * STEP - 4
    out.append(svg.arrow(left + STEP + W_BOX + 4, row_x + H_BOX / 2, joint, middle + 40))
    out.append(svg.arrow(left + STEP + W_BOX + 4, row_w + H_BOX / 2, joint, middle + H_BOX - 40))
    out.append(svg.text(left + STEP + W_BOX + 65, middle + H_BOX / 2 + 4, "multiply", 12, "bold"))
    out += svg.labelled_arrow(left + 2 * STEP + W_BOX + 4, middle + H_BOX / 2, left + 3 * STEP - 4,
                              middle + H_BOX / 2, "reduce_scatter", "over K (output)")
    others = ", ".join(str(rank_of(i, j, other)) for other in range(Q) if other != k)
    below_p = left + 2 * STEP + W_BOX / 2
    out.append(svg.text(below_p, middle + H_BOX + 22, f"rank {others} of its output group", 11))
    out.append(svg.text(below_p, middle + H_BOX + 38, "holds the other partial sum", 11))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
