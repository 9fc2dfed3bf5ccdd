#!/usr/bin/env python3
"""Draws figure.svg for lesson 10: the data flow of the 3D linear pair on the q x q x q cube
(q = 2) as one rank sees it: fc1 in roles (I, K) turns X into H with its tokens cut along K, and
fc2 in the swapped roles (K, I) brings Y back to X's layout. Run: python3 figure.py (writes
figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import cube_figure as cube  # noqa: E402
import svg_figure as svg  # noqa: E402

Q = 2
RANK = 1  # (i, j, k) = (1, 0, 0): i and k differ, so the swap shows
W_BOX, H_BOX, STEP = 110, 150, 250


def block_layout_owner(row, col):
    """X and Y [m_JI, h_K]."""
    return cube.block_layout_owner(row, col, Q)


def hidden_owner(row, col):
    """H [m_JK, 4h_I]."""
    return cube.swapped_layout_owner(row, col, Q)


def matrix(x, y, title, notation, source):
    """A q^2 x q tensor of this figure's size (cube_figure.matrix)."""
    return cube.matrix(x, y, (W_BOX, H_BOX), Q, title, notation, source)


def linear_row(x, y, tensors, arrows):
    """Four tensors left to right joined by three labelled arrows."""
    out = []
    for n, (title, notation, source) in enumerate(tensors):
        out += matrix(x + n * STEP, y, title, notation, source)
    for n, (above, below) in enumerate(arrows):
        start = x + n * STEP + W_BOX + 4
        out += svg.labelled_arrow(start, y + H_BOX / 2, x + (n + 1) * STEP - 4, y + H_BOX / 2, above, below)
    return out


def main():
    i, j, k = cube.coordinates(RANK, Q)
    left, top = 40, 135
    width = left + 3 * STEP + W_BOX + 40
    second = top + H_BOX + 110
    height = second + H_BOX + 110
    out = svg.header(width, height, [svg.marker("head")])
    out.append(svg.text(width / 2, 30, "The 3D linear pair: the role swap, as rank "
                        f"{RANK} = (i, j, k) = ({i}, {j}, {k}) sees it", 16, "bold"))
    out.append(svg.text(width / 2, 52, "blocks coloured by the rank they come from; the blank ones "
                        "are held by other ranks", 12))

    def own(owner):
        return lambda r, c: RANK if owner(r, c) == RANK else None

    def tokens_j(column):  # rows of token block j of q, one column block: a gathered tensor
        return lambda owner: lambda r, c: owner(r, c) if r // Q == j and c == column else None

    out.append(svg.text(left, top - 50, "fc1, roles (input, output) = (I, K)", 13, "bold", anchor="start"))
    out += linear_row(left, top, [
        ("X", "X[m_JI, h_K]", own(block_layout_owner)),
        ("X~", "X[m_J, h_K]", tokens_j(k)(block_layout_owner)),
        ("P = X~ W1~", "H[m_J, 4h_I]{U_K}", lambda r, c: RANK if r // Q == j and c == i else None),
        ("H (GELU next)", "H[m_JK, 4h_I]", own(hidden_owner)),
    ], [("all_gather", "over I"), ("x W1~[h_K, 4h_I]", "W1 gathered over J"), ("reduce_scatter", "over K")])

    out.append(svg.text(left, second - 50, "fc2, roles swapped: (input, output) = (K, I)", 13, "bold",
                        anchor="start"))
    out += linear_row(left, second, [
        ("H", "H[m_JK, 4h_I]", own(hidden_owner)),
        ("H~", "H[m_J, 4h_I]", tokens_j(i)(hidden_owner)),
        ("P = H~ W2~", "Y[m_J, h_K]{U_I}", lambda r, c: RANK if r // Q == j and c == k else None),
        ("Y, X's layout again", "Y[m_JI, h_K]", own(block_layout_owner)),
    ], [("all_gather", "over K"), ("x W2~[4h_I, h_K]", "W2 gathered over J"), ("reduce_scatter", "over I")])

    notes = ["backward runs each collective's dual over the same group: the all-gathers of X and H "
             "become reduce-scatters of their gradients,",
             "the reduce-scatters of P become all-gathers of dY; dW1~ and dW2~ are reduce-scattered over J"]
    for n, words in enumerate(notes):
        out.append(svg.text(width / 2, second + H_BOX + 50 + n * 20, words, 12))
    svg.write(__file__, out)


if __name__ == "__main__":
    main()
