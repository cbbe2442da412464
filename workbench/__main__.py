"""Command line: regenerate figures, check claims, list the papers.

python -m workbench papers
python -m workbench reproduce <paper|all|atlas|arena> [--quick] [--out DIR] [--only NAME ...]
    [--client ADDR] [--seed S]
python -m workbench claims <paper|all> [--full] [--atlas [--points N] [--seed S]
    [--client ADDR] [--out DIR]]
python -m workbench new-paper NAME [--out DIR] [--id ID] [--title TITLE]
python -m workbench check-paper <paper id | package> [--notebook NB] [--claims CSV]
python -m workbench site [--quick] [--out DIR]
python -m workbench compile [--force]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pandas as pd

from workbench.validation import ParameterError

PROG = "python -m workbench"


class OutputFolderError(ParameterError):
    """``--out`` names a file, or a non-empty folder this command did not write."""


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def check_out(out, command: str, ours) -> Path:
    """``out`` as a folder the command may write into: absent, empty, or one it wrote before
    (``ours(folder)`` says so). A file, or a non-empty folder of something else, is refused
    before any work starts (its files would be overwritten or mixed with ours)."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise OutputFolderError(f"{command} --out {out}: a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not ours(folder):
        raise OutputFolderError(
            f"{command} --out {out}: a non-empty folder that {command} did not write; "
            "name a new or empty folder"
        )
    return folder


def _reproduced(papers):
    """A folder ``reproduce`` wrote: only its per-paper (and atlas, arena) subfolders."""
    names = {*papers, "atlas", "arena"}
    return lambda folder: all(p.is_dir() and p.name in names for p in folder.iterdir())


def _site_built(folder: Path) -> bool:
    """A folder ``site`` wrote: Sphinx's build record and the landing page."""
    return (folder / ".buildinfo").is_file() and (folder / "index.html").is_file()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _main(argv)
    except ParameterError as err:  # a registry line, an --out folder, an --only name, ...
        return _fail(str(err))


def _main(argv: list[str]) -> int:
    from workbench.registry import PAPERS  # a malformed registry file: a named error

    if argv[:1] in (["lab"], ["app"]):
        from workbench import servers

        rest = argv[1:]
        if argv[0] == "lab":
            cmd = servers.lab_command(rest)
        else:
            nb = rest.pop(0) if rest and not rest[0].startswith("-") else None
            cmd = servers.app_command(nb, rest)
        os.execv(cmd[0], cmd)
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("papers", help="list the papers, their packages and notebooks")
    rep = sub.add_parser("reproduce", help="regenerate a paper's figures as CSV + PNG")
    rep.add_argument(
        "paper",
        choices=[*PAPERS, "all", "atlas", "arena"],
        help="a paper, all, every claim atlas, or the arena",
    )
    rep.add_argument("--quick", action="store_true", help="fewer points and replications")
    rep.add_argument("--out", default="figures", help="output folder (default: figures)")
    rep.add_argument("--only", nargs="*", help="only these figure names")
    rep.add_argument("--client", help="atlas: a Dask scheduler address, tcp://host:8786")
    rep.add_argument(
        "--seed", type=int, default=0, help="the notebooks' SEED (default 0: the published figures)"
    )
    cl = sub.add_parser("claims", help="check a paper's published claims")
    cl.add_argument("paper", choices=[*PAPERS, "all"])
    cl.add_argument("--full", action="store_true", help="full-size simulations")
    cl.add_argument(
        "--atlas", action="store_true", help="each claim across the plausible space and readings"
    )
    cl.add_argument("--points", type=int, help="atlas: design points (default: the paper's)")
    cl.add_argument("--seed", type=int, default=0, help="atlas: design and simulation seed")
    cl.add_argument("--client", help="atlas: a Dask scheduler address, tcp://host:8786")
    cl.add_argument("--out", default="figures", help="atlas: output folder (default: figures)")
    new = sub.add_parser("new-paper", help="write a new paper package that keeps the contract")
    new.add_argument("name", help="the package name (a lowercase identifier)")
    new.add_argument("--out", help="a folder outside the repository (default: the repository)")
    new.add_argument("--id", help="the paper id (default: the next pN, or NAME with --out)")
    new.add_argument("--title", default="", help="the paper's title")
    chk = sub.add_parser("check-paper", help="run the paper contract on a package")
    chk.add_argument("paper", help="a registered paper id or topic, or an importable package")
    chk.add_argument("--notebook", help="its notebook (default: the registry's)")
    chk.add_argument("--claims", help="its claims table (default: the registry's)")
    site = sub.add_parser("site", help="build the course site, slides and handouts")
    site.add_argument("--quick", action="store_true", help="quick figures, claims, atlas")
    site.add_argument("--out", default="site", help="output folder (default: site)")
    comp = sub.add_parser("compile", help="compile every paper's kernels once (kept on disk)")
    comp.add_argument("--force", action="store_true", help="even if this code compiled them")
    args = parser.parse_args(argv)
    if args.command == "compile":
        from workbench.warm import compile_kernels

        timings = compile_kernels(force=args.force)
        done = ", ".join(f"{name} {s:.0f} s" for name, s in timings)
        print(f"kernels compiled: {done}" if timings else "kernels already compiled")
        return 0
    if args.command in ("new-paper", "check-paper"):
        return _paper_command(args)
    if args.command == "site":
        from workbench.site import build

        check_out(args.out, "site", _site_built)
        build(out=args.out, quick=args.quick)
        return 0
    if args.command == "papers":
        for p in PAPERS.values():
            print(f"{p.id}  {p.package:<22} {p.notebook:<36} {p.citation}")
    elif args.command == "reproduce":
        from workbench.reproduce import reproduce

        check_out(args.out, "reproduce", _reproduced(PAPERS))
        reproduce(  # checks --only before any work
            args.paper,
            out=args.out,
            quick=args.quick,
            only=args.only,
            client=args.client,
            seed=args.seed,
        )
    else:
        from workbench.claims import check_claims, readable

        ids = list(PAPERS) if args.paper == "all" else [args.paper]
        if args.atlas:
            from workbench.reproduce import write_atlas

            check_out(args.out, "claims --atlas", _reproduced(PAPERS))
            with pd.option_context("display.max_colwidth", 80, "display.width", 250):
                for pid in ids:
                    paths = write_atlas(
                        pid,
                        args.out,
                        quick=not args.full,
                        client=args.client,
                        n_points=args.points,
                        seed=args.seed,
                    )
                    print(pd.read_csv(paths[0]).to_string(index=False))
            return 0
        with pd.option_context("display.max_colwidth", None, "display.width", 250):
            for pid in ids:
                frame = check_claims(pid, quick=not args.full)
                print(f"\n{pid}: {PAPERS[pid].citation}")
                print(readable(frame).to_string(index=False))
                print(f"{int(frame['as_expected'].sum())}/{len(frame)} claims as expected")
    return 0


def _paper_command(args) -> int:
    if args.command == "check-paper":
        from workbench.paper import check_paper

        try:
            report = check_paper(args.paper, notebook=args.notebook, claims_csv=args.claims)
        except ModuleNotFoundError as err:
            return _fail(str(err))
        print(report)
        return 0 if report.ok else 1
    from workbench.scaffold import install_command, new_paper

    written = new_paper(args.name, out=args.out, paper_id=args.id, title=args.title)
    for role, path in written.items():
        print(f"{role:<9} {path}")
    pid = json.loads(written["registry"].read_text())["id"]
    if args.out is None:
        print(f"\nregistered by {written['registry']}; next: {PROG} check-paper {pid}")
    else:
        print(
            f"\nnext, register it (its entry point in workbench.papers, {written['project']}):"
            f"\n    {install_command(args.out)}\nthen: {PROG} check-paper {pid}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
