"""Recall's pure parts: query parsing, the three-factor score, snippets, engagement rules.

Nothing here touches the store; :mod:`viva_store.services.recall` and
:mod:`viva_store.services.engagement` do the I/O and call these functions.
"""
