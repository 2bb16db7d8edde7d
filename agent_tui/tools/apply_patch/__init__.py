"""``apply_patch``: the Codex ``*** Begin Patch`` format, parsed, verified, applied in order."""
