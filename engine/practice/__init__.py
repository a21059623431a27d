"""Practice: what a session asks, the running session, and the saved progress."""
