"""War game server: engine, random stream, rooms, store and the WebSocket app."""
