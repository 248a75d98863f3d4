"""Where the coding store was imported from before it moved into ``data_access.store`` (kept for importers
elsewhere; new code imports ``data_access.store``)."""
from ..store.coding import (
    ANNOTATION_FRAME_COLUMNS,
    LAYERS,
    QUEUE_COLUMNS,
    AnnotationConflict,
    AnnotationNotFound,
    CodingStore,
    to_common_form,
)

__all__ = ["ANNOTATION_FRAME_COLUMNS", "LAYERS", "QUEUE_COLUMNS", "AnnotationConflict", "AnnotationNotFound",
           "CodingStore", "to_common_form"]
