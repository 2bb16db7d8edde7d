"""Input: admission, promotion eligibility, and prompts with their attachments as durable parts (DESIGN §4)."""
