"""One progress bar for every long loop: replications, precision loops and sweeps.

``tqdm.auto`` draws an ipywidgets bar in a notebook and a text bar elsewhere. Its
``leave=False`` ends a notebook bar by *closing* the widget: a front end that renders the
cell's output after that moment (Voila renders a cell once it has run) finds no model and
prints "Error displaying widget: model not found". Here a finished notebook bar is hidden
instead (``layout.display = "none"``); the model stays, so every renderer finds it. A loop
that stops early because it is done (a precision target reached) ends full, not red.
"""

from __future__ import annotations

import sys

__all__: list[str] = []  # used by the replication engine, the precision loop and sweeps


def open_bar(total: int, desc: str, enabled: bool = True, keep: bool = False, **options):
    """A ``tqdm.auto`` bar over ``total`` steps, or None when not ``enabled``.

    ``keep`` leaves the finished bar on screen; otherwise :func:`finish_bar` removes it
    (a text bar is erased, a notebook bar hidden).
    """
    if not enabled:
        return None
    from tqdm.auto import tqdm

    notebook = any(cls.__module__ == "tqdm.notebook" for cls in tqdm.__mro__)
    return tqdm(total=total, desc=desc, leave=keep or notebook, **options)


def finish_bar(bar, keep: bool = False) -> None:
    """Close ``bar`` (None is ignored): full when the loop ended normally, tqdm's red bar
    when an exception is on its way (call it in the loop's ``finally``), then hidden unless
    ``keep`` (a failed notebook bar stays, so the reader sees where it stopped)."""
    if bar is None or getattr(bar, "disable", False):
        return
    failed = sys.exc_info()[0] is not None
    if not failed and bar.total is not None and bar.n < bar.total:
        bar.total = bar.n  # stopped because done: a full bar, not tqdm's red "failed" one
        bar.refresh()
    bar.close()
    container = getattr(bar, "container", None)
    if container is not None and not keep and not failed:
        container.layout.display = "none"
