"""Launching a member in a harness: the projection rendered into the harness's places.

* :mod:`~viva_store.launch.render` — pure: the member's identity, principles, chosen
  skills and callback instructions as the text each harness reads (an instruction-file
  block, ``SKILL.md`` folders), and the command line.
* :mod:`~viva_store.launch.blocks` — pure: adding Viva's delimited block to a user's
  instruction file and taking it out again, byte for byte.
* :mod:`~viva_store.launch.files` — the only I/O on the user's folder: a journal first,
  then the writes; :func:`~viva_store.launch.files.restore` puts back exactly what was
  there, and a journal left by a crashed run lets ``viva launch --repair`` do it later.
* :mod:`~viva_store.launch.records` — the plan a dry run prints, the result a launch
  leaves (plain frozen records).
* :mod:`~viva_store.launch.register` — ``viva mcp`` registered in the harness for the
  session only: flags on its command line, no file written.
* :mod:`~viva_store.launch.process` — runs the harness in the foreground, passing
  SIGTERM/SIGHUP on to it, so the caller's ``finally`` always restores.
"""
