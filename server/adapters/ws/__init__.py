"""The WebSocket side: the app that carries connections to the Hub, each connection's
bounded memory and waits, the outbox of sends, and the batch of hub calls per commit."""
