"""Command line: ``python -m workbench reproduce <paper> [--quick] [--out DIR]``."""

from __future__ import annotations

import argparse
import sys

from workbench.reproduce import PAPERS, reproduce


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("reproduce", help="regenerate a paper's figures as CSV + PNG")
    rep.add_argument("paper", choices=[*PAPERS, "all"])
    rep.add_argument("--quick", action="store_true", help="fewer points and replications")
    rep.add_argument("--out", default="figures", help="output folder (default: figures)")
    rep.add_argument("--only", nargs="*", help="only these figure names")
    cl = sub.add_parser("claims", help="check a paper's published claims")
    cl.add_argument("paper", choices=list(PAPERS))
    cl.add_argument("--full", action="store_true", help="full-size simulations")
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        reproduce(args.paper, out=args.out, quick=args.quick, only=args.only)
    else:
        from workbench.claims import check_claims

        frame = check_claims(args.paper, quick=not args.full)
        cols = ["id", "value", "measured", "tolerance", "expect", "as_expected"]
        print(frame[cols].to_string(index=False))
        print(f"{int(frame['as_expected'].sum())}/{len(frame)} claims as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
