"""The HTTP side of the port: ``/healthz``, the browser table's files (minified as
served), the refusals before the WebSocket, and the links a room's invitation gives."""
