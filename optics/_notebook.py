"""Notebook views: one mechanism that gives results an HTML and a text face.

A class that mixes in :class:`NotebookView` gets ``_repr_html_`` (what Jupyter shows)
and ``__repr__`` (what a terminal shows) from one *view*: a function registered under
the class's qualified name that turns the object into a :class:`View` — a title, a list
of (label, value) lines, tables and, for the HTML only, a figure made lazily.  The views
themselves live in :mod:`optics.plot_notebook` (they need the analyses and matplotlib,
layers far above the classes); this module is layer 0 and knows no optics class.  A class
without a registered view falls back to a short field list (arrays by shape).

The HTML is well-formed XML (every cell escaped, every tag closed), so that a test can
parse it; the figure is inline SVG without its XML prologue.
"""

from __future__ import annotations

import dataclasses
import html
import io
import math
from dataclasses import dataclass, field

#: "module.QualName" -> view function (obj -> View); filled by optics.plot_notebook.
_VIEWS: dict = {}


@dataclass
class Table:
    """A table of a view: ``header`` (column names) and ``rows`` (lists of cells)."""

    header: list
    rows: list
    caption: str = ""


@dataclass
class View:
    """What a notebook view shows.

    Attributes
    ----------
    title : str
    lines : list of (str, object)
        Labelled values (a number is written with 6 significant digits).
    tables : list of Table
    figure : callable or None
        Makes a matplotlib Figure (called for the HTML only, so a ``repr`` never plots).
    """

    title: str
    lines: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    figure: object = None


def register(qualified_name: str):
    """Decorator: register ``function(obj) -> View`` for the class ``qualified_name``."""

    def decorate(function):
        _VIEWS[qualified_name] = function
        return function

    return decorate


def view_of(obj) -> View | None:
    """The registered view of ``obj`` (the first class in its MRO that has one), or None."""
    for cls in type(obj).__mro__:
        function = _VIEWS.get(f"{cls.__module__}.{cls.__qualname__}")
        if function is not None:
            return function(obj)
    return None


def cell(value) -> str:
    """A cell's text: floats with 6 significant digits, ``inf``, ``-`` for None or NaN."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(number):
        return "-"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return f"{number:.6g}"


def text(view: View) -> str:
    """The view as plain text: title, aligned lines, tables with aligned columns."""
    out = [view.title]
    width = max((len(label) for label, _ in view.lines), default=0)
    out += [f"  {label:<{width}}  {cell(value)}" for label, value in view.lines]
    for table in view.tables:
        cells = [[str(h) for h in table.header]] + [[cell(c) for c in r] for r in table.rows]
        widths = [max(len(r[k]) for r in cells if k < len(r)) for k in range(len(cells[0]))]
        if table.caption:
            out.append(f"  {table.caption}")
        for row in cells:
            out.append("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(out)


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(c))}</td>" for c in row) + "</tr>"
        for row in table.rows
    )
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return f'<table class="optics-table">{caption}<tr>{head}</tr>{body}</table>'


def figure_svg(figure) -> str:
    """A matplotlib Figure as an inline ``<svg>`` element (the figure is closed)."""
    buffer = io.StringIO()
    try:
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        figure.clf()
        _close(figure)
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def _close(figure):
    import matplotlib.pyplot as plt  # loaded already: the figure was made with it

    plt.close(figure)


def html_of(view: View) -> str:
    """The view as an HTML fragment (well-formed XML): title, lines, tables, figure."""
    parts = [f'<div class="optics-view"><strong>{html.escape(view.title)}</strong>']
    if view.lines:
        rows = "".join(
            f"<tr><th>{html.escape(label)}</th><td>{html.escape(cell(value))}</td></tr>"
            for label, value in view.lines
        )
        parts.append(f'<table class="optics-summary">{rows}</table>')
    parts += [_table_html(t) for t in view.tables]
    if view.figure is not None:
        try:
            parts.append(f'<div class="optics-figure">{figure_svg(view.figure())}</div>')
        except ImportError as error:  # no matplotlib: the tables alone
            parts.append(f"<p>(no figure: {html.escape(str(error))})</p>")
    parts.append("</div>")
    return "".join(parts)


def _short(value) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return f"<array {tuple(shape)}>"
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return f"<{type(value).__name__} of {len(value)}>"
    return cell(value) if not isinstance(value, (list, tuple, dict)) else repr(value)


def fallback_text(obj) -> str:
    """``ClassName(field=value, ...)`` with arrays and long lists by their size."""
    if dataclasses.is_dataclass(obj):
        items = [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.repr]
    else:
        items = []
    return f"{type(obj).__name__}(" + ", ".join(f"{k}={_short(v)}" for k, v in items) + ")"


class NotebookView:
    """Mixin: ``_repr_html_`` and ``__repr__`` from the class's registered view.

    A dataclass that mixes it in says ``repr=False`` so that this ``__repr__`` is used.
    """

    __slots__ = ()

    def _repr_html_(self) -> str:
        view = view_of(self)
        if view is None:
            return f"<pre>{html.escape(fallback_text(self))}</pre>"
        return html_of(view)

    def __repr__(self) -> str:
        view = view_of(self)
        return fallback_text(self) if view is None else text(view)
