"""war-client's connection to a room: opening, following, reconnecting (the policy), why
connecting failed, the seat tokens kept on disk, TLS, a local server, and what a key press
sends."""
