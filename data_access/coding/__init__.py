"""Structured coding: codebooks, annotations, agreement, adjudication, queues (pure Python)."""
