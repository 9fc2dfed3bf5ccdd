"""The SVG pieces the lessons' figure.py scripts draw with: boxes, labels, arrows and their heads,
the document around them, the rank legend, the row of tensors joined by arrows that lessons
03 to 05 draw, and the matrix cut into blocks that lessons 09 and 10 draw. Each figure.py keeps
its own drawing and imports this file."""
from pathlib import Path

INK = "#333"
RANK_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"]
CUBE_COLORS = RANK_COLORS + ["#76b7b2", "#edc948", "#b07aa1", "#ff9da7"]  # the 8 ranks of q = 2
BOX_W, BOX_H, STEP = 120, 160, 230


def rect(x, y, w, h, fill, stroke=INK, width=None):
    """A box; stroke-width is written only when width is given."""
    stroke_width = "" if width is None else f' stroke-width="{width}"'
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" '
            f'stroke="{stroke}"{stroke_width}/>')


def text(x, y, s, size=12, weight="normal", anchor="middle", color=None):
    """A label at (x, y); fill is written only when color is given."""
    fill = "" if color is None else f' fill="{color}"'
    return (f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{size}"{fill} '
            f'font-weight="{weight}" text-anchor="{anchor}">{s}</text>')


def arrow(x1, y1, x2, y2, color=INK, width=2, head="head", tail=None):
    """A line from (x1, y1) to (x2, y2) ending in the marker head, and starting in tail if given."""
    start = "" if tail is None else f' marker-start="url(#{tail})"'
    return (f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" '
            f'stroke-width="{width}"{start} marker-end="url(#{head})"/>')


def marker(name, color=INK, orient="auto", ref_x=9):
    """An arrow head with id name, for arrow's head and tail."""
    return (f'<marker id="{name}" markerWidth="10" markerHeight="10" refX="{ref_x}" refY="5" '
            f'orient="{orient}" markerUnits="userSpaceOnUse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{color}"/></marker>')


def labelled_arrow(x1, y1, x2, y2, above, below):
    """An arrow with a bold label above its middle and a plain one below."""
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    return [arrow(x1, y1, x2, y2), text(mx, my - 10, above, 12, "bold"), text(mx, my + 20, below, 11)]


def header(width, height, markers):
    """The opening <svg> element and the <defs> holding the markers."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
            "<defs>" + "".join(markers) + "</defs>"]


def whole(fill):
    """Draws a tensor every rank holds alike: one box of one fill."""
    return lambda x, y: [rect(x, y, BOX_W, BOX_H, fill)]


def by_features(t):
    """Draws [m, 4h] cut into t column stripes: rank r holds columns r*4h/t .. (r+1)*4h/t - 1."""
    w = BOX_W / t
    return lambda x, y: [rect(x + r * w, y, w, BOX_H, RANK_COLORS[r]) for r in range(t)]


def box_row(left, top, boxes, between):
    """Tensors left to right: boxes holds (title, shape, draw(x, y)), between the (above, below)
    labels of the arrow after each box but the last."""
    out = []
    for n, (title, shape, draw) in enumerate(boxes):
        x = left + n * STEP
        out += draw(x, top)
        out.append(text(x + BOX_W / 2, top - 22, title, 12, "bold"))
        out.append(text(x + BOX_W / 2, top - 8, shape, 11))
        if n < len(between):
            out.append(arrow(x + BOX_W + 4, top + BOX_H / 2, x + STEP - 4, top + BOX_H / 2))
            above, below = between[n]
            middle = x + BOX_W + (STEP - BOX_W) / 2
            out.append(text(middle, top + BOX_H / 2 - 10, above, 12, "bold"))
            out.append(text(middle, top + BOX_H / 2 + 22, below, 11))
    return out


def rank_legend(left, y, t):
    """A colour swatch and "rank r" for each of the t ranks, in a row from (left, y)."""
    out = []
    for r in range(t):
        x = left + r * 110
        out.append(rect(x, y, 14, 14, RANK_COLORS[r]))
        out.append(text(x + 20, y + 12, f"rank {r}", 12, anchor="start"))
    return out


def box_row_figure(script, title, boxes, between, note, t):
    """Lessons 03 to 05's figure, written beside script: the title, the row of tensors (as in
    box_row), the legend of the t ranks and one note under it."""
    left, top = 30, 80
    width = left + len(boxes) * STEP
    out = header(width, top + BOX_H + 110, [marker("head")])
    out.append(text(width / 2, 28, title, 16, "bold"))
    out += box_row(left, top, boxes, between)
    out += rank_legend(left, top + BOX_H + 40, t)
    out.append(text(width / 2, top + BOX_H + 90, note, 12))
    write(script, out)


def block_grid(x, y, w, h, rows, cols, fill, label=None):
    """A w x h matrix cut into rows x cols equal blocks; fill(r, c) colours block (r, c) and
    label(r, c), when given, writes a short text in its middle."""
    out = []
    bw, bh = w / cols, h / rows
    for r in range(rows):
        for c in range(cols):
            out.append(rect(x + c * bw, y + r * bh, bw, bh, fill(r, c), width=1))
            if label is not None:
                out.append(text(x + c * bw + bw / 2, y + r * bh + bh / 2 + 4, label(r, c), 11))
    return out


def write(script, out):
    """Closes the document and writes it to figure.svg beside the script (pass __file__)."""
    Path(script).with_name("figure.svg").write_text("\n".join(out + ["</svg>"]) + "\n")
