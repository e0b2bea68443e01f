"""fibsbot: the FIBS client, the local FIBS-compatible server, tournaments and the CLI."""
