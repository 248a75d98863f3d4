"""Replaying a dialog: the step player, the dialog picker, the transcript, the compact replay state of Compare and
Present, the generic replay of a corpus without views of its own, prefetching the neighbouring steps and the
Present page's presentation mode."""
