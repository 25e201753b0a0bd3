"""The table as the e-board of other apps: one module a protocol (Millennium ChessLink, DGT, Chessnut, the
Chess Peripheral Protocol) over one shared core that knows the table (:mod:`.core`), the transports
(serial, Bluetooth LE) apart, as pyserial keeps its URL handlers apart.

A protocol is pure logic over bytes: it hears what the app sends (:meth:`.core.EboardProtocol.received`),
answers through the transport's ``send``, reports the position the table knows
(:meth:`.core.EboardProtocol.report`) in its own format, and tells the table what the app showed or asked
for (:class:`.core.AppListener`): the LEDs it lit, a move it named, a position it wants, a new game.
"""
