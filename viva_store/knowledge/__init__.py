"""Knowledge: curated items with provenance, the admission gate, reuse evidence, the brief."""
