"""A corpus ready for word statistics: the token index and the per-message facts the filters read, built
together from the same utterances (one row order), plus the one call that turns filters into a mask."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .subcorpus import Filters, message_facts, select_codes, subcorpus_mask
from .tokens import TokenIndex


@dataclass(eq=False)
class WordCorpus:
    index: TokenIndex
    facts: pd.DataFrame

    @classmethod
    def build(cls, utterances: pd.DataFrame, dialogs: dict[str, pd.DataFrame], round_outcomes=None, cr_labels=None,
              mentions=None, prepare: bool = True) -> "WordCorpus":
        frame = utterances.reset_index(drop=True)
        index = TokenIndex.build(frame)
        if prepare:
            index.prepare()
        return cls(index, message_facts(frame, dialogs, round_outcomes, cr_labels, mentions))

    def mask(self, filters: Filters, annotations: Optional[pd.DataFrame] = None,
             within: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        """The messages ``filters`` select (None when no filter is set: every message). ``annotations``: the
        coding store's annotations, read only when a code filter is set; ``within``: the messages of the dialogs
        of ``filters.slice`` (the caller evaluates the slice), or None for no slice."""
        if filters.is_empty() and within is None:
            return None
        mask = subcorpus_mask(self.facts, filters, select_codes(annotations, filters) if filters.code_label else None)
        return mask if within is None else mask & within
