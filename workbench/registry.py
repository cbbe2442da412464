"""The papers of the workbench, for the CLI, the claims checker, the tests and the arena.

Every paper is a package ``workbench.<topic>`` with the same skeleton::

    __init__.py     the model in words (what the paper states, what was recovered, the
                    workbench's choices) and the public names; never imports ipywidgets
    params.py       PARAMS: the parameter table (workbench.params.Params)
    model.py        the analytic model
    kernels.py      the paper's own @njit(cache=True) kernels (generic ones: workbench.kernels)
    simulation.py   simulate(...) -> workbench.results.SimulationResult
    figures.py      FIGURES: name -> workbench.plots.FigureSpec(frame(quick), plot(frame))
    views.py        the notebook's slider views (the only module that imports ipywidgets);
                    VIEWS: name -> callable returning a widget
    claims.py       CLAIMS: claim id (as in data/claims/<paper>.csv) -> measure(quick) -> float

    exercises.py    EXERCISES: the notebook's classroom questions (workbench.exercises)
    examples.py     EXAMPLES: a valid value for every argument no table row gives (fuzzing)

Importing a model, its figures or its claims never imports ipywidgets. The whole contract is
:func:`workbench.paper.check_paper` (``python -m workbench check-paper <package>``);
``python -m workbench new-paper NAME`` writes a package that passes it.

A paper joins the registry in one of three ways:

- the five built-in papers below;
- a package ``workbench/<topic>/`` with a ``paper.json`` beside its ``__init__.py`` (one
  object with the ``Paper`` fields; ``notebook`` and ``claims_csv`` relative to the
  repository): found by discovery, no line to add here (``new-paper NAME`` writes it);
- a package outside ``workbench/`` names itself in the entry-point group
  ``workbench.papers`` of its distribution (``[project.entry-points."workbench.papers"]
  queues = "queues"``) and keeps its ``paper.json`` beside its ``__init__.py``; ``notebook``
  and ``claims_csv`` are relative to the package's parent folder (:func:`installed`).
  ``new-paper NAME --out DIR`` writes such a distribution; ``pip install -e DIR`` registers
  it.

The ``WORKBENCH_PAPERS`` environment variable, which named JSON files of paper lines before
entry points, is retired: set to anything but blanks, it is a :class:`RegistryError` naming
the replacement (an error, not a warning: the papers it named would otherwise be missing
from every command and from the suite's tests, which loop over the registry, with nothing
failing).

Every line is checked when it registers (:class:`RegistryError` names the file, the field
and the value): ids are unique, ``order`` is an int, the text fields are strings.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
from dataclasses import dataclass, fields, replace
from importlib import metadata
from pathlib import Path

from workbench.validation import ParameterError, check_choice, describe, refusal

__all__ = [
    "Paper",
    "PAPERS",
    "paper",
    "course",
    "papers_from_json",
    "discover",
    "installed",
    "ARENA",
    "RegistryError",
]

ROOT = Path(__file__).resolve().parent.parent
#: a paper id: a letter, then letters, digits or underscores (it names files and notebooks)
PAPER_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class RegistryError(ParameterError):
    """A paper line that cannot register: a malformed JSON file, a field of the wrong type,
    a taken id. The message names the file (or the line), the field and the value."""


@dataclass(frozen=True)
class Paper:
    """One paper: where its code, notebook and claims are."""

    id: str
    topic: str
    title: str
    citation: str
    notebook: str
    order: int = 0
    teaches: str = ""
    #: import name when the package is not ``workbench.<topic>``
    import_name: str = ""
    #: the claims table when it is not ``data/claims/<id>.csv``
    claims_csv: str = ""

    def __post_init__(self):
        def refuse(name, what):
            return refusal("Paper", name, what, getattr(self, name), RegistryError, "field")

        for name in ("id", "topic", "title", "citation", "notebook"):
            value = getattr(self, name)
            if not (isinstance(value, str) and value.strip()):
                raise refuse(name, "a non-empty string")
        for name in ("teaches", "import_name", "claims_csv"):
            if not isinstance(getattr(self, name), str):
                raise refuse(name, "a string")
        if not PAPER_ID.fullmatch(self.id):
            raise refuse("id", "a letter followed by letters, digits or underscores (p6, queues)")
        if isinstance(self.order, bool) or not isinstance(self.order, int):
            raise refuse("order", "an int (its place in the course)")

    @property
    def package(self) -> str:
        return self.import_name or f"workbench.{self.topic}"

    @property
    def notebook_path(self) -> Path:
        return ROOT / self.notebook  # an absolute notebook path stays as it is

    @property
    def claims_path(self) -> Path:
        return ROOT / (self.claims_csv or f"data/claims/{self.id}.csv")

    def part(self, name: str):
        """Import one part of the skeleton (``"model"``, ``"figures"``, ``"views"``, ...)."""
        return importlib.import_module(f"{self.package}.{name}")

    @property
    def module(self):
        return importlib.import_module(self.package)

    @property
    def params(self):
        return self.part("params").PARAMS

    @property
    def figures(self) -> dict:
        return self.part("figures").FIGURES

    @property
    def claims(self) -> dict:
        return self.part("claims").CLAIMS

    @property
    def views(self) -> dict:
        return self.part("views").VIEWS

    @property
    def simulate(self):
        return self.part("simulation").simulate


PAPERS: dict[str, Paper] = {
    p.id: p
    for p in (
        Paper(
            "p1",
            "fog",
            "On reducing IoT service delay via fog offloading",
            "Yousefpour, Ishigaki, Gour, Jue, IEEE Internet of Things Journal 5(1), 2018 "
            "(arXiv 1804.07376)",
            "notebooks/p1_fog.ipynb",
            3,
            "Networks of queues: a fog node as a two-class Markov chain, threshold offloading "
            "between neighbours, a fixed point for the flows, Pollaczek-Khinchine at the "
            "cloud, and where the analytic model and the simulator part ways.",
        ),
        Paper(
            "p2",
            "proactive",
            "Proactive edge computing in fog networks with latency and reliability guarantees",
            "Elbamby, Bennis, Saad, Latva-aho, Hong, EURASIP J. Wireless Communications and "
            "Networking 2018:209 (arXiv 1704.06749)",
            "notebooks/p2_proactive.ipynb",
            5,
            "Putting building blocks together: SINR uplinks with interference, spectral "
            "clustering of users, popularity caching, deferred-acceptance matching with hedged "
            "requests, and tail latency (90th/99th percentiles) rather than means.",
        ),
        Paper(
            "p3",
            "datacenters",
            "Analysis of an offloading scheme for data centers in the framework of fog computing",
            "Fricker, Guillemin, Robert, Thompson, ACM TOMPECS 1(4), 2016 (arXiv 1507.05746)",
            "notebooks/p3_datacenters.ipynb",
            2,
            "Markov chains of loss networks, pooling and cooperation between data centers, "
            "scaling limits (N → ∞) and how slowly a finite system approaches them.",
        ),
        Paper(
            "p4",
            "redundancy",
            "Redundancy management for fast service (rates) in edge computing systems",
            "Peng, Soljanin, arXiv 2303.00486",
            "notebooks/p4_redundancy.ipynb",
            1,
            "Loss systems and Erlang-B, insensitivity to the service law, why a loss system "
            "is stable at every load, replication vs parallelism, heavy tails.",
        ),
        Paper(
            "p5",
            "hierarchy",
            "An advanced decision model enabling two-way initiative offloading in edge computing",
            "Yin, Chen, Hu, Future Generation Computer Systems 90 (2019) 39-48",
            "notebooks/p5_hierarchy.ipynb",
            4,
            "Queues in a tree of servers: when offloading up pays (transfer vs queueing), "
            "random early detection as a decision filter, M/G/1 at each server, Little's law "
            "per station, and what the paper's claims depend on.",
        ),
    )
}


def _entry(entry, where: str, base: Path, known: set) -> Paper:
    if not isinstance(entry, dict):
        raise RegistryError(f"{where}: a paper line is a JSON object, got {describe(entry)}")
    entry = dict(entry)
    if "package" in entry:
        entry["import_name"] = entry.pop("package")
    unknown = sorted(set(entry) - known)
    if unknown:
        raise RegistryError(f"{where}: unknown Paper fields {unknown} (known: {sorted(known)})")
    for key in ("notebook", "claims_csv"):  # relative to the repository: kept as written
        if isinstance(entry.get(key), str) and entry[key] and base.resolve() != ROOT:
            entry[key] = str(base / entry[key])
    try:
        return Paper(**entry)
    except (TypeError, RegistryError) as err:  # a required field missing, a field refused
        raise RegistryError(f"{where}: {err}") from None


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise RegistryError(f"{path}: cannot be read ({type(err).__name__}: {err})") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise RegistryError(f"{path}: not valid JSON ({err})") from None


def papers_from_json(path, base=None) -> list[Paper]:
    """The ``Paper`` lines declared in a JSON file (see the module docstring): a list of
    objects, or one object. ``notebook`` and ``claims_csv`` are relative to ``base`` (default:
    the file's folder). Raises :class:`RegistryError` naming the file and what is wrong."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise refusal("papers_from_json", "path", "a path to a JSON file", path, RegistryError)
    if base is not None and not isinstance(base, (str, os.PathLike)):
        raise refusal("papers_from_json", "base", "a folder path or None", base, RegistryError)
    path = Path(path).resolve()
    base = path.parent if base is None else Path(base)
    data = _read_json(path)
    entries = [data] if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise RegistryError(f"{path}: a list of paper objects (or one), got {describe(data)}")
    known = {f.name for f in fields(Paper)}
    return [_entry(e, f"{path} (paper {i + 1})", base, known) for i, e in enumerate(entries)]


def discover(root=ROOT) -> list[Paper]:
    """The papers of ``<root>/workbench/<topic>/paper.json`` (``new-paper`` writes it): the
    topic is the folder's name, paths are relative to ``root``."""
    if not isinstance(root, (str, os.PathLike)):
        raise refusal("discover", "root", "the repository's folder", root, RegistryError)
    out = []
    for path in sorted(Path(root, "workbench").glob("*/paper.json")):
        for p in papers_from_json(path, base=root):
            if p.topic != path.parent.name or p.import_name:
                raise RegistryError(
                    f"{path}: topic is {p.topic!r}, its folder {path.parent.name!r}; a package "
                    f"outside workbench/ registers through an entry point ({ENTRY_POINTS})"
                )
            out.append(p)
    return out


#: the entry-point group an installed paper package names itself in
ENTRY_POINTS = "workbench.papers"


def installed(group: str = ENTRY_POINTS) -> list[Paper]:
    """The papers of installed distributions: each entry point of ``group`` names a package
    (``queues = "queues"``) whose ``paper.json`` beside its ``__init__.py`` holds its
    ``Paper`` line (the package is located, not imported); ``notebook`` and ``claims_csv``
    are relative to the package's parent folder, and so is the default claims table
    (``data/claims/<id>.csv``, as in the repository)."""
    if not (isinstance(group, str) and group.strip()):
        raise refusal("installed", "group", "an entry-point group name", group, RegistryError)
    out = []
    for entry in sorted(metadata.entry_points(group=group), key=lambda e: (e.name, e.value)):
        where = f"entry point {entry.name} = {entry.value!r} ({group})"
        try:
            spec = importlib.util.find_spec(entry.module)
        except (ImportError, ValueError) as err:
            raise RegistryError(f"{where}: the package does not import ({err})") from None
        if spec is None or not spec.submodule_search_locations:
            raise RegistryError(f"{where}: {entry.module!r} is not an importable package")
        folder = Path(list(spec.submodule_search_locations)[0])
        if not (folder / "paper.json").is_file():
            raise RegistryError(f"{where}: no paper.json beside {entry.module}'s __init__.py")
        for p in papers_from_json(folder / "paper.json", base=folder.parent):
            claims = p.claims_csv or str(folder.parent / "data" / "claims" / f"{p.id}.csv")
            out.append(replace(p, import_name=p.import_name or entry.module, claims_csv=claims))
    return out


def _register(papers, where: str) -> None:
    for p in papers:
        if p.id in PAPERS or p.id == "arena":
            taken = "the arena" if p.id == "arena" else PAPERS[p.id].package
            raise RegistryError(f"{where}: paper id {p.id!r} is taken ({taken})")
        PAPERS[p.id] = p


#: the environment variable that named JSON files of paper lines before entry points
RETIRED_VARIABLE = "WORKBENCH_PAPERS"


def _refuse_retired_variable() -> None:
    """A :class:`RegistryError` when :data:`RETIRED_VARIABLE` is set (to anything but
    blanks, which named no file before either), saying what replaces it."""
    value = os.environ.get(RETIRED_VARIABLE, "")
    if value.strip():
        raise RegistryError(
            f"{RETIRED_VARIABLE}={value} is no longer read: a paper outside workbench/ "
            f"registers through the entry-point group {ENTRY_POINTS} of its distribution. "
            "Install its folder into this environment (`python -m pip install -e DIR`; "
            "`new-paper NAME --out DIR` writes DIR/pyproject.toml with the entry point and "
            f"NAME/paper.json with the paper's line), then unset {RETIRED_VARIABLE}."
        )


_refuse_retired_variable()
_register(discover(), "workbench/*/paper.json")
_register(installed(), f"entry points ({ENTRY_POINTS})")


#: The arena (workbench.arena) has the paper skeleton but is no paper: it is not in PAPERS
#: (not in the course, its claims are the workbench's own); ``paper("arena")`` finds it, and
#: the CLI reproduces its figures by this entry.
ARENA = Paper(
    "arena",
    "arena",
    "The arena: the papers' mechanisms, the classic baselines and your own policy on one engine",
    "workbench (no paper)",
    "notebooks/arena.ipynb",
    99,
    "Comparing mechanisms on one workload: the winner map over load, link delay and task-size "
    "variability, delay against servers, copies and energy.",
)


#: notebooks beside an entry's own, and the entry they belong to (the arena's learning env):
#: executed with the others, not course pages (no slider view, claims or atlas of their own)
COMPANION_NOTEBOOKS = {"notebooks/arena_learning.ipynb": ARENA.id}


def is_companion(path) -> bool:
    """Whether a notebook file is one of :data:`COMPANION_NOTEBOOKS` (by file name)."""
    return Path(path).name in {Path(p).name for p in COMPANION_NOTEBOOKS}


def course() -> list[Paper]:
    """The papers in teaching order (the landing notebook lists them so)."""
    return sorted(PAPERS.values(), key=lambda p: (p.order, p.id))


def paper(paper_id: str) -> Paper:
    """The registered paper ``paper_id`` (``"p3"``, ``"p4"``, ...), or ``"arena"``: the arena
    has claims, exercises and a notebook like a paper, but is in no loop over ``PAPERS``."""
    known = {**PAPERS, ARENA.id: ARENA}
    return known[check_choice(paper_id, "paper", "paper", tuple(known))]
