"""The front desk of every room: the hub, the rooms it holds, their directory and codes'
lookup, who may create or open one, deadlines, and the play-out queue. Sans-I/O, like all
of `server.core`: what the store must write goes out with each call's result."""
