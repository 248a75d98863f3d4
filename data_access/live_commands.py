"""The command line's live-game commands (``python -m data_access``, docs/play.md "Running a study"):
``live-study`` creates a study's games in the store, one per item a slice's dialogs played, and prints the
invitation of each role; ``live-export`` writes finished games in the corpus's own files. Both print one JSON
object, and exit 2 with one stderr line naming the store, the corpus or the folder that failed."""
from __future__ import annotations

import json
from pathlib import Path

from .common import CORPUS_NAMES, SourceError


def _store_of(target: str, *, read_only: bool):
    """The store at ``target`` (a SQLite file that exists, or a postgresql:// URL): as it is when ``read_only``,
    else migrated as the app opens it. A path that is no file is refused: a typo never makes a new store."""
    from .store import Store, StoreError, open_read_only

    if "://" not in target and not Path(target).is_file():
        raise SourceError(Path(target), "is not a store (a SQLite file of the app's notes and games)")
    try:
        return Store(open_read_only(target) if read_only else target)
    except StoreError as exc:
        raise SourceError("the store" if "://" in target else Path(target), str(exc)) from None


def live_export(args) -> int:
    """Write a collection's games in the corpus's files, reading the store as it is (never created or migrated)."""
    from . import live
    from .registry import corpus_module
    from .store import StoreError

    store = _store_of(args.store, read_only=True)
    try:
        games = args.game or store.live_games.finished_ids(args.corpus)
        path = live.export(store, corpus_module(args.corpus), games, Path(args.out), split=args.split)
        consents = _consents(store, games)
    except (ValueError, StoreError) as exc:
        raise SourceError(Path(args.out), str(exc)) from None
    finally:
        store.close()
    print(json.dumps({"corpus": args.corpus, "games": len(set(games)), "path": str(path), "consents": consents}))
    return 0


def _consents(store, game_ids) -> list[dict]:
    """Each player of the games written and the consent texts they agreed to (version, when): the study's record,
    for its organiser only (the files written never name a player by their sign-in)."""
    players = set()
    for game_id in set(game_ids):
        game = store.live_games.game(game_id)
        players |= {game.first_player, game.second_player} - {None}
    return [{"player": a.coder, "text_version": a.text_version, "agreed_at": a.agreed_at}
            for a in store.live_consent.agreements() if a.coder in players]


def live_study(args) -> int:
    """A study's games, one per item the slice's dialogs played, created by the local user (the organiser who runs
    the command on the server: an admin); one JSON object with the rows to hand out."""
    from . import live
    from .corpus import Corpus
    from .slices.definitions import saved_id
    from .store import StoreError

    corpus = Corpus.resolve(args.corpus, args.path)
    where = corpus.source.path or Path(f"the demo {corpus.title} corpus")
    store = _store_of(args.store, read_only=False)
    store_name = "the store" if "://" in args.store else Path(args.store)
    try:
        try:
            number = saved_id(args.slice)
            text = store.slices.get(number)["slice"] if number is not None else args.slice
        except StoreError as exc:  # no such saved slice, or one the store cannot read
            raise SourceError(store_name, str(exc)) from None
        try:
            kept = corpus.slice(text)
            items = live.study_items(corpus.package, corpus.loaded, kept.ids)
        except ValueError as exc:  # a bad slice (SliceError), or one whose dialogs play nothing
            raise SourceError(where, f"the slice {args.slice!r}: {exc}") from None
        try:
            rows = live.create_study(store, corpus.package, corpus.loaded, items, seed=args.seed)
        except (ValueError, StoreError) as exc:  # too many items, a store that refuses
            raise SourceError(store_name, str(exc)) from None
    finally:
        store.close()
    print(json.dumps({"corpus": args.corpus, "slice": kept.text, "seed": args.seed, "games": len(items),
                      "invitations": rows}, ensure_ascii=False))
    return 0


def add_commands(sub, positive) -> None:
    """The two commands' parsers on the subparsers ``sub`` (``positive(int)``: a positive whole number's type)."""
    study = sub.add_parser("live-study", help="create a study's live games, one per item a slice's dialogs played; "
                                              "print one JSON object with each role's invitation")
    study.add_argument("corpus", choices=CORPUS_NAMES)
    study.add_argument("store", help="the app's store (its SQLite file, or a postgresql:// URL)")
    study.add_argument("--slice", required=True, help="a slice in the grammar of docs/slices.md, or @ID (a slice saved "
                                                      "in the store)")
    study.add_argument("--seed", type=int, default=0, help="the random draws of game n are made with SEED + n "
                                                            "(default 0)")
    study.add_argument("--path", help="the corpus file or folder (default: where its variable points, else the demo)")
    study.set_defaults(run=live_study)
    export = sub.add_parser("live-export", help="write finished live games in the corpus's own files; print one JSON "
                                                "object")
    export.add_argument("corpus", choices=CORPUS_NAMES)
    export.add_argument("store", help="the app's store (its SQLite file, or a postgresql:// URL)")
    export.add_argument("out", help="the folder to write (absent or empty)")
    export.add_argument("--game", type=positive(int), action="append", help="one game's id (repeatable; default: "
                                                                            "every finished game of the corpus)")
    export.add_argument("--split", default="test", help="the split the games load under (default: test)")
    export.set_defaults(run=live_export)
