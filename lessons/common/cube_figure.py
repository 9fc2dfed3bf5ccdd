"""What the figures of lessons 09 and 10 share: the ranks of the q x q x q cube, which rank
holds each block of the 3D layouts (parallel/tp3d, as lesson 09 names the axes), and a tensor
drawn as q^2 x q blocks coloured by rank."""
import svg_figure as svg

EMPTY = "#f4f4f4"


def rank_of(i, j, k, q):
    """Rank r = i + q (j + q k) of cube coordinates (i, j, k) (parallel/grid/grid_3d.hpp)."""
    return i + q * (j + q * k)


def coordinates(r, q):
    """(i, j, k) of rank r."""
    return r % q, (r // q) % q, r // (q * q)


def block_layout_owner(row, col, q):
    """X (and a linear pair's Y) [m_JI, h_K]: token block row = j q + i, feature block col = k."""
    return rank_of(row % q, row // q, col, q)


def swapped_layout_owner(row, col, q):
    """A linear's output [m_JK, 4h_I]: token block row = j q + k, feature block col = i."""
    return rank_of(col, row // q, row % q, q)


def weight_owner(row, col, q):
    """W[h_KJ, 4h_I]: in-feature block row = k q + j, out-feature block col = i."""
    return rank_of(col, row % q, row // q, q)


def matrix(x, y, size, q, title, notation, source, numbered=False):
    """A tensor cut q^2 x q at (x, y), size = (width, height): block (r, c) in the colour of rank
    source(r, c), blank where source gives None; numbered writes that rank in the block."""
    width, height = size

    def fill(r, c):
        return EMPTY if source(r, c) is None else svg.CUBE_COLORS[source(r, c)]

    label = (lambda r, c: f"{source(r, c)}") if numbered else None
    return ([svg.text(x + width / 2, y - 22, title, 13, "bold"),
             svg.text(x + width / 2, y - 8, notation, 11)]
            + svg.block_grid(x, y, width, height, q * q, q, fill, label))
