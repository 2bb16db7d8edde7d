"""Local HTTP API over the Sessions facade."""
