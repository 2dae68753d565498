"""What this seat (or spectator) knows of the room: the view state, its reducer, and the
phase table of which command may be sent when."""
