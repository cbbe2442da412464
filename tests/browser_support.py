"""Machinery for the browser tests: servers, a headless Chromium, and the widget checks.

Everything browser-specific lives here so that ``test_browser.py`` stays a list of thin tests.

- JupyterLab and Voila run as real subprocesses, each in its own process group, on free
  ports, serving a *temporary copy* of the notebooks folder (JupyterLab autosaves), with
  their logs captured to files whose tail is attached to every failure message.
- Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright's sync API (Playwright
  cannot download its own browsers here).
- A paper's interactive view is found by the classes ``workbench.widgets`` puts on it:
  ``.wb-interactive`` (the VBox), ``.widget-slider .noUi-handle`` (a slider), and
  ``.wb-figure img`` (the matplotlib figure; ``.widget-output img`` as a fall-back).

Environment knobs: ``WB_NOTEBOOKS_DIR`` (default ``<repo>/notebooks``), ``WB_ARTIFACTS_DIR``
(default ``<repo>/tests/_artifacts``), ``WB_CHROMIUM`` (default ``/usr/bin/chromium``),
``CI`` (when set, a missing Chromium or Playwright fails instead of skipping).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workbench import servers
from workbench.registry import is_companion

ANSI = re.compile(r"\x1b\[[0-9;]*m")
REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
CHROMIUM = Path(os.environ.get("WB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# the view the notebooks build with workbench.widgets.interactive_figure
VIEW = ".wb-interactive"
HANDLE = ".widget-slider .noUi-handle"
FIGURE_IMG = ".wb-figure img, .widget-output img"  # first match wins: .wb-figure is preferred
# Python errors as rendered by JupyterLab / Voila output areas
STDERR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
ERROR_MARKERS = (
    "Traceback (most recent call last)",
    "There was an error when executing cell",  # Voila without --show_tracebacks
    "Error displaying widget",  # ipywidgets front end could not render a model
)

SERVER_START_TIMEOUT = 90  # s, until the server answers HTTP
LAB_APP_TIMEOUT = 90_000  # ms, until window.jupyterapp and the notebook panel are there
LAB_VIEW_TIMEOUT = 300_000  # ms, run-all until the slider and figure are rendered (P2: 3 min busy)
# ms: Voila executes the whole notebook before widgets show (P2 and P5 measure their claims
# and atlas first: 1–3 min on a busy machine)
VOILA_VIEW_TIMEOUT = 300_000
REDRAW_TIMEOUT = 90_000  # ms, from the key press until the figure's src changes
SAVE_TIMEOUT_MS = 60_000  # ms for JupyterLab's save command to answer
ARROW_PRESSES = 3
GRACE_MS = 20_000  # after execution has ended, how long a view may still take to render


# --------------------------------------------------------------------------- locations


def notebooks_dir() -> Path:
    """The folder of paper notebooks under test (``WB_NOTEBOOKS_DIR`` overrides)."""
    return Path(os.environ.get("WB_NOTEBOOKS_DIR", REPO / "notebooks")).resolve()


def notebook_paths() -> list[Path]:
    """Every ``*.ipynb`` directly in :func:`notebooks_dir`, sorted by name, but the companion
    notebooks (the arena's learning notebook trains an agent behind a progress bar and has no
    slider view to drive; ``tests/test_notebooks.py`` executes it)."""
    return sorted(p for p in notebooks_dir().glob("*.ipynb") if not is_companion(p))


def artifacts_dir() -> Path:
    """Where screenshots go (``WB_ARTIFACTS_DIR`` overrides ``tests/_artifacts``)."""
    path = Path(os.environ.get("WB_ARTIFACTS_DIR", REPO / "tests" / "_artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_timings(app: str, notebook: str, timings: dict[str, float]) -> None:
    """Keep each passing check's timings (seconds since page open) in timings.json."""
    path = artifacts_dir() / "timings.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.setdefault(app, {})[notebook] = timings
    path.write_text(json.dumps(data, indent=1) + "\n")


def copy_notebooks(src: Path, dst: Path) -> Path:
    """Copy the notebooks folder to ``dst`` (servers write checkpoints and autosaves)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return dst


# --------------------------------------------------------------------------- skip / fail


def require_browser() -> None:
    """Skip (or, under CI, fail) with a precise reason when the browser stack is missing."""
    in_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    problems = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as err:
        problems.append(
            f"the 'playwright' Python package is not importable ({err}); "
            "install the test extras: pip install -e '.[test]'"
        )
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        problems.append(
            f"no Chromium executable at {CHROMIUM} (Playwright cannot download browsers "
            "here; install Debian's package: apt-get install chromium, or run "
            "'bash run.sh setup')"
        )
    if problems:
        msg = "browser tests need a headless Chromium: " + "; ".join(problems)
        if in_ci:
            pytest.fail(f"{msg} [CI is set, so this is a failure, not a skip]", pytrace=False)
        pytest.skip(msg)


# --------------------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(home: Path, runtime: Path) -> dict[str, str]:
    """Environment for the servers and the kernels they start.

    MPLBACKEND is removed (an inherited ``agg`` suppresses inline figures), the numba cache
    is kept, JupyterLab's user settings and workspaces point into ``home`` so that no
    personal state leaks in and none is written out, and kernel connection files (and, with
    the ipc transport, the kernels' sockets) go to the short path ``runtime``.
    """
    env = dict(os.environ)
    env["JUPYTER_RUNTIME_DIR"] = str(runtime)
    env.pop("MPLBACKEND", None)
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba_cache"))
    env["PYTHONUNBUFFERED"] = "1"
    env["WORKBENCH_RESULTS_CACHE"] = "1"  # as a user's kernels: the headless run's results
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    settings = home / "lab-settings"
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(home / "lab-workspaces")
    _write_lab_settings(settings)
    return env


def _write_lab_settings(settings: Path) -> None:
    overrides = {
        # render every cell (virtual windowing would leave off-screen widgets out of the DOM)
        "@jupyterlab/notebook-extension/tracker": {
            "windowingMode": "none",
            "autoStartDefaultKernel": True,
        },
        # no news / update toasts over the screenshots, and no network calls
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        # autosave on, every 10 s: the Lab test waits for one and checks the file is unchanged
        "@jupyterlab/docmanager-extension/plugin": {"autosave": True, "autosaveInterval": 10},
    }
    for plugin, values in overrides.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@dataclass
class Server:
    """A server subprocess in its own process group, with its log in a file."""

    name: str
    proc: subprocess.Popen
    url: str
    log_path: Path
    children: dict[int, str] = field(default_factory=dict)  # pid -> start time

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError as err:
            return f"<no log: {err}>"
        tail = "\n".join(ANSI.sub("", text).splitlines()[-lines:])
        return f"--- last {lines} lines of the {self.name} log ({self.log_path}) ---\n{tail}"

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def log_since(self, offset: int) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(offset)
                return fh.read().decode(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kernels(self) -> list[int]:
        """Live kernel processes this server started (zombies excluded)."""
        found = []
        for pid in _descendants(self.proc.pid):
            fields = _stat_fields(pid)
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if fields and fields[0] != "Z" and b"ipykernel" in cmdline:
                found.append(pid)
        return found

    def remember_children(self) -> None:
        """Record the server's descendants (kernels run in their own sessions, so killpg on
        the server's group would miss them)."""
        self.children.update(_descendants(self.proc.pid))

    def stop(self) -> None:
        self.remember_children()
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)  # servers shut their kernels down
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        for pid, started in self.children.items():  # only processes this server started:
            if _start_time(pid) == started:  # the same process, not a reused pid
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (field 3 onwards)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _start_time(pid: int) -> str | None:
    fields = _stat_fields(pid)
    return fields[19] if fields else None  # field 22: start time since boot


def _descendants(pid: int) -> dict[int, str]:
    """Every live descendant of ``pid``, with its start time."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))):
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found and (started := _start_time(child)):
                found[child] = started
                todo.append(child)
    return found


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def run_server(
    name: str,
    cmd: list[str],
    *,
    cwd: Path,
    home: Path,
    log_name: str,
    url: str,
    ready: str,
) -> Iterator[Server]:
    """Start ``cmd``, wait until ``url + ready`` answers 200, yield, then stop it."""
    # unix socket paths are limited to ~107 bytes: keep the kernels' runtime dir short
    runtime = Path(tempfile.mkdtemp(prefix="wb-rt-", dir="/tmp"))
    env = server_env(home, runtime)
    log_path = home / log_name
    log = open(log_path, "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = Server(name, proc, url, log_path)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while not _http_ok(url + ready):
            if not server.alive():
                pytest.fail(
                    f"{name} exited with code {proc.returncode} before answering "
                    f"{url + ready}\ncommand: {' '.join(cmd)}\n{server.log_tail()}",
                    pytrace=False,
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{name} did not answer {url + ready} within {SERVER_START_TIMEOUT} s\n"
                    f"command: {' '.join(cmd)}\n{server.log_tail()}",
                    pytrace=False,
                )
            time.sleep(0.5)
        yield server
    finally:
        server.stop()
        log.close()
        shutil.rmtree(runtime, ignore_errors=True)


# Kernels talk over unix sockets instead of TCP ports, which the client picks before the
# kernel binds them: no port races with the browser, the servers or other runs on the box.
KERNEL_OPTIONS = ["--KernelManager.transport=ipc"]


def lab_server(root: Path, home: Path) -> contextlib.AbstractContextManager[Server]:
    """JupyterLab as ``python -m workbench lab`` starts it (its options), on ``root``."""
    port = free_port()
    cmd = [
        str(VENV_BIN / "jupyter"),
        "lab",
        "--allow-root",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.token=",
        "--ServerApp.password=",
        "--LabApp.expose_app_in_browser=True",
        f"--ServerApp.root_dir={root}",
        *servers.LAB_OPTIONS,
        *KERNEL_OPTIONS,
    ]
    return run_server(
        "JupyterLab",
        cmd,
        cwd=root,
        home=home,
        log_name="jupyterlab.log",
        url=f"http://127.0.0.1:{port}",
        ready="/api/status",
    )


def voila_server(
    root: Path, home: Path, extra: tuple[str, ...] = ()
) -> contextlib.AbstractContextManager[Server]:
    """Voila as ``python -m workbench app`` starts it (its options, then ``extra``)."""
    port = free_port()
    cmd = [
        str(VENV_BIN / "voila"),
        str(root),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        "--show_tracebacks=True",
        # the workbench's options, each replaced by one of ``extra`` with the same name
        *[
            o
            for o in servers.VOILA_OPTIONS
            if o.split("=")[0] not in {e.split("=")[0] for e in extra}
        ],
        *extra,
        *KERNEL_OPTIONS,
    ]
    return run_server(
        "Voila",
        cmd,
        cwd=root,
        home=home,
        log_name="voila.log",
        url=f"http://127.0.0.1:{port}",
        ready="/",
    )


# --------------------------------------------------------------------------- browser


@contextlib.contextmanager
def chromium() -> Iterator:
    """One headless Chromium for the session (Playwright gives it a fresh temporary
    user-data-dir, removed on close)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


class PageLog:
    """Console errors and uncaught page exceptions, for failure messages."""

    def __init__(self, page) -> None:
        self.lines: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.lines.append(f"[pageerror] {exc}"))

    def _console(self, msg) -> None:
        if msg.type == "error":
            self.lines.append(f"[console.{msg.type}] {msg.text}")

    def tail(self, n: int = 25) -> str:
        if not self.lines:
            return "--- browser console: no errors ---"
        return "--- last browser console errors ---\n" + "\n".join(self.lines[-n:])


class Check:
    """Collects context (server log, console, page errors) for readable failures."""

    def __init__(self, page, server: Server, what: str) -> None:
        self.page, self.server, self.what = page, server, what
        self.log = PageLog(page)
        self.timings: dict[str, float] = {}
        self.too_wide: list[str] = []  # control rows past their column (check_in_lab)
        self._t0 = time.monotonic()
        for old in artifacts_dir().glob(f"{self._stem()}[-.]*"):  # no stale artifacts
            old.unlink()

    def _stem(self) -> str:
        return self.what.replace("/", "_").replace(" ", "_")

    def lap(self, label: str) -> None:
        self.timings[label] = round(time.monotonic() - self._t0, 1)

    def fail(self, msg: str, *, hang: bool = False) -> None:
        """Fail with everything needed to debug; ``hang`` marks a timeout with no Python
        error in sight (no retry: a stalled kernel is a failure)."""
        hang = hang and page_errors_text(self.page) == NO_PAGE_ERRORS
        shot = self.screenshot("FAILED")
        self.server.remember_children()
        log_copy = artifacts_dir() / f"{self._stem()}-FAILED-server.log"
        with contextlib.suppress(OSError):
            shutil.copyfile(self.server.log_path, log_copy)
        text = (
            f"{self.what}: {msg}{' (a stall: no Python error)' if hang else ''}\n"
            f"screenshot: {shot}\nfull server log: {log_copy}\ntimings: {self.timings}\n"
            f"{page_errors_text(self.page)}\n{self.log.tail()}\n{self.server.log_tail()}"
        )
        pytest.fail(text, pytrace=False)

    def screenshot(self, suffix: str = "") -> Path:
        name = self._stem() + (f"-{suffix}" if suffix else "")
        path = artifacts_dir() / f"{name}.png"
        with contextlib.suppress(Exception):
            self.page.screenshot(path=str(path), full_page=True)
        return path


def page_errors_text(page) -> str:
    """Python errors visible in the page: error-looking stderr outputs, the error markers
    anywhere in the text, and (in JupyterLab) ``error`` outputs in the notebook model."""
    try:
        found = page.evaluate(
            """([stderrSel, markers]) => {
                const out = [];
                const errLine = /^(\\w+\\.)*\\w*(Error|Exception)(:|$)/m;
                for (const el of document.querySelectorAll(stderrSel)) {
                    const t = el.innerText || '';
                    if (markers.some(m => t.includes(m)) || errLine.test(t)) out.push(t);
                }
                const body = document.body ? document.body.innerText : '';
                for (const m of markers) {
                    const i = body.indexOf(m);
                    if (i >= 0 && !out.some(t => t.includes(m)))
                        out.push('page text: ' + body.slice(Math.max(0, i - 300), i + 1500));
                }
                const app = window.jupyterapp;
                const w = app && app.shell && app.shell.currentWidget;
                const cells = w && w.content && w.content.model && w.content.model.cells;
                for (let i = 0; cells && i < cells.length; i++) {
                    const c = cells.get(i);
                    for (let j = 0; c.type === 'code' && j < c.outputs.length; j++) {
                        const o = c.outputs.get(j).toJSON();
                        if (o.output_type === 'error' && !out.some(t => t.includes(o.evalue)))
                            out.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
                    }
                }
                return out;
            }""",
            [STDERR_OUTPUT, list(ERROR_MARKERS)],
        )
    except Exception as err:  # page gone or navigating
        return f"--- could not read page errors: {err} ---"
    if not found:
        return NO_PAGE_ERRORS
    return "--- Python errors in the page ---\n" + "\n-----\n".join(t[:3000] for t in found)


NO_PAGE_ERRORS = "--- no Python errors in the page ---"


def assert_no_page_errors(check: Check) -> None:
    if page_errors_text(check.page) != NO_PAGE_ERRORS:
        check.fail("Python error output in the page")


def _view_js(scope: str) -> str:
    """JS returning ``{src, handle, now, max}`` for the first view under ``scope``: the
    figure's src (null until an image has loaded; re-queried each time because
    clear_output replaces the <img>) and its first slider handle's aria values."""
    return f"""() => {{
        const root = document.querySelector({json.dumps(scope)}) || document;
        const view = root.querySelector({json.dumps(VIEW)});
        if (!view) return {{src: null, handle: false}};
        const img = view.querySelector('.wb-figure img') ||
                    view.querySelector('.widget-output img');
        const h = view.querySelector({json.dumps(HANDLE)});
        return {{
            src: (img && img.complete && img.naturalWidth > 0) ? img.src : null,
            handle: !!h,
            now: h ? Number(h.getAttribute('aria-valuenow')) : null,
            max: h ? Number(h.getAttribute('aria-valuemax')) : null,
        }};
    }}"""


def wait_for_view(check: Check, scope: str, timeout_ms: int, give_up_js: str) -> None:
    """Wait until the first interactive view under ``scope`` shows a slider and a figure.

    ``give_up_js`` is a JS expression that turns true when waiting longer is pointless
    (e.g. run-all has stopped): then the failure is reported at once, with the page's
    errors, instead of after the timeout.
    """
    page = check.page
    view_js = _view_js(scope)
    try:
        state = page.wait_for_function(
            f"""() => {{ const v = ({view_js})();
                return (v.src && v.handle) ? 'ready' : (({give_up_js}) ? 'gave up' : false); }}""",
            timeout=timeout_ms,
        ).json_value()
    except Exception as err:
        state = f"{type(err).__name__}: {str(err).splitlines()[0]}"
    if state == "gave up":
        state = (
            "gave up waiting: execution stopped on an error, or ended over "
            f"{GRACE_MS // 1000} s ago without showing a view"
        )
    if state != "ready" and page_errors_text(page) != NO_PAGE_ERRORS:
        check.fail(f"Python error output in the page (and no view rendered: {state})")
    if state != "ready":
        check.fail(
            f"no interactive view rendered ({VIEW} containing {HANDLE} and an image in "
            f"{FIGURE_IMG}): {state}; found {page.evaluate(view_js)}",
            hang=state.startswith("TimeoutError"),
        )
    check.lap("view")
    assert_no_page_errors(check)


def move_slider_and_wait_redraw(check: Check, scope: str) -> None:
    """Press an arrow key on the first slider of the first view; wait for a new figure.

    Call it once the notebook has finished executing: the kernel handles the slider's
    change only after every queued cell, so earlier the wait would include their run time.
    """
    page = check.page
    view_js = _view_js(scope)
    before = page.evaluate(view_js)
    at_max = before["now"] is not None and before["now"] >= before["max"]
    key = "ArrowLeft" if at_max else "ArrowRight"
    view = page.locator(f"{scope} {VIEW}").first
    handle = view.locator(HANDLE).first
    handle.scroll_into_view_if_needed()
    handle.focus()
    _scroll_to_top_of(view)
    check.screenshot("before")
    for _ in range(ARROW_PRESSES):
        page.keyboard.press(key)  # the keyup commits a continuous_update=False slider
    try:
        page.wait_for_function(
            f"(old) => {{ const s = ({view_js})().src; return s !== null && s !== old; }}",
            arg=before["src"],
            timeout=REDRAW_TIMEOUT,
        )
    except Exception as err:
        check.fail(
            f"figure src did not change within {REDRAW_TIMEOUT // 1000} s after pressing "
            f"{key} x{ARROW_PRESSES} on the first slider (slider value {before['now']} -> "
            f"{page.evaluate(view_js)['now']}); view text: {view.inner_text()[:500]!r}; "
            f"{type(err).__name__}",
            hang=True,
        )
    check.lap("redraw")
    page.wait_for_timeout(300)  # let the new image paint before the screenshot
    _scroll_to_top_of(view)  # the screenshots show the sliders and the figure
    assert_no_page_errors(check)


def _scroll_to_top_of(locator) -> None:
    # JupyterLab and Voila scroll inside their own containers, so a full-page screenshot
    # shows only the viewport: bring the view there instead
    with contextlib.suppress(Exception):
        locator.evaluate("el => el.scrollIntoView({block: 'start'})")


# --------------------------------------------------------------------------- the two apps


AUTOSAVE_TIMEOUT = 90.0  # s after the slider move (the interval is 10 s; a busy server lags)
COUNT_IMAGES_JS = """(scope) => {
    const root = document.querySelector(scope);
    const imgs = [...root.querySelectorAll('.jp-RenderedImage img')]
        .filter((img) => img.complete && img.naturalWidth > 0);
    const bare = [...root.querySelectorAll('.jp-OutputArea-output')]
        .filter((o) => /^<Figure size/.test(o.innerText.trim())).length;
    return {images: imgs.length, bare: bare};
}"""


# every view after run-all: does it show a figure, and does any control row reach past the
# view's output column (cut off, or scrolling the output sideways)?
VIEWS_JS = """(scope) => {
    const root = document.querySelector(scope);
    const views = [...root.querySelectorAll('.wb-interactive')];
    const shown = views.filter((v) => {
        const img = v.querySelector('.wb-figure img');
        return img && img.complete && img.naturalWidth > 0 &&
            img.getBoundingClientRect().height > 0;
    });
    let wide = [];
    for (const v of views) {
        const column = v.closest('.jp-OutputArea-output') || v.parentElement;
        const right = column.getBoundingClientRect().right + 1;
        for (const row of v.querySelectorAll('.wb-control')) {
            const r = row.getBoundingClientRect();
            if (r.width > 0 && r.right > right) {
                const label = row.querySelector('.wb-control-label');
                const over = Math.round(r.right - right);
                wide.push((label ? label.innerText : '?') + ' ' + over + ' px');
            }
        }
        if (column.scrollWidth > column.clientWidth + 1) wide.push('output scrolls sideways');
    }
    return {views: views.length, with_figure: shown.length, too_wide: wide,
            column: views.length ? Math.round((views[0].closest('.jp-OutputArea-output')
                || views[0]).getBoundingClientRect().width) : 0};
}"""
LAB_VIEWPORT = {"width": 1280, "height": 800}  # a lecturer's projector, file browser open


def _views_after_run_all(check: Check, scope: str, timeout_s: float = 60.0) -> dict:
    """Wait (up to ``timeout_s``) until every view shows a figure; return the last count."""
    deadline = time.monotonic() + timeout_s
    while True:
        state = check.page.evaluate(VIEWS_JS, scope)
        if state["with_figure"] == state["views"] or time.monotonic() > deadline:
            return state
        time.sleep(1.0)


def check_in_lab(browser, server: Server, notebook: str, served: Path) -> dict[str, float]:
    """Open ``notebook`` in JupyterLab, run all cells, exercise the first view, and wait for
    JupyterLab's own autosave of ``served`` (the file on disk).

    Returns the timings, plus ``static_images`` (rendered figure images outside the slider
    views), ``bare_figures`` (outputs that show a figure as ``<Figure size ...>`` text),
    ``views`` and ``views_with_figure`` after run-all, ``rows_too_wide`` (control rows that
    reach past their output column at 1280 × 800 with the file browser open; their labels in
    ``check.too_wide``) and ``column_px`` (the output column's width).
    """
    mtime_before = served.stat().st_mtime_ns
    context = browser.new_context(viewport=LAB_VIEWPORT)
    page = context.new_page()
    check = Check(page, server, f"lab-{Path(notebook).stem}")
    try:
        # a fresh workspace per notebook: no tabs restored from an earlier test
        page.goto(
            f"{server.url}/lab/workspaces/wb-{Path(notebook).stem}/tree/{notebook}?reset",
            wait_until="domcontentloaded",
        )
        try:
            page.wait_for_function(
                """(nb) => {
                    const app = window.jupyterapp;
                    const w = app && app.shell && app.shell.currentWidget;
                    return !!(w && w.context && w.context.path.endsWith(nb) && w.content);
                }""",
                arg=notebook,
                timeout=LAB_APP_TIMEOUT,
            )
        except Exception as err:
            check.fail(f"JupyterLab did not open the notebook: {type(err).__name__}")
        check.lap("app")
        _accept_kernel_dialog(page)
        panel_id = page.evaluate(
            """async () => {
                const w = window.jupyterapp.shell.currentWidget;
                await w.context.ready;
                await w.sessionContext.ready;
                return w.id;
            }"""
        )
        try:  # run-all before the kernel is there would silently run nothing
            page.wait_for_function(
                """() => {
                    const s = window.jupyterapp.shell.currentWidget.sessionContext;
                    const k = s.session && s.session.kernel;
                    return !!k && k.status === 'idle';
                }""",
                timeout=LAB_APP_TIMEOUT,
            )
        except Exception as err:
            check.fail(f"the kernel did not become idle: {type(err).__name__}", hang=True)
        check.lap("kernel")
        page.evaluate(
            """() => { window.__wbRunAll = 'running';
                window.jupyterapp.commands.execute('notebook:run-all-cells').then(
                    (ok) => { window.__wbRunAll = ok === false ? 'failed' : 'done';
                              window.__wbRunAllAt = Date.now(); },
                    (e) => { window.__wbRunAll = 'error: ' + e; }); }"""
        )
        wait_for_view(check, f"#{panel_id}", LAB_VIEW_TIMEOUT, LAB_GIVE_UP_JS)
        try:  # the rest of the notebook must run too, before the slider is moved
            page.wait_for_function(
                "() => window.__wbRunAll !== 'running'", timeout=LAB_VIEW_TIMEOUT
            )
        except Exception:
            check.fail(
                f"run-all-cells did not finish within {LAB_VIEW_TIMEOUT // 1000} s", hang=True
            )
        check.lap("run-all")
        status = page.evaluate("() => window.__wbRunAll")
        assert_no_page_errors(check)
        if status != "done":
            check.fail(f"notebook:run-all-cells ended with {status!r}")
        page.evaluate(  # the file browser open, as a lecturer keeps it
            """() => { try { window.jupyterapp.shell.expandLeft(); } catch (e) {}
                return window.jupyterapp.commands.execute('filebrowser:activate')
                    .catch(() => null); }"""
        )
        page.wait_for_timeout(1000)
        views = _views_after_run_all(check, f"#{panel_id}")
        check.timings["views"] = float(views["views"])
        check.timings["views_with_figure"] = float(views["with_figure"])
        check.timings["rows_too_wide"] = float(len(views["too_wide"]))
        check.timings["column_px"] = float(views["column"])
        check.too_wide = views["too_wide"]
        move_slider_and_wait_redraw(check, f"#{panel_id}")
        check.screenshot()
        counts = page.evaluate(COUNT_IMAGES_JS, f"#{panel_id}")
        check.timings["static_images"] = float(counts["images"])
        check.timings["bare_figures"] = float(counts["bare"])
        deadline = time.monotonic() + AUTOSAVE_TIMEOUT
        while served.stat().st_mtime_ns == mtime_before:  # JupyterLab's autosave, no user action
            if time.monotonic() > deadline:
                check.fail(f"JupyterLab did not autosave {notebook} within {AUTOSAVE_TIMEOUT} s")
            time.sleep(0.5)
        check.lap("autosaved")
        # raced against a clock: a save that waits on a dialog (a conflict with the file on
        # disk) never resolves, and page.evaluate has no timeout of its own (one CI run
        # hung here for good)
        saved = page.evaluate(
            """(ms) => Promise.race([
                window.jupyterapp.commands.execute('docmanager:save').then(
                    () => 'saved', (e) => 'error: ' + e),
                new Promise((resolve) => setTimeout(() => {
                    const d = document.querySelector('.jp-Dialog');
                    resolve('no answer within ' + ms / 1000 + ' s; dialog: '
                            + (d ? d.innerText : 'none'));
                }, ms))])""",
            SAVE_TIMEOUT_MS,
        )
        if saved != "saved":
            check.fail(f"saving the notebook failed: {saved}")
        check.lap("saved")
        return check.timings
    finally:
        with contextlib.suppress(Exception):  # free the kernel's CPU for the next test
            page.evaluate(
                """() => Promise.race([
                    window.jupyterapp.shell.currentWidget.sessionContext.shutdown(),
                    new Promise((resolve) => setTimeout(resolve, 5000))])"""
            )
        context.close()


# run-all failed, or succeeded a while ago (widgets render a little after their cell's
# execute reply): no view will come
LAB_GIVE_UP_JS = (
    "window.__wbRunAll !== 'running' && (window.__wbRunAll !== 'done' || "
    f"Date.now() - window.__wbRunAllAt > {GRACE_MS})"
)


def _accept_kernel_dialog(page) -> None:
    """Notebooks without kernelspec metadata make JupyterLab ask; take the default."""
    dialog = page.locator(".jp-Dialog .jp-mod-accept")
    with contextlib.suppress(Exception):
        dialog.wait_for(state="visible", timeout=2_000)
        dialog.click()


# Voila finished streaming and the page shows an error, or it finished a while ago: no
# view will come
VOILA_GIVE_UP_JS = (
    "(document.readyState === 'complete' && ("
    "/Traceback \\(most recent|There was an error when executing cell/"
    ".test(document.body.innerText) || "
    f"Date.now() - window.__wbLoadedAt > {GRACE_MS})) || "
    "!!document.querySelector('.voila-error')"
)
RECORD_LOAD_TIME = "window.addEventListener('load', () => { window.__wbLoadedAt = Date.now(); });"
VOILA_LOG_ERRORS = ("Error at server while executing cell", "KernelRestarter: restarting")


def check_in_voila(browser, server: Server, notebook: str) -> dict[str, float]:
    """Render ``notebook`` with Voila, exercise the first view."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(RECORD_LOAD_TIME)
    check = Check(page, server, f"voila-{Path(notebook).stem}")
    try:
        log_start = server.log_size()
        # Voila streams the page while it executes the notebook: do not wait for 'load'
        response = page.goto(f"{server.url}/voila/render/{notebook}", wait_until="commit")
        check.lap("commit")
        if response is None or response.status != 200:
            check.fail(f"Voila answered HTTP {response and response.status}")
        wait_for_view(check, "body", VOILA_VIEW_TIMEOUT, VOILA_GIVE_UP_JS)
        try:  # 'load' fires once Voila has executed (and streamed) every cell
            page.wait_for_load_state("load", timeout=VOILA_VIEW_TIMEOUT)
        except Exception:
            check.fail(
                f"Voila page did not finish loading within {VOILA_VIEW_TIMEOUT // 1000} s",
                hang=True,
            )
        check.lap("loaded")
        assert_no_page_errors(check)
        if page.locator(".voila-error").count():
            check.fail(f"Voila error page: {page.locator('.voila-error').inner_text()!r}")
        new_log = server.log_since(log_start)
        for marker in VOILA_LOG_ERRORS:
            if marker in new_log:
                i = new_log.index(marker)
                check.fail(f"Voila logged {marker!r}:\n{new_log[i : i + 2500]}")
        move_slider_and_wait_redraw(check, "body")
        check.screenshot()
        return check.timings
    finally:
        context.close()
