"""LiteLLM adapter. Importing this package must not import LiteLLM."""
