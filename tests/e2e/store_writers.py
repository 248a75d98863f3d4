"""One app server's coders, for tests/e2e/test_two_servers.py: ``python -m tests.e2e.store_writers STORE SERVER
CODERS EACH LOG_DIR`` opens the store once, as an app server process does (one ``Store``, one connection pool),
and lets CODERS threads each save EACH annotations through it, as that many browser sessions would. After each
save returns (committed), its uid is appended to the coder's log file and flushed to disk, so that a test
killing the process knows what was committed. Started again, a coder skips the uids its log holds and saves
the rest again, the one that was in flight included: its uid makes a second save of it no duplicate."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from data_access.store import Store, StoreError

CODEBOOK = "deployment-test"


def coder_log(folder: Path, server: str, coder: int) -> Path:
    return folder / f"{server}-coder{coder}.log"


def write(store: Store, server: str, coder: int, each: int, folder: Path) -> None:
    log = coder_log(folder, server, coder)
    done = set(log.read_text(encoding="utf-8").split()) if log.exists() else set()
    book = store.coding.codebook(CODEBOOK)
    with open(log, "a", encoding="utf-8") as out:
        for number in range(each):
            uid = f"{server}-{coder}-{number}"
            if uid in done:
                continue
            for attempt in range(20):  # a coder whose save failed presses Save again
                try:
                    store.coding.add_annotation("codraw", f"dialog-{number % 17}", codebook=book, label="CR",
                                                coder=f"{server}-coder{coder}", turn=1 + number % 5, uid=uid)
                    break
                except StoreError:
                    time.sleep(0.05 * (attempt + 1))
            else:
                raise SystemExit(f"{uid}: not saved after 20 tries")
            out.write(uid + "\n")
            out.flush()
            os.fsync(out.fileno())


def main(argv: list[str]) -> int:
    target, server, coders, each, folder = argv[0], argv[1], int(argv[2]), int(argv[3]), Path(argv[4])
    store = Store(target)
    threads = [threading.Thread(target=write, args=(store, server, coder, each, folder)) for coder in range(coders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
