"""bridgebot: the application shell (command line) over protocol, server, engine, models, tournament."""
