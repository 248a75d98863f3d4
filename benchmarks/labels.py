"""Labels at the speed of steps (issue 47), on the full corpora in headless Chromium against a warm server: a coder
labels each corpus's longest dialog in the Replay's coding column as fast as a person can key.

- **key → label shown**: from a label key's ``keydown`` (its event's time stamp) until the frame that shows the
  column saying the step has the label (``data-label-set="1"`` set on the label's control, watched for the
  change). Target: p90 ≤ the median of a bare Streamlit button rerun (``benchmarks/blank_button.py``) measured
  in the same run.
- **key → stored**: from the key (the browser's clock) until the label's row in the store was written (its
  ``created_at``, the same machine's clock). Target: every label within 1 s.
- **50 labels keyed one every 100 ms**: ``c`` and ``n`` (two turn labels) on each step and → between them, a label
  every 100 ms, 25 steps; then the store must hold each of the 50 once: none lost, none doubled.

    python benchmarks/labels.py [--shared DIR] [--labels 50] [--workdir DIR]

Writes ``benchmarks/results/labels.json`` (read by ``benchmarks/report.py``). Only 127.0.0.1 is contacted;
every loop is bounded in count and time.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import datetime
from pathlib import Path

from browser import ROOT, CheckoutServer, launch_options
from player import FIRST_SETTLED, IDLE, TIMEOUT_MS, blank_click, choose, replay_url, summary

# Each label key's time from its keydown to the frame that shows its control with the label, and its wall-clock
# time (ms since the epoch) to set beside the store's created_at. The control is watched for the change (unset to
# set), not polled: the benchmark keys → right after n, so a poll that ran after the → handler found the next step
# (without n) and counted until n was set on a later step; a label shown on its step counts as shown, even if the
# coder moves on in the next moment.
LABEL_RECORDER = """(() => {
  window.__labels = [];
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'c' && event.key !== 'n') return;
    const entry = {key: event.key, wall: performance.timeOrigin + event.timeStamp, shown: null};
    window.__labels.push(entry);
    const panel = document.querySelector('[data-coding-panel]');
    const watch = new MutationObserver((changes) => {
      const set = changes.some((m) => m.target.dataset.labelKey === event.key && m.oldValue !== '1'
                                      && m.target.dataset.labelSet === '1');
      if (!set || entry.shown !== null) return;
      watch.disconnect();
      requestAnimationFrame(() => { entry.shown = performance.now() - event.timeStamp; });
    });
    watch.observe(panel || document.body, {attributes: true, attributeFilter: ['data-label-set'],
                                           attributeOldValue: true, subtree: true});
    setTimeout(() => { if (entry.shown === null) { watch.disconnect(); entry.shown = -1; } }, 10000);
  }, {capture: true});
})();"""


def key_session(browser, url: str, labels: int) -> list[dict]:
    """A fresh session opens ``url`` and, once it looks ready, keys ``labels`` labels, one every 100 ms: c, n, →, …"""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script("window.__withPlayer = true;" + FIRST_SETTLED + LABEL_RECORDER)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_function("() => window.__firstSettled !== null", timeout=TIMEOUT_MS, polling=10)
        page.wait_for_selector("[data-coding-panel] [data-label-key='c']", timeout=TIMEOUT_MS)
        start = time.perf_counter()
        for number in range(labels):
            pause = start + number * 0.1 - time.perf_counter()
            if pause > 0:
                time.sleep(pause)  # the coder's rhythm, not a wait for the app
            page.keyboard.press("c" if number % 2 == 0 else "n")
            if number % 2 == 1:
                page.keyboard.press("ArrowRight")
        page.wait_for_function("n => window.__labels.length >= n && window.__labels.every(l => l.shown !== null)",
                               arg=labels, timeout=TIMEOUT_MS)
        page.wait_for_selector("[data-coding-panel][data-pending='0']", timeout=TIMEOUT_MS)  # every write answered
        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
        return page.evaluate("() => window.__labels")
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_shared = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
                          ROOT.parent / "shared" / "data")
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--labels", type=int, default=50, help="labels keyed per corpus, one every 100 ms (even)")
    parser.add_argument("--workdir", type=Path, default=None, help="keeps the Parquet cache for the next run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "labels.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from data_access.coding import codebook as cb
    from data_access.store import CodingStore

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="labels-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env, chosen = choose(args.shared, workdir)
    store_path = workdir / "notes.sqlite3"
    store = CodingStore(store_path)
    if store.codebook("bench", missing_ok=True) is None:
        store.save_codebook(cb.Codebook("bench", (cb.Label("CR", scope="turn", key="c"),
                                                  cb.Label("not-CR", scope="turn", key="n"))))
    servers = {"app": CheckoutServer(ROOT, "server.py", env, workdir),
               "blank": CheckoutServer(ROOT, "benchmarks/blank_button.py", {}, workdir)}
    results: dict = {"corpora": {}}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**launch_options())
            blank = browser.new_page(viewport={"width": 1400, "height": 900})
            blank.goto(servers["blank"].url)
            blank.wait_for_function(IDLE, timeout=TIMEOUT_MS)
            blank_click(blank)  # the first click warms the page
            blanks = []
            for name, info in chosen.items():
                coder = f"bench-{name}-{int(time.time())}"
                url = replay_url(servers["app"].url, name, info["dialog"], info["round"]) + f"&coder={coder}&codebook=bench"
                keyed = key_session(browser, url, args.labels)
                for _ in range(7):
                    blanks.append(blank_click(blank))
                rows = CodingStore(store_path).annotations(corpus=name, coder=coder, include_deleted=True)
                created = {(int(t), label): datetime.fromisoformat(str(c)).timestamp() * 1000
                           for t, label, c in zip(rows["turn"], rows["label"], rows["created_at"])}
                wanted = {(number // 2 + 1, "CR" if number % 2 == 0 else "not-CR") for number in range(args.labels)}
                stored_ms = [created[(number // 2 + 1, "CR" if number % 2 == 0 else "not-CR")] - entry["wall"]
                             for number, entry in enumerate(keyed)
                             if (number // 2 + 1, "CR" if number % 2 == 0 else "not-CR") in created]
                shown = [entry["shown"] for entry in keyed if entry["shown"] >= 0]
                results["corpora"][name] = {
                    "dialog": info["dialog"], "labels_keyed": len(keyed), "key_to_shown": summary(shown),
                    "key_to_stored": {**summary(stored_ms), "max_ms": round(max(stored_ms), 1) if stored_ms else None},
                    "stored_rows": len(rows), "lost": len(wanted - set(created)), "doubled": len(rows) - len(set(created)),
                    "deleted": int(rows["deleted_at"].notna().sum())}
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    floor = summary([b for b in blanks if b >= 0])
    results["blank_click"] = floor
    for row in results["corpora"].values():
        row["shown_met"] = bool(row["key_to_shown"].get("n")) and row["key_to_shown"]["p90_ms"] <= floor["median_ms"]
        row["stored_met"] = row["key_to_stored"].get("max_ms") is not None and row["key_to_stored"]["max_ms"] <= 1000
        row["once_met"] = row["lost"] == 0 and row["doubled"] == 0 and row["deleted"] == 0 \
            and row["stored_rows"] == args.labels
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"bare button rerun: median {floor.get('median_ms')} ms")
    for name, row in results["corpora"].items():
        print(f"{name:10} key → label shown: median {row['key_to_shown'].get('median_ms')} ms, p90 "
              f"{row['key_to_shown'].get('p90_ms')} ms ({'met' if row['shown_met'] else 'NOT met'}); key → stored: "
              f"median {row['key_to_stored'].get('median_ms')} ms, p90 {row['key_to_stored'].get('p90_ms')} ms, max "
              f"{row['key_to_stored'].get('max_ms')} ms ({'met' if row['stored_met'] else 'NOT met'}); "
              f"{row['stored_rows']} stored of {row['labels_keyed']}, {row['lost']} lost, {row['doubled']} doubled "
              f"({'met' if row['once_met'] else 'NOT met'})")


if __name__ == "__main__":
    main()
