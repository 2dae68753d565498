"""war-client's connection to a room: opening, following, reconnecting (the policy), the
seat tokens kept on disk, TLS, a local server, and what a key press sends."""
