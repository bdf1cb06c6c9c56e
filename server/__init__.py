"""asyncio shells: the table manager (server side) and the seat client (client side)."""
