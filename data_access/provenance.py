"""Where to obtain each corpus (and its images or clip art) and how to cite it, for the Data page and the
README. Each corpus package holds its own as static text (its ``PROVENANCE``), never read from a file; the links
and references are the ones the corpora's own releases give (their README and reference.bib)."""
from __future__ import annotations

from collections.abc import Mapping

from .common import CorpusAttribute
from .types import Provenance

# corpus name -> its provenance, held by each corpus package (its ``PROVENANCE``).
PROVENANCE: Mapping[str, Provenance] = CorpusAttribute("PROVENANCE")
