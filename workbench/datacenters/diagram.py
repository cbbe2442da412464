"""The diagram of the two-center model, drawn from its parameters (:func:`draw_model`).

:class:`ModelDiagram` builds the figure once and redraws texts and server squares from new
parameters, which the notebook's model view uses on every slider move.
"""

from __future__ import annotations

from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from workbench.datacenters.params import CENTERS, P3Params
from workbench.params import takes
from workbench.plots import figure
from workbench.validation import check_pair, check_real

__all__ = ["draw_model", "ModelDiagram"]


def subscript(name: str) -> str:
    """A symbol's digits as subscripts, as a student reads them.

    Parameters
    ----------
    name : str
        ``p1``.

    Returns
    -------
    str
        ``p₁``.
    """
    return name.translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def pair_text(values, fmt: str = "g") -> str:
    """A pair (or any sequence) of numbers for a title: ``(1.5, 0.8)``.

    Parameters
    ----------
    values : sequence of float
        The numbers.
    fmt : str
        Their format specification.

    Returns
    -------
    str
        The numbers in parentheses, separated by commas.
    """
    return "(" + ", ".join(f"{v:{fmt}}" for v in values) + ")"


_SERVERS_DRAWN = 24  # at most this many servers are drawn per center (the count is written)


class ModelDiagram:
    """The diagram of :func:`draw_model`, built once and redrawn from new parameters.

    :meth:`update` changes texts and which server squares are drawn and shaded, so a slider
    view redraws the same figure instead of building one per move (axes, patches and text
    layout are most of a redraw). ``ModelDiagram().update(par)`` is a fresh
    :func:`draw_model` figure.
    """

    def __init__(self):
        fig, ax = figure(width=8.0, height=4.2)
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        ax.grid(False)
        # hidden axes are not even measured (placing the title measures the tick labels of
        # an axis that is switched off, on every draw)
        ax.xaxis.set_visible(False)
        ax.yaxis.set_visible(False)

        def arrow(xy0, xy1, where, color="k", **kw):
            ax.add_patch(
                FancyArrowPatch(
                    xy0, xy1, arrowstyle="-|>", mutation_scale=14, color=color, lw=1.4, **kw
                )
            )
            return ax.text(*where, "", ha="center", va="center", fontsize=9, color=color)

        self.squares, self.center_labels, self.service_labels = [], [], []
        for x0, y0 in ((1.6, 1.8), (6.0, 1.8)):
            ax.add_patch(
                FancyBboxPatch((x0, y0), 2.4, 2.4, boxstyle="round,pad=0.05", fc="#f3f6fb", ec="k")
            )
            squares = []
            for k in range(_SERVERS_DRAWN):
                r, q = divmod(k, 6)
                squares.append(
                    ax.add_patch(
                        Rectangle(
                            (x0 + 0.15 + 0.37 * q, y0 + 1.95 - 0.4 * r),
                            0.3,
                            0.3,
                            fc="white",
                            ec="C0",
                        )
                    )
                )
            self.squares.append(squares)
            self.center_labels.append(ax.text(x0 + 1.2, y0 + 0.2, "", ha="center", fontsize=8))
            self.service_labels.append(ax.text(x0 + 1.2, y0 + 2.65, "", ha="center", fontsize=8))
        self.lam_labels = (
            arrow((0.1, 3.0), (1.55, 3.0), (0.75, 3.35)),
            arrow((9.9, 3.0), (8.45, 3.0), (9.25, 3.35)),
        )
        bend = "arc3,rad=-0.25"
        self.forward_labels = (
            arrow((4.1, 3.7), (5.9, 3.7), (5.0, 4.35), "C1", connectionstyle=bend),
            arrow((5.9, 2.3), (4.1, 2.3), (5.0, 1.65), "C1", connectionstyle=bend),
        )
        self.lost_labels = (
            arrow((2.8, 1.75), (2.8, 0.4), (1.3, 0.8), "C3"),
            arrow((7.2, 1.75), (7.2, 0.4), (8.7, 0.8), "C3"),
        )
        self.title = ax.set_title("", fontsize=10)
        # "C0" is resolved now: a later theme must not recolour the shading of this figure
        self.busy_color = to_rgba("C0")
        self.fig, self.ax = fig, ax

    def update(self, par: P3Params, busy=None):
        """Redraw from a parameter object (``busy`` checked as :func:`draw_model` checks it)."""
        lam, servers, mu, p = par.lam, par.servers, par.mu, par.p
        if busy is not None:
            busy = [
                check_real(b, "busy", "draw_model", 0.0, float(c))
                for b, c in zip(check_pair(busy, "busy", "draw_model"), servers, strict=True)
            ]
        for i in (0, 1):
            shown = min(servers[i], _SERVERS_DRAWN)
            filled = shown if busy is None else round(shown * busy[i] / servers[i])
            for k, square in enumerate(self.squares[i]):
                square.set_visible(k < shown)
                square.set_facecolor(self.busy_color if k < filled else "white")
            more = "" if servers[i] <= _SERVERS_DRAWN else f" (24 of {servers[i]} drawn)"
            sub = subscript(str(i + 1))
            self.center_labels[i].set_text(f"center {i + 1}: C{sub} = {servers[i]}{more}")
            self.service_labels[i].set_text(f"service μ{sub} = {mu[i]:g} per busy server")
            self.lam_labels[i].set_text(f"λ{sub} = {lam[i]:g}")
            self.forward_labels[i].set_text(f"full: forward\nw.p. p{sub} = {p[i]:g}")
            self.lost_labels[i].set_text(
                f"lost: 1 − p{sub} = {1 - p[i]:g}\n(or forwarded, other full)"
            )
        title = "Two cooperating data centers (loss systems, no waiting room)"
        if busy is not None:
            title += ": shaded = mean busy servers"
        self.title.set_text(title)
        return self.fig


@takes(P3Params, *CENTERS, positional=True)
def draw_model(par, *, busy=None):
    """A diagram of the two-center model drawn from its parameters.

    Each center is a box of C_i servers (at most 24 drawn, the count written), fed by its
    own arrivals λ_i; a request finding its center full is forwarded with probability p_i
    (arrows between the centers) or lost with probability 1 − p_i (arrows down); a forwarded
    request finding the other center full is lost too.

    Takes the two centers' pairs (positional in this order) or one :class:`P3Params`.

    Parameters
    ----------
    busy : pair of float, optional
        (E[ℓ1], E[ℓ2]) in [0, C_i]: shades that many servers (e.g. the ``mean_busy`` of
        :func:`workbench.datacenters.solve_exact`).

    Returns
    -------
    matplotlib.figure.Figure
        The diagram.
    """
    return ModelDiagram().update(par, busy)
