"""Local tools (read, bash, apply_patch, todo), their registry and permissions."""
