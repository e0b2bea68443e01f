"""fibsbot's FIBS side: protocol parsing, session, player, server and tournaments."""
