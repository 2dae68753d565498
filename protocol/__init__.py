"""The wire protocol: message types, one strict codec, and errors. No I/O."""
