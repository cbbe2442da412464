"""The package under check: where its files are, its parts imported once, on demand."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from workbench.registry import PAPERS, ROOT

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


class Target:
    """One paper package: its import name, folder, paper id, notebook and claims table."""

    def __init__(self, package: str, paper_id: str, notebook, claims_csv, registered: bool):
        self.package = package
        self.paper_id = paper_id
        self.notebook = None if notebook is None else Path(notebook).resolve()
        self.claims_csv = None if claims_csv is None else Path(claims_csv).resolve()
        self.registered = registered
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"check_paper: {package!r} is not an importable package")
        self.dir = Path(list(spec.submodule_search_locations)[0]).resolve()
        self._parts: dict = {}
        self.errors: dict = {}

    def files(self) -> list[Path]:
        return sorted(self.dir.glob("*.py"))

    def rel(self, path: Path) -> str:
        for base in (ROOT, self.dir.parent):
            try:
                return str(Path(path).relative_to(base))
            except ValueError:
                continue
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

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(self.package)

    def modules(self):
        """(path, module) of every module of the package that imports."""
        for path in self.files():
            stem = "__init__" if path.stem == "__init__" else path.stem
            mod = self.module if stem == "__init__" else self.part(stem)
            if mod is not None:
                yield path, mod

    def python_env(self) -> dict:
        """The environment of a child interpreter that imports what this process imports."""
        env = dict(os.environ)
        paths = [p for p in sys.path if p] + [str(self.dir.parent)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        return env


def resolve(module_or_name, *, notebook=None, claims_csv=None, paper_id=None) -> Target:
    """A :class:`Target` from a module, an import name or a registered paper id."""
    if isinstance(module_or_name, ModuleType):
        package = module_or_name.__name__
    elif isinstance(module_or_name, str) and module_or_name in PAPERS:
        package = PAPERS[module_or_name].package
    elif isinstance(module_or_name, str):
        package = module_or_name
    else:
        raise TypeError(
            f"check_paper: a module, an import name or a paper id, not {module_or_name!r}"
        )
    registered = next((p for p in PAPERS.values() if p.package == package), None)
    if registered is not None:
        paper_id = paper_id or registered.id
        notebook = notebook or registered.notebook_path
        claims_csv = claims_csv or registered.claims_path
    paper_id = paper_id or package.rsplit(".", 1)[-1]
    return Target(package, paper_id, notebook, claims_csv, registered is not None)
