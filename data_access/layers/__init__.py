"""Published annotation layers on top of the corpora, in one common annotation form.

Two layers are supported, each read from its published file and linked to the corpus it annotates:

``gos-mentions`` (``gos-mentions.jsonl``; Willemsen, Qian & Skantze, SIGDIAL 2023)
    Referring expressions in A Game Of Sorts messages: per message (interaction_id, round_number,
    message_number) a list of mentions with character offsets into the message's ``body_text``, whether the
    mention names one image (``single``) and the board images it refers to. See ``corpora.gos.data.mentions_layer``.
``codraw-icr`` (``icr-codraw-data.tsv``; Madureira & Schlangen, EACL 2023)
    Instruction clarification requests in CoDraw: rows of (previous Teller message, Drawer message, next
    Teller message, is CR?, impossible to know?) without ids, aligned to CoDraw (dialog, round) by their
    normalised text. See ``corpora.codraw.data.icr_layer``.

Each layer's reading and alignment belong to the corpus it annotates: its package hands the layer's module out
(``annotation_layer(name)``, an optional member of the corpus contract) and ``layer_module`` asks the package
whose ``LAYERS`` names the layer, and so do what the pages show of it (``codraw.icr_analysis``,
``gos.mentions_analysis``, ``gos.mentions_view``, the charts in each package's ``figures``). This package holds
what is corpus-free: the tables of the layers, where their files come from and loading them (``load``), and the
store's coded labels in the common form (``coded``).

The common annotation form
--------------------------
Both layers are exposed as a pandas frame with exactly ``ANNOTATION_COLUMNS`` first (layer-specific columns
may follow), one row per annotation, so a coder's own coding can be compared with a published layer:

=============  ==========  ===================================================================================
column         dtype       meaning
=============  ==========  ===================================================================================
corpus         str         the annotated corpus's name (as in every other frame)
dialog_id      str         interaction id / CoDraw dialog key
round          Int64       the A Game Of Sorts round (1..4); <NA> for CoDraw, exactly as in the ``utterances``
                           frame, so (corpus, dialog_id, round, turn) is the same deep link as there
turn           Int64       the replay step of the annotated message: A Game Of Sorts, the step within its round;
                           CoDraw, the round (1-based) whose Drawer message is annotated
message        Int64       the message's own key in the corpus: A Game Of Sorts ``message_number`` (within the
                           round); CoDraw, the round number again (one Drawer message per round)
role           str         who wrote the annotated message (Player A / Player B, Drawer)
start, end     Int64       character offsets of a span into the message text, end exclusive, as published
                           (never shifted); <NA> for a label on the whole message (CoDraw CRs)
text           str         the span's text (the mention) or the whole annotated message
label          str         ``mention`` (gos-mentions); ``CR`` / ``not CR`` (codraw-icr)
referents      list[str]   what the span refers to: board image ids (gos-mentions); empty for CRs
source         str         the layer name (``gos-mentions`` / ``codraw-icr``) or, for coded data, the coder
record         str         where the annotation came from: "<file> line N" (mention k)
=============  ==========  ===================================================================================

Layer-specific columns: gos-mentions ``single`` (bool) and ``span_ok`` (the offsets fit the message text and
select exactly the mention); codraw-icr ``is_cr`` (bool), ``impossible`` (bool) and ``split``.

Spans whose offsets do not fit the message text are kept with ``span_ok`` False and counted as
``spans_out_of_range``; they are never moved to where the mention text happens to occur.

Where layers come from: ``DIALOGUE_LAYERS_DIR`` names a folder holding the files under their published names
(``LAYER_FILES``). Unset, the demo corpora come with small generated demo layers (each layer module's
``demo_lines``, written once by ``load.demo_layer_path``).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, cast

from ..annotation_form import ANNOTATION_COLUMNS  # the common form, below the corpus packages that yield it

if TYPE_CHECKING:
    from ..contract import AnnotationLayer

LAYER_NAMES = ("gos-mentions", "codraw-icr")
LAYER_FILES = {"gos-mentions": "gos-mentions.jsonl", "codraw-icr": "icr-codraw-data.tsv"}


class _LayerCorpus(Mapping):
    """layer name -> the corpus it annotates: the registered corpus package whose ``LAYERS`` names it."""

    def _all(self) -> dict[str, str]:
        from ..registry import CorpusAttribute

        return {layer: name for name, layers in CorpusAttribute("LAYERS", missing=()).items() for layer in layers}

    def __getitem__(self, layer: str) -> str:
        return self._all()[layer]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


LAYER_CORPUS: Mapping[str, str] = _LayerCorpus()
LAYER_TITLES = {"gos-mentions": "A Game Of Sorts mentions (Willemsen et al., SIGDIAL 2023)",
                "codraw-icr": "CoDraw instruction clarification requests (Madureira & Schlangen, EACL 2023)"}
DEMO_VERSION = 1


def layer_module(layer: str) -> AnnotationLayer:
    """The module that reads and links ``layer`` (one of ``LAYER_NAMES``), typed by the contract: the one the
    package of the corpus it annotates hands out (its ``annotation_layer``)."""
    from ..contract import optional
    from ..registry import layer_corpus

    if layer not in LAYER_NAMES:
        raise ValueError(f"unknown layer {layer!r}; expected one of {', '.join(LAYER_NAMES)}")
    package = layer_corpus(layer)
    module_of = optional(package, "annotation_layer")
    if module_of is None:
        raise ValueError(f"{package.TITLE} names the layer {layer!r} but offers no annotation_layer to read it")
    return cast("AnnotationLayer", module_of(layer))


__all__ = ["LAYER_NAMES", "LAYER_FILES", "layer_module", "LAYER_CORPUS", "LAYER_TITLES", "ANNOTATION_COLUMNS", "DEMO_VERSION"]
