"""One room, sans-I/O: its state machine (`phases`), its table and seats, the game's play,
arrivals and takeovers, talk, the fair deal, the view everyone sees, and what it is stored
as (`records`)."""
