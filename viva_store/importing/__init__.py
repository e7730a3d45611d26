"""Recovering sessions: harness readers, the pipeline, batches, writes."""
