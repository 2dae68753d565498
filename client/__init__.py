"""Terminal client for the War server."""
