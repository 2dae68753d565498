"""Every message of the protocol, both directions: frozen, slotted, keyword-only dataclasses.

On the wire each message is a msgpack map: ``{"type": <TYPE>, <field>: <value>, ...}``.
Tuples travel as arrays, records (``RulesSpec``, ``RoomState``…) as maps, enums as their
string values, None as nil. A field with a default may be left out on the wire (the
default applies); a field without one is required.

Client → server (:data:`ClientMessage`, in :mod:`protocol.client_messages`):
    opening (the first message of a connection, each carries ``v``, the protocol version):
    ``create_room``, ``join_room``, ``watch_room``, ``resume_seat``, ``look_up``,
    ``second_path``;
    then: ``ready``, ``set_auto_play``, ``vote_finish``, ``rematch``, ``leave``, ``resync``.

Server → client (:data:`ServerMessage`, in :mod:`protocol.server_messages`): ``welcome``,
``snapshot``, room changes, game events (mirroring the engine's events), ``game_over`` and
``error``. Every server message except ``error`` carries ``seq``: the room's message
sequence number. Room messages (everything but ``welcome``, ``snapshot`` and ``error``)
are broadcast to the whole room and each takes the next ``seq`` (+1). ``welcome`` and
``snapshot`` go to one connection and carry the ``seq`` of the last room message their
``state`` includes, so the next room message a client gets has ``seq`` one higher; a jump
means messages were missed → send ``resync``.
"""

from __future__ import annotations

from protocol.client_messages import (
    CLIENT_MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    ClientMessage,
    Commit,
    CreateRoom,
    JoinRoom,
    Leave,
    LookUp,
    React,
    Ready,
    Rematch,
    ResumeSeat,
    Resync,
    Say,
    SecondPath,
    SetAutoPlay,
    VoteFinish,
    WatchRoom,
)
from protocol.server_messages import (
    SERVER_MESSAGE_TYPES,
    AutoPlayChanged,
    CardsLaidDown,
    CardsReturned,
    CardsTaken,
    CardsTurned,
    ConnectionChanged,
    DealVoided,
    Error,
    FinishVoted,
    GameOver,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PlayerOut,
    Reacted,
    ReadyChanged,
    RematchVoted,
    RoomInfo,
    Said,
    SecondPathReady,
    ServerMessage,
    Snapshot,
    SpectatorsChanged,
    TimeUp,
    WaitingFor,
    WarDeclared,
    Welcome,
)

__all__ = [
    "CLIENT_MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGE_TYPES",
    "SUPPORTED_VERSIONS",
    "AutoPlayChanged",
    "CardsLaidDown",
    "CardsReturned",
    "CardsTaken",
    "CardsTurned",
    "ClientMessage",
    "Commit",
    "ConnectionChanged",
    "CreateRoom",
    "DealVoided",
    "Error",
    "FinishVoted",
    "GameOver",
    "GameStarted",
    "JoinRoom",
    "Leave",
    "LookUp",
    "Message",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerOut",
    "React",
    "Reacted",
    "Ready",
    "ReadyChanged",
    "Rematch",
    "RematchVoted",
    "ResumeSeat",
    "Resync",
    "RoomInfo",
    "Said",
    "Say",
    "SecondPath",
    "SecondPathReady",
    "ServerMessage",
    "SetAutoPlay",
    "Snapshot",
    "SpectatorsChanged",
    "TimeUp",
    "VoteFinish",
    "WaitingFor",
    "WarDeclared",
    "WatchRoom",
    "Welcome",
]

Message = ClientMessage | ServerMessage
"""Any message."""
