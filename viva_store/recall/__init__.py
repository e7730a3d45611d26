"""Recall's pure parts: query parsing, the three-factor score, snippets, engagement rules.

Nothing here touches the store; :mod:`viva_store.recall.search` and
:mod:`viva_store.engagement.service` do the I/O and call these functions.
"""
