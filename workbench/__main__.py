"""Command line: regenerate figures, check claims, list the papers.

python -m workbench papers
python -m workbench reproduce <paper|all> [--quick] [--out DIR] [--only NAME ...]
python -m workbench claims <paper|all> [--full]
"""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

from workbench.registry import PAPERS


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["lab"], ["app"]):
        from workbench import servers

        rest = argv[1:]
        if argv[0] == "lab":
            cmd = servers.lab_command(rest)
        else:
            nb = rest.pop(0) if rest and not rest[0].startswith("-") else None
            cmd = servers.app_command(nb, rest)
        os.execv(cmd[0], cmd)
    parser = argparse.ArgumentParser(prog="python -m workbench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("papers", help="list the papers, their packages and notebooks")
    rep = sub.add_parser("reproduce", help="regenerate a paper's figures as CSV + PNG")
    rep.add_argument("paper", choices=[*PAPERS, "all"])
    rep.add_argument("--quick", action="store_true", help="fewer points and replications")
    rep.add_argument("--out", default="figures", help="output folder (default: figures)")
    rep.add_argument("--only", nargs="*", help="only these figure names")
    cl = sub.add_parser("claims", help="check a paper's published claims")
    cl.add_argument("paper", choices=[*PAPERS, "all"])
    cl.add_argument("--full", action="store_true", help="full-size simulations")
    args = parser.parse_args(argv)
    if args.command == "papers":
        for p in PAPERS.values():
            print(f"{p.id}  workbench.{p.topic:<12} {p.notebook:<36} {p.citation}")
    elif args.command == "reproduce":
        from workbench.reproduce import reproduce

        reproduce(args.paper, out=args.out, quick=args.quick, only=args.only)
    else:
        from workbench.claims import check_claims, readable

        ids = list(PAPERS) if args.paper == "all" else [args.paper]
        with pd.option_context("display.max_colwidth", None, "display.width", 250):
            for pid in ids:
                frame = check_claims(pid, quick=not args.full)
                print(f"\n{pid}: {PAPERS[pid].citation}")
                print(readable(frame).to_string(index=False))
                print(f"{int(frame['as_expected'].sum())}/{len(frame)} claims as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
