#!/usr/bin/env python3
"""Draws figure.svg for lesson 03: the 1D MLP on t = 4 ranks, which rank holds which part of
each tensor, and where f and g communicate. Run: python3 figure.py (writes figure.svg here)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import svg_figure as svg  # noqa: E402

T = 4


def main():
    boxes = [
        ("X", "[m, h] on every rank", svg.whole("#ccc")),
        ("H_r, A_r = gelu(H_r)", "[m, 4h/t] per rank", svg.by_features(T)),
        ("A_r W2_r", "[m, h], a partial sum on each rank", svg.whole("#eee")),
        ("Y = sum + b2", "[m, h] on every rank", svg.whole("#ccc")),
    ]
    between = [("f, X W1_r", "W1 by columns"), ("A_r W2_r", "W2 by rows"), ("g", "all_reduce")]
    title = "The 1D MLP, t = 4: f, fc1 by columns, GELU, fc2 by rows, g"
    note = ("backward: g passes dY on; every rank's dX_r = dH_r W1_r^T is a partial "
            "sum, and f all-reduces it")
    svg.box_row_figure(__file__, title, boxes, between, note, T)


if __name__ == "__main__":
    main()
