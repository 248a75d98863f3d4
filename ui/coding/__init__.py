"""Coding: the coding panel beside the replay, notes, codebooks, the Agreement page's sections and a model's
imported labels."""
