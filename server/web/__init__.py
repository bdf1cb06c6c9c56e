"""The browser pages (docs/web.md): a person at the table, the page of ``bridgebot seat --agent
human`` and ``bridgebot play``; and the live tables of ``bridgebot tm`` and ``bridgebot match``
(``--web-port``, :mod:`.spectator`). The web layer is an asyncio shell like the seat client and
the table manager; ``protocol`` and ``engine`` know nothing of it."""
