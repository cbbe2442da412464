"""The package under check: where its files are, its parts imported once, on demand."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

from workbench.registry import ARENA, PAPERS, ROOT
from workbench.validation import refusal

#: the modules of the skeleton (workbench.registry's docstring)
PARTS = (
    "params",
    "model",
    "kernels",
    "simulation",
    "figures",
    "views",
    "claims",
    "exercises",
    "examples",
)


DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _path_or_none(value, name: str):
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise refusal("Target", name, "a path or None", value)
    return None if value is None else Path(value).resolve()


class Target:
    """One paper package: its import name, folder, paper id, notebook and claims table."""

    def __init__(self, package: str, paper_id: str, notebook, claims_csv, registered: bool):
        if not (isinstance(package, str) and DOTTED.fullmatch(package)):
            raise refusal("Target", "package", "an import name (workbench.fog, mypaper)", package)
        if not (isinstance(paper_id, str) and paper_id.strip()):
            raise refusal("Target", "paper_id", "a non-empty string", paper_id)
        self.package = package
        self.paper_id = paper_id
        self.notebook = _path_or_none(notebook, "notebook")
        self.claims_csv = _path_or_none(claims_csv, "claims_csv")
        self.registered = bool(registered)
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError) as err:  # a parent that is no package
            raise ModuleNotFoundError(f"check_paper: {package!r} does not import: {err}") from err
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"check_paper: {package!r} is not an importable package")
        self.dir = Path(list(spec.submodule_search_locations)[0]).resolve()
        self._parts: dict = {}
        self.errors: dict = {}

    def files(self) -> list[Path]:
        return sorted(self.dir.glob("*.py"))

    def rel(self, path: Path) -> str:
        for base in (ROOT, self.dir.parent):
            if Path(path).is_relative_to(base):
                return str(Path(path).relative_to(base))
        return str(path)

    def module_name(self, path: Path) -> str:
        return self.package if path.stem == "__init__" else f"{self.package}.{path.stem}"

    def part(self, name: str) -> ModuleType | None:
        """``<package>.<name>`` imported, or None (the error kept in ``errors[name]``)."""
        if name not in self._parts:
            try:
                self._parts[name] = importlib.import_module(self.module_name(Path(name)))
            except Exception as err:
                self._parts[name] = None
                self.errors[name] = f"{type(err).__name__}: {err}"
        return self._parts[name]

    def declared(self, part: str, name: str):
        """``<package>.<part>.<name>``, or None when the module or the name is missing."""
        return getattr(self.part(part), name, None)

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(self.package)

    def modules(self):
        """(path, module) of every module of the package that imports."""
        for path in self.files():
            mod = self.module if path.stem == "__init__" else self.part(path.stem)
            if mod is not None:
                yield path, mod

    def python_env(self) -> dict:
        """The environment of a child interpreter that imports what this process imports."""
        env = dict(os.environ)
        paths = [p for p in sys.path if p] + [str(self.dir.parent)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        return env


def resolve(module_or_name, *, notebook=None, claims_csv=None, paper_id=None) -> Target:
    """A :class:`Target` from a module, an import name or a registered paper id (or
    ``"arena"``: the arena keeps the contract too, though it is in no loop over PAPERS)."""
    known = {**PAPERS, ARENA.id: ARENA}
    if isinstance(module_or_name, ModuleType):
        package = module_or_name.__name__
    elif isinstance(module_or_name, str) and module_or_name in known:
        package = known[module_or_name].package
    elif isinstance(module_or_name, str) and module_or_name in {p.topic for p in PAPERS.values()}:
        package = next(p.package for p in PAPERS.values() if p.topic == module_or_name)
    elif isinstance(module_or_name, str):
        package = module_or_name
    else:
        what = f"a module, an import name or a paper id ({', '.join(known)})"
        raise refusal("check_paper", "module_or_name", what, module_or_name)
    if paper_id is not None and not isinstance(paper_id, str):
        raise refusal("check_paper", "paper_id", "a string or None", paper_id)
    registered = next((p for p in known.values() if p.package == package), None)
    if registered is not None:
        paper_id = paper_id or registered.id
        notebook = notebook or registered.notebook_path
        claims_csv = claims_csv or registered.claims_path
    paper_id = paper_id or package.rsplit(".", 1)[-1]
    return Target(package, paper_id, notebook, claims_csv, registered is not None)
