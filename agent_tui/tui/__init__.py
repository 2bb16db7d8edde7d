"""The Textual app. Talks to core only through the Sessions facade and the bus."""
