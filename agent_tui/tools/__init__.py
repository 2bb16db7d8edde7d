"""Local tools (read, bash, apply_patch), their registry and permissions."""
