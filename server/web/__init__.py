"""A person at the table: the browser page of ``bridgebot seat --agent human`` and ``bridgebot play``
(docs/web.md). The web layer is an asyncio shell like the seat client and the table manager;
``protocol`` and ``engine`` know nothing of it."""
