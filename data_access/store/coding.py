"""Codebooks, annotations and coding queues in the same store as the notes (SQLite or PostgreSQL): the facade
``CodingStore`` over its parts, one module per concern (``codebooks``, ``annotations`` with their revisions,
``model_import``, ``gold``, ``queues``; the rows they share in ``annotation_rows``).

An annotation is one label of one codebook version, put by one coder on
- a dialog (``scope="dialog"``: round/turn None, or round set for a Game Of Sorts round),
- a turn (``scope="turn"``: the replay step, as in deep links), or
- a span of one utterance (``scope="span"``: ``utterance`` is its 0-based position among the utterances of that
  turn — CoDraw: 0 Teller, 1 Drawer — and ``start``/``end`` character offsets into its text, end exclusive),
optionally with referents (ids of what the span names: ``clipart:<index>`` of the CoDraw target scene, Game Of
Sorts image ids, ``block:x,y,z`` of the Minecraft target). ``layer`` is ``coding`` for coders' work and
``gold`` for adjudicated annotations.

Every write is one transaction; each annotation carries a ``uid`` chosen by the writer, so a retried write
never makes a duplicate. Edits keep the previous version in ``annotation_revisions``; deletes are soft.
Notes are listed as annotations of kind ``note`` (``annotations(include_notes=True)``), read through the
``NotesStore`` this store is given (composed, sharing its database), not inherited from it.

A model's labels are imported as a coder of its own (``model:<name>``, ``replace_model_annotations``): one
transaction replaces that model's earlier labels of the codebook in the corpus; no person may code as
``model:…``.

The gold layer holds one decision per unit (``decide_gold``): a row of ``gold_decisions`` per unit and
codebook, written in the same transaction as the unit's gold annotations; a decision made on a stale view of
the unit is refused (``GoldConflict``, naming who decided and when).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from ..access import MODEL_CODER_PREFIX
from ..layers.coded import to_common_form
from .annotation_rows import (
    ANNOTATION_FRAME_COLUMNS,
    CODED_COLUMNS,
    GOLD_LAYER,
    INSERT_COLUMNS,
    LAYERS,
    MODEL_UID_PREFIX,
    AnnotationConflict,
    AnnotationNotFound,
)
from .annotations import AnnotationTables
from .database import Database
from .gold import NO_DECISION, GoldConflict, GoldDecision, GoldDecisions, GoldUnit
from .model_import import ModelLabelImport
from .notes import NotesStore, open_migrated
from .queues import QUEUE_COLUMNS, CodingQueues

__all__ = ["ANNOTATION_FRAME_COLUMNS", "CODED_COLUMNS", "GOLD_LAYER", "INSERT_COLUMNS", "LAYERS", "MODEL_CODER_PREFIX",
           "MODEL_UID_PREFIX", "NO_DECISION", "QUEUE_COLUMNS", "AnnotationConflict", "AnnotationNotFound",
           "CodingStore", "GoldConflict", "GoldDecision", "GoldUnit", "to_common_form"]


class CodingStore(AnnotationTables, ModelLabelImport, GoldDecisions, CodingQueues):
    """Codebooks, annotations, gold decisions and queues in the store at ``target`` (a path, a URL, or an open
    ``Database``); ``notes`` is the notes store listed with ``include_notes`` (default: one on the same database).

    Every write takes the acting identity (``actor``) and checks it in its transaction (``data_access.access``):
    coders write their own annotations and queue items (by the *stored* coder for edits), the gold layer needs an
    adjudicator, codebooks and queues an admin. With ``sign_in`` a write without a signed-in actor is refused;
    without, a missing actor is the local user writing as the coder the call names."""

    def __init__(self, target: Union[str, Path, Database, None] = None, notes: Optional[NotesStore] = None, *,
                 sign_in: bool = False):
        self.sign_in = sign_in
        self.notes_store = notes if notes is not None else NotesStore(open_migrated(target), sign_in=sign_in)
        self.db: Database = self.notes_store.db
        self.path = self.notes_store.path
        self.location = self.notes_store.location
