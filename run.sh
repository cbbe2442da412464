#!/usr/bin/env bash
# One entry point for a fresh machine: sets up .venv, then opens, regenerates or tests.
#   bash run.sh lab [--no-browser ...]   set up, then open the workbench in JupyterLab
#   bash run.sh app [NOTEBOOK]           set up, then open a notebook as an app (Voila)
#   bash run.sh figures [--quick] [--out DIR] [--only NAME ...]
#                                        set up, then regenerate every paper's figures (CSV+PNG)
#   bash run.sh site [--quick] [--out DIR]
#                                        set up (venv + Chromium), then build the course site,
#                                        its slides and its PDF handouts (default: site/)
#   bash run.sh test [PYTEST ARGS]       set up (venv + Chromium), then run the whole test suite
#                                        on both cores (WORKBENCH_TEST_WORKERS=0: one process)
set -euo pipefail
cd "$(dirname "$0")"
VENV="${WORKBENCH_VENV:-.venv}"
PY="$VENV/bin/python"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.numba_cache}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

setup_python() {
    if [ ! -x "$PY" ]; then
        python3 -m venv "$VENV"
    fi
    # constraints.txt pins the versions the suite was last run with
    "$PY" -m pip install -q -c constraints.txt -e '.[test]'
    # numba compiles a kernel on its first call: do it once here, both cores, so the first
    # notebook opened draws at once (a no-op when this kernel code was compiled before)
    "$PY" -m workbench compile
}

setup_browser() {
    # Debian's Chromium drives the browser tests (Playwright cannot download its own here)
    if [ ! -x /usr/bin/chromium ]; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
        else
            echo "run.sh: /usr/bin/chromium missing and cannot apt-get it; browser tests will skip" >&2
        fi
    fi
}

setup_fonts() {
    # a CJK font (P5 quotes the paper in Chinese): matplotlib and the browser fall back to it
    if ! ls /usr/share/fonts/opentype/noto/NotoSansCJK* >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null
        else
            echo "run.sh: fonts-noto-cjk missing and cannot apt-get it; Chinese text shows as boxes" >&2
        fi
    fi
}

cmd="${1:-lab}"
shift || true
case "$cmd" in
    setup) setup_python; setup_browser; setup_fonts ;;
    lab) setup_python; setup_fonts; exec "$PY" -m workbench lab "$@" ;;
    app) setup_python; setup_fonts; exec "$PY" -m workbench app "$@" ;;
    figures) setup_python; exec "$PY" -m workbench reproduce all "$@" ;;
    site) setup_python; setup_browser; exec "$PY" -m workbench site "$@" ;;
    test)
        setup_python; setup_browser; setup_fonts
        # one worker per core; a test module is one unit of work (tests/conftest.py)
        workers="${WORKBENCH_TEST_WORKERS:-2}"
        xdist=()
        if [ "$workers" != 0 ]; then
            xdist=(-n "$workers" --dist loadgroup --no-loadscope-reorder)
        fi
        set +e
        "$PY" -m pytest "${xdist[@]}" "$@"
        rc=$?
        set -e
        # pytest exit 5 means no test ran: that is a failure here, never green
        if [ "$rc" = 5 ]; then echo "run.sh: pytest collected no tests" >&2; exit 1; fi
        exit "$rc"
        ;;
    *) echo "usage: bash run.sh [lab|app|figures|site|test|setup]" >&2; exit 2 ;;
esac
