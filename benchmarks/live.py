"""Live games (issue 50): how fast a message reaches the partner, and what a message costs the server, through the
live routes the Play page's game talks to (``ui/server/live_routes.py``), on real app servers (``server.py``):

- **sent → shown at the partner**: a player's message POSTed, until the partner's long poll returns it; p90 over
  every message, on one server and on two servers on one store (each player on their own server: the partner's
  server sees the event by reading the store again, every 0.5 s). Target: p90 ≤ 1 s on both. Beside it, in the same
  run, a bare request's round trip to the same server (``/_stcore/health``), p90.
- **the server's CPU a message**: 20 games at once on one server (40 players, each with a long poll open, as their
  pages keep one), each player sending a message about every 1.2 s; the server process's CPU time (``/proc``)
  over the sending, divided by the messages. Target: ≤ 0.05 CPU-s a message. Beside it, in the same run, the same
  40 polls waiting with nothing sent for as long (the baseline: what waiting costs).

The players are HTTP clients (one keep-alive connection each for the poll and for sending, as a browser keeps), not
browsers: what is measured is the transport, which a page's drawing of a message (a text node) hardly adds to.
The store is one SQLite file (two servers share it as two processes on one machine would share PostgreSQL; the
browser test tests/e2e/test_live_two_servers.py plays on PostgreSQL behind nginx).

    python benchmarks/live.py [--games 20] [--messages 8] [--workdir DIR]

Writes ``benchmarks/results/live.json`` (read by ``benchmarks/report.py``). Only 127.0.0.1 is contacted; every loop is
bounded in count and time.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from browser import ROOT, CheckoutServer, cpu_seconds

sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "results" / "live.json"
TARGET = [[0, 1, 0, "blue"]]


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.9 * len(ordered))) - 1)] if ordered else float("nan")


class Player:
    """One player's page: a long poll always open (its own connection), and messages sent on another."""

    def __init__(self, port: int, game_id: int, name: str, seen: dict, lock: threading.Lock):
        self.port, self.game_id, self.name, self.seen, self.lock = port, game_id, name, seen, lock
        self.headers = {"x-live-player": name, "x-live-game": "1", "content-type": "application/json"}
        self.sender = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.sending = threading.Lock()  # one request at a time on the sending connection, as a page sends
        self.stopped = False
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=40)
        cursor, status = 0, ""
        deadline = time.monotonic() + 900
        while not self.stopped and time.monotonic() < deadline:
            try:
                connection.request("GET", f"/_live/{self.game_id}/events?after={cursor}&status={status}",
                                   headers={"x-live-player": self.name})
                answer = json.loads(connection.getresponse().read())
            except (OSError, http.client.HTTPException, ValueError):
                connection.close()
                time.sleep(0.2)  # the interval before polling again after a failure, as the page waits
                continue
            now = time.monotonic()
            for event in answer.get("events", []):
                if event["kind"] == "message" and event["client_id"].split("-")[0] != self.name:
                    with self.lock:
                        self.seen.setdefault(event["client_id"], now)
            cursor, status = answer.get("cursor", cursor), answer.get("game", {}).get("status", status)

    def send(self, client_id: str, text: str) -> float:
        """Send a message; when it was acknowledged (stored)."""
        body = json.dumps({"client_id": client_id, "kind": "message", "payload": {"text": text}})
        with self.sending:
            self.sender.request("POST", f"/_live/{self.game_id}/events", body=body, headers=self.headers)
            answer = self.sender.getresponse()
            data = answer.read()
        if answer.status != 200:
            raise RuntimeError(f"a message was refused ({answer.status}): {data[:200]!r}")
        return time.monotonic()


def make_games(db: Path, count: int, offset: int) -> list[tuple[int, str, str]]:
    """``count`` Minecraft games started between two local players each, straight in the store."""
    from data_access import live
    from data_access.registry import corpus_module
    from data_access.store import Store

    store = Store(db)
    games = []
    for number in range(offset, offset + count):
        a, b = f"a{number}", f"b{number}"
        game, token = live.create(store, corpus_module("minecraft"), "C1", "Architect",
                                  {"roles": {"Architect": {"target": TARGET}}}, player=a)
        store.live_games.join(token, player=b)
        games.append((game.id, a, b))
    store.close()
    return games


def exchange(games, ports: tuple[int, int], messages: int, gap_s: float) -> dict:
    """Each player of ``games`` sends ``messages`` messages, one every ``gap_s`` seconds (the players spread over it);
    player A on the server ``ports[0]``, B on ``ports[1]``. The latencies, and how long the sending took."""
    seen: dict[str, float] = {}
    lock = threading.Lock()
    players = [Player(ports[side], game_id, name, seen, lock)
               for game_id, a, b in games for side, name in ((0, a), (1, b))]
    time.sleep(1.0)  # every poll open and waiting before the first message
    sent: dict[str, float] = {}
    stored: dict[str, float] = {}
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {}
        # the players' messages spread evenly over each gap, as people type (not all at one instant)
        for round_number in range(messages):
            for index, player in enumerate(players):
                due = started + round_number * gap_s + index * gap_s / len(players)
                time.sleep(max(0.0, due - time.monotonic()))
                client_id = f"{player.name}-{round_number}"
                sent[client_id] = time.monotonic()
                futures[client_id] = pool.submit(player.send, client_id, f"message {round_number} of {player.name}")
        for client_id, future in futures.items():
            stored[client_id] = future.result()
    sending = time.monotonic() - started
    deadline = time.monotonic() + 10
    while len(seen) < len(sent) and time.monotonic() < deadline:
        time.sleep(0.05)  # the interval between looks at what the polls have seen
    for player in players:
        player.stopped = True
    latencies = [seen[c] - sent[c] for c in sent if c in seen]
    # of which: the POST until acknowledged (the store's write), and from then until the partner's poll returned
    writes = [stored[c] - sent[c] for c in sent]
    deliveries = [max(0.0, seen[c] - stored[c]) for c in sent if c in seen]
    return {"messages": len(sent), "shown": len(latencies), "p90_s": p90(latencies),
            "stored_p90_s": p90(writes), "stored_to_shown_p90_s": p90(deliveries),
            "median_s": statistics.median(latencies) if latencies else float("nan"), "sending_s": sending}


def bare_round_trip(port: int, count: int = 50) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    for _ in range(count):
        began = time.monotonic()
        connection.request("GET", "/_stcore/health")
        connection.getresponse().read()
        times.append(time.monotonic() - began)
    return p90(times)


def idle_cost(server: CheckoutServer, games, seconds: float) -> float:
    """CPU-s of the server while every player of ``games`` waits in a long poll and nobody sends."""
    seen: dict[str, float] = {}
    players = [Player(server.port, game_id, name, seen, threading.Lock()) for game_id, a, b in games for name in (a, b)]
    time.sleep(1.0)
    before = cpu_seconds(server.process.pid)
    time.sleep(seconds)
    spent = cpu_seconds(server.process.pid) - before
    for player in players:
        player.stopped = True
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--messages", type=int, default=8, help="messages each player sends")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-live-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "live.sqlite3"
    env = {"DIALOGUE_NOTES_DB": str(db)}
    first = CheckoutServer(ROOT, "server.py", env, workdir)
    second = CheckoutServer(ROOT, "server.py", env, workdir)
    try:
        results: dict = {"bare_round_trip_p90_s": bare_round_trip(first.port), "load_average": os.getloadavg()[0]}
        results["one_server"] = exchange(make_games(db, 5, 0), (first.port, first.port), args.messages, 1.2)
        results["two_servers"] = exchange(make_games(db, 5, 100), (first.port, second.port), args.messages, 1.2)
        many = make_games(db, args.games, 200)
        sending = exchange_cost = None
        before = cpu_seconds(first.process.pid)
        sending = exchange(many, (first.port, first.port), args.messages, 1.2)
        exchange_cost = cpu_seconds(first.process.pid) - before
        idle = idle_cost(first, make_games(db, args.games, 400), sending["sending_s"])
        results["many_games"] = {**sending, "games": args.games, "server_cpu_s": exchange_cost,
                                 "cpu_s_per_message": exchange_cost / max(1, sending["messages"]),
                                 "idle_cpu_s_same_time": idle,
                                 "idle_cpu_s_per_message_time": idle / max(1, sending["messages"])}
    finally:
        first.stop()
        second.stop()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2), encoding="utf-8")
    one, two, many_games = results["one_server"], results["two_servers"], results["many_games"]
    print(f"bare round trip p90 {results['bare_round_trip_p90_s'] * 1000:.1f} ms (load average "
          f"{results['load_average']:.1f})")
    for label, row in (("one server", one), ("two servers", two)):
        print(f"{label}: {row['shown']}/{row['messages']} shown, p90 {row['p90_s'] * 1000:.0f} ms (target <= 1000); "
              f"stored p90 {row['stored_p90_s'] * 1000:.0f} ms, stored -> shown p90 {row['stored_to_shown_p90_s'] * 1000:.0f} ms")
    print(f"{many_games['games']} games: {many_games['messages']} messages, p90 {many_games['p90_s'] * 1000:.0f} ms, "
          f"server {many_games['cpu_s_per_message']:.4f} CPU-s a message (target <= 0.05); the same polls idle "
          f"{many_games['idle_cpu_s_per_message_time']:.4f} CPU-s per message's time")


if __name__ == "__main__":
    main()
