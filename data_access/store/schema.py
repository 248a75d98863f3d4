"""The store's schema as migrations, the same tables on SQLite and PostgreSQL.

``MIGRATIONS[v](db)`` returns the statements that bring a database from schema version v to v + 1. Append,
never edit: a database written by an older app is brought forward one step at a time inside one transaction.
Version 1 is the notes schema of the first release (its SQLite text is unchanged, so old files upgrade).
Version 3 makes gold hold one decision per unit: ``gold_decisions`` has one row per (codebook, unit), so two
adjudicators deciding the same unit at once cannot both succeed (``CodingStore.decide_gold``).
Version 4 records who made each change (``changed_by``), for sign-in and roles (``data_access.access``).
Version 5 keeps the sign-ins ended by signing out (``sign_outs``).
Version 6 keeps saved slices (``saved_slices``: issue 37, ``slices.py``).
Version 7 keeps plays (``plays`` and their ``play_events``: issue 49, ``plays.py``).
Version 8 keeps live games of two people (``live_games`` and their ``live_game_events``: issue 50, ``live_games.py``).
Version 9 keeps the consent text shown before a live game and who agreed to which version (``live_consent_texts``,
``live_consents``: issue 50, ``live_consent.py``).
"""
from __future__ import annotations

from .database import Database


def _v1_notes(db: Database) -> list[str]:
    return [
        f"""
        CREATE TABLE IF NOT EXISTS notes (
            {db.id_column},
            corpus     TEXT    NOT NULL,
            dialog_id  TEXT    NOT NULL,
            round      INTEGER,
            turn       INTEGER,
            tags       TEXT    NOT NULL DEFAULT '[]' {db.json_check.format(col='tags')},
            text       TEXT    NOT NULL,
            author     TEXT,
            created_at TEXT    NOT NULL,
            updated_at TEXT    NOT NULL,
            deleted_at TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS notes_by_place ON notes (corpus, dialog_id, round, turn)",
        # One row per superseded version: what the note looked like just before an update, delete or restore.
        f"""
        CREATE TABLE IF NOT EXISTS note_revisions (
            {db.id_column.replace('id ', 'revision_id ', 1)},
            note_id     INTEGER NOT NULL REFERENCES notes (id),
            action      TEXT    NOT NULL CHECK (action IN ('update', 'delete', 'restore')),
            round       INTEGER,
            turn        INTEGER,
            tags        TEXT    NOT NULL,
            text        TEXT    NOT NULL,
            author      TEXT,
            version_updated_at TEXT NOT NULL,
            recorded_at TEXT    NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS note_revisions_by_note ON note_revisions (note_id)",
    ]


def _v2_coding(db: Database) -> list[str]:
    """Codebooks (one immutable row per version), annotations (labels on dialogs, turns and spans, with
    referents; notes stay in ``notes`` and are listed as annotations of kind "note"), their history, and
    coding queues."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS codebooks (
            {db.id_column},
            name        TEXT    NOT NULL,
            version     INTEGER NOT NULL CHECK (version >= 1),
            description TEXT    NOT NULL DEFAULT '',
            labels      TEXT    NOT NULL {db.json_check.format(col='labels')},
            created_by  TEXT,
            created_at  TEXT    NOT NULL,
            UNIQUE (name, version)
        )
        """,
        f"""
        CREATE TABLE IF NOT EXISTS annotations (
            {db.id_column},
            uid         TEXT    NOT NULL UNIQUE,
            corpus      TEXT    NOT NULL,
            dialog_id   TEXT    NOT NULL,
            round       INTEGER,
            turn        INTEGER,
            utterance   INTEGER,
            scope       TEXT    NOT NULL CHECK (scope IN ('dialog', 'turn', 'span')),
            start_char  INTEGER,
            end_char    INTEGER,
            span_text   TEXT,
            codebook    TEXT    NOT NULL,
            codebook_version INTEGER NOT NULL,
            label       TEXT    NOT NULL,
            referents   TEXT    NOT NULL DEFAULT '[]' {db.json_check.format(col='referents')},
            coder       TEXT    NOT NULL,
            layer       TEXT    NOT NULL DEFAULT 'coding',
            comment     TEXT    NOT NULL DEFAULT '',
            created_at  TEXT    NOT NULL,
            updated_at  TEXT    NOT NULL,
            deleted_at  TEXT,
            CHECK (scope <> 'span' OR (start_char >= 0 AND end_char > start_char AND utterance >= 0))
        )
        """,
        "CREATE INDEX IF NOT EXISTS annotations_by_place ON annotations (corpus, dialog_id, round, turn)",
        "CREATE INDEX IF NOT EXISTS annotations_by_codebook ON annotations (codebook, layer, coder)",
        f"""
        CREATE TABLE IF NOT EXISTS annotation_revisions (
            {db.id_column.replace('id ', 'revision_id ', 1)},
            annotation_id INTEGER NOT NULL REFERENCES annotations (id),
            action      TEXT    NOT NULL CHECK (action IN ('update', 'delete', 'restore')),
            label       TEXT    NOT NULL,
            referents   TEXT    NOT NULL,
            start_char  INTEGER,
            end_char    INTEGER,
            comment     TEXT    NOT NULL,
            coder       TEXT    NOT NULL,
            version_updated_at TEXT NOT NULL,
            recorded_at TEXT    NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS annotation_revisions_by_annotation ON annotation_revisions (annotation_id)",
        f"""
        CREATE TABLE IF NOT EXISTS queue_items (
            {db.id_column},
            queue       TEXT    NOT NULL,
            item_key    TEXT    NOT NULL,
            corpus      TEXT    NOT NULL,
            dialog_id   TEXT    NOT NULL,
            round       INTEGER,
            turn        INTEGER,
            coder       TEXT    NOT NULL,
            status      TEXT    NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'done')),
            position    INTEGER NOT NULL,
            created_at  TEXT    NOT NULL,
            done_at     TEXT,
            UNIQUE (queue, item_key, coder)
        )
        """,
        "CREATE INDEX IF NOT EXISTS queue_items_by_coder ON queue_items (queue, coder, status)",
    ]


def _v3_gold_decisions(db: Database) -> list[str]:
    """One row per adjudicated unit (a turn or dialog of a scope, or one utterance's spans) and codebook: who
    decided it and when. ``unit`` is the unit as JSON text ([scope, corpus, dialog_id, round, turn,
    utterance]), unique per codebook, so the database itself refuses a second decision of the same unit."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS gold_decisions (
            {db.id_column},
            codebook    TEXT    NOT NULL,
            unit        TEXT    NOT NULL,
            scope       TEXT    NOT NULL CHECK (scope IN ('dialog', 'turn', 'span')),
            corpus      TEXT    NOT NULL,
            dialog_id   TEXT    NOT NULL,
            round       INTEGER,
            turn        INTEGER,
            utterance   INTEGER,
            decided_by  TEXT    NOT NULL,
            decided_at  TEXT    NOT NULL,
            UNIQUE (codebook, unit)
        )
        """,
    ]


def _v4_changed_by(db: Database) -> list[str]:
    """Who made each change: ``changed_by`` (the acting identity's ``signature``, e.g. "alice@lab.example as
    alice", or "local user as alice") on every live row, copied with the version into its revision row when it
    is superseded, so each version in a history names who made it. Rows written before stay NULL (made before
    anyone was recorded); their author / coder columns, which attribute the work, are left as they were."""
    tables = ("notes", "note_revisions", "annotations", "annotation_revisions", "gold_decisions", "codebooks",
              "queue_items")
    return [f"ALTER TABLE {table} ADD COLUMN changed_by TEXT" for table in tables]


def _v5_ended_sign_ins(db: Database) -> list[str]:
    """Sign-ins ended by signing out (``SignOuts``): a sign-in cookie copied before its owner signed out is
    refused afterwards on every server of the deployment. Only a digest of the sign-in is kept."""
    return ["CREATE TABLE IF NOT EXISTS ended_sign_ins (sign_in TEXT PRIMARY KEY, ended_at TEXT NOT NULL)"]


def _v6_saved_slices(db: Database) -> list[str]:
    """Saved slices: a slice's canonical text with a name and a description, its owner (a coder name) and
    whether the team sees it (``shared``); deleting marks ``deleted_at``. The partial unique index makes a second
    live slice of one owner and name impossible even when two sessions save it at once."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS saved_slices (
            {db.id_column},
            name        TEXT    NOT NULL,
            description TEXT    NOT NULL DEFAULT '',
            slice       TEXT    NOT NULL,
            corpus      TEXT,
            owner       TEXT    NOT NULL,
            shared      INTEGER NOT NULL DEFAULT 0 CHECK (shared IN (0, 1)),
            created_at  TEXT    NOT NULL,
            updated_at  TEXT    NOT NULL,
            deleted_at  TEXT,
            changed_by  TEXT
        )
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS saved_slices_live_name ON saved_slices (owner, name) "
        "WHERE deleted_at IS NULL",
    ]


def _v7_plays(db: Database) -> list[str]:
    """Plays: a person playing one seat of a recorded dialog (``plays``: corpus, dialog, seat, player, how many steps
    it has and how many are done) and its events in order (``play_events``: one per completed step, its move as
    JSON). A player has one live play of a dialog and seat (the partial unique index); a step is one event
    (``UNIQUE (play_id, seq)``), so two tabs saving the same step cannot both succeed."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS plays (
            {db.id_column},
            corpus      TEXT    NOT NULL,
            dialog_id   TEXT    NOT NULL,
            seat        TEXT    NOT NULL,
            player      TEXT    NOT NULL,
            status      TEXT    NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
            n_steps     INTEGER NOT NULL CHECK (n_steps >= 1),
            steps_done  INTEGER NOT NULL DEFAULT 0 CHECK (steps_done >= 0 AND steps_done <= n_steps),
            created_at  TEXT    NOT NULL,
            updated_at  TEXT    NOT NULL,
            finished_at TEXT,
            changed_by  TEXT
        )
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS plays_live ON plays (corpus, dialog_id, seat, player) "
        "WHERE status = 'playing'",
        "CREATE INDEX IF NOT EXISTS plays_by_corpus ON plays (corpus, status, player)",
        f"""
        CREATE TABLE IF NOT EXISTS play_events (
            {db.id_column},
            play_id     INTEGER NOT NULL REFERENCES plays (id),
            seq         INTEGER NOT NULL CHECK (seq >= 1),
            step        INTEGER NOT NULL CHECK (step >= 1),
            role        TEXT    NOT NULL,
            kind        TEXT    NOT NULL,
            payload     TEXT    NOT NULL {db.json_check.format(col='payload')},
            at          TEXT    NOT NULL,
            changed_by  TEXT,
            UNIQUE (play_id, seq)
        )
        """,
    ]


def _v8_live_games(db: Database) -> list[str]:
    """Live games of two people (``LiveGames``): the corpus and item played, the two roles and who plays each (the
    second NULL until someone joins by the invitation, whose token is kept only as its SHA-256 ``token_digest``; a
    game a study's organiser creates has both roles open, the first one's invitation in ``first_token_digest``),
    what each role is shown of the item (``setup``, JSON) and how many events the game has (``n_events``, the
    next event's ``seq`` minus one) and how many bytes their payloads hold (``n_bytes``, bounded). Its events in
    order (``live_game_events``): who sent it in which role, its ``kind`` and ``payload`` (JSON), which role may
    see it (``visible_to``, NULL: both) and the sender's
    ``client_id``, unique per game, so a resent message is found rather than written twice (``request``: a digest
    of what was sent, before the game's rules put it in normal form, which tells a resend from another event)."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS live_games (
            {db.id_column},
            token_digest TEXT   NOT NULL UNIQUE,
            first_token_digest TEXT UNIQUE,
            corpus      TEXT    NOT NULL,
            item        TEXT    NOT NULL,
            first_role  TEXT    NOT NULL,
            second_role TEXT    NOT NULL CHECK (second_role <> first_role),
            first_player  TEXT,
            second_player TEXT,
            setup       TEXT    NOT NULL {db.json_check.format(col='setup')},
            status      TEXT    NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'playing', 'finished')),
            n_events    INTEGER NOT NULL DEFAULT 0 CHECK (n_events >= 0),
            n_bytes     INTEGER NOT NULL DEFAULT 0 CHECK (n_bytes >= 0),
            created_at  TEXT    NOT NULL,
            started_at  TEXT,
            finished_at TEXT,
            updated_at  TEXT    NOT NULL,
            changed_by  TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS live_games_by_first_player ON live_games (first_player, status)",
        "CREATE INDEX IF NOT EXISTS live_games_by_second_player ON live_games (second_player, status)",
        f"""
        CREATE TABLE IF NOT EXISTS live_game_events (
            {db.id_column},
            game_id     INTEGER NOT NULL REFERENCES live_games (id),
            seq         INTEGER NOT NULL CHECK (seq >= 1),
            role        TEXT    NOT NULL,
            player      TEXT    NOT NULL,
            kind        TEXT    NOT NULL,
            payload     TEXT    NOT NULL {db.json_check.format(col='payload')},
            visible_to  TEXT,
            client_id   TEXT    NOT NULL,
            request     TEXT    NOT NULL,
            at          TEXT    NOT NULL,
            changed_by  TEXT,
            UNIQUE (game_id, seq),
            UNIQUE (game_id, client_id)
        )
        """,
    ]


def _v9_live_consent(db: Database) -> list[str]:
    """The consent text shown before a person joins or creates a live game (``LiveConsent``): one immutable row per
    version an admin set (its ``id`` is the version; none yet: the app's default text, version 0), and who agreed
    to which version, when, and for which game (``live_consents``: one row per person and version, so an agreement
    given in two tabs at once is recorded once)."""
    return [
        f"""
        CREATE TABLE IF NOT EXISTS live_consent_texts (
            {db.id_column},
            text        TEXT    NOT NULL,
            created_at  TEXT    NOT NULL,
            changed_by  TEXT
        )
        """,
        f"""
        CREATE TABLE IF NOT EXISTS live_consents (
            {db.id_column},
            coder        TEXT    NOT NULL,
            text_version INTEGER NOT NULL CHECK (text_version >= 0),
            game         TEXT    NOT NULL,
            agreed_at    TEXT    NOT NULL,
            changed_by   TEXT,
            UNIQUE (coder, text_version)
        )
        """,
    ]


MIGRATIONS = [_v1_notes, _v2_coding, _v3_gold_decisions, _v4_changed_by, _v5_ended_sign_ins, _v6_saved_slices,
              _v7_plays, _v8_live_games, _v9_live_consent]
SCHEMA_VERSION = len(MIGRATIONS)
