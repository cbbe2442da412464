"""A paper package registered through an entry point, as pip records it, without pip.

``importlib.metadata`` finds a ``<name>-<version>.dist-info/`` folder (``METADATA`` and
``entry_points.txt``) on ``sys.path`` exactly as it finds an installed distribution's, so a
temporary folder on ``sys.path`` (or ``PYTHONPATH``) holding the package and that record is
an installed plugin to the registry, at no pip's cost. ``tests/test_scaffold.py`` installs a
scaffolded paper with pip itself, once.
"""

from __future__ import annotations

import json
from pathlib import Path

#: the registry's entry-point group (workbench.registry.ENTRY_POINTS)
GROUP = "workbench.papers"


def fake_install(site, package: str, line, *, entry: str | None = None) -> Path:
    """Write ``site/<package>/`` (an ``__init__.py``, and its ``paper.json`` unless ``line``
    is None: a dict as JSON, a string as it is) and ``site/<package>-0.1.dist-info/``
    declaring ``entry`` (default ``"<package> = <package>"``) in the entry-point group.
    Returns the package's folder."""
    site = Path(site)
    folder = site / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    if line is not None:
        text = line if isinstance(line, str) else json.dumps(line)
        (folder / "paper.json").write_text(text, encoding="utf-8", errors="surrogateescape")
    record = site / f"{package}-0.1.dist-info"
    record.mkdir()
    (record / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    declared = entry if entry is not None else f"{package} = {package}"
    (record / "entry_points.txt").write_text(f"[{GROUP}]\n{declared}\n")
    return folder
