"""Where each layer comes from, and loading it against a loaded corpus.

``DIALOGUE_LAYERS_DIR`` names a folder holding the layers under their published names (``LAYER_FILES``).
Unset, a layer over a demo corpus is the generated demo layer (``demo``, written once into the cache folder
like the demo corpora); over a real corpus it is simply absent, with the reason saying what to set.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..common import LoadedCorpus, SourceError
from ..registry import layer_corpus
from ..sources import Source, cache_dir, configured_source
from ..types import LoadedLayer as LoadedLayer  # the value type, where every layer's module finds it
from . import DEMO_VERSION, LAYER_FILES, LAYER_NAMES, layer_module

if TYPE_CHECKING:
    pass

LAYERS_VARIABLE = "DIALOGUE_LAYERS_DIR"


@dataclass(frozen=True)
class LayerSource:
    layer: str
    path: Optional[Path]  # the layer file; None when no layer is configured for this corpus
    is_demo: bool
    reason: str = ""  # why there is no layer (path None)


def layers_dir() -> Optional[Path]:
    value = os.environ.get(LAYERS_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


def demo_layer_path(layer: str, cache_root: Optional[Path] = None) -> Path:
    """The generated demo layer over the demo corpus, written on first use (atomically)."""
    from ..corpora import demo_folder

    package = layer_corpus(layer)
    root = Path(cache_root or cache_dir()) / "demo"
    folder = root / f"layer-{layer}-v{DEMO_VERSION}-{package.NAME}-v{package.DEMO_VERSION}"
    if not folder.is_dir():
        corpus_path = demo_folder(package, cache_root)
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=root))
        lines = layer_module(layer).demo_lines(Path(corpus_path))
        (tmp / LAYER_FILES[layer]).write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            os.replace(tmp, folder)
        except OSError:  # another process won the race; its copy is identical
            shutil.rmtree(tmp, ignore_errors=True)
    return folder / LAYER_FILES[layer]


def configured_layer(layer: str, corpus_source: Optional[Source] = None, cache_root: Optional[Path] = None) -> LayerSource:
    if layer not in LAYER_NAMES:
        raise ValueError(f"unknown layer {layer!r}; expected one of {', '.join(LAYER_NAMES)}")
    folder = layers_dir()
    if folder is not None:
        return LayerSource(layer, folder / LAYER_FILES[layer], False)
    source = corpus_source or configured_source(layer_corpus(layer))
    if source.is_demo:
        return LayerSource(layer, demo_layer_path(layer, cache_root), True)
    return LayerSource(layer, None, False, f"{LAYERS_VARIABLE} is not set; set it to the folder holding {LAYER_FILES[layer]}")


def load_layer(layer: str, loaded: LoadedCorpus, path: Path | str, is_demo: bool = False) -> LoadedLayer:
    """Read ``path`` as ``layer`` and link it to ``loaded``; raises SourceError naming the file."""
    started = time.perf_counter()
    module = layer_module(layer)  # ValueError for an unknown layer
    try:
        content = module.layer_content(loaded, Path(path))
        result = LoadedLayer(layer, str(path), is_demo, content.annotations, content.figures, rows=content.rows,
                             skipped=content.skipped, unmatched=content.unmatched)
    except SourceError:
        raise
    except (OSError, UnicodeError) as exc:
        raise SourceError(path, f"cannot be read ({type(exc).__name__}: {exc})") from exc
    result.load_seconds = time.perf_counter() - started
    return result
