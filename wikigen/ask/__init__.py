"""Answering and evaluation: the page index, scope, context, retrieval, answers, batches, scoring."""
