"""The location's files: git-tree snapshots, pre-images of what a patch will change, and restoring files (DESIGN §14)."""
