"""The laws of bridge and the board conventions, once.

Pure functions over ``endplay``'s types, with numpy twins beside the scalar forms where whole
batches need them (tested equal). This package imports nothing else of the project; everything
else imports it.

- :mod:`~bridgebot.laws.calls`: the 38 calls, legal calls, end of auction, final contract;
- :mod:`~bridgebot.laws.play`: legal cards, trick winner;
- :mod:`~bridgebot.laws.boards`: the 16-board dealer and vulnerability cycle, vulnerable sides;
- :mod:`~bridgebot.laws.cards`: the card layout of every array (``owners``) and its conversions;
- :mod:`~bridgebot.laws.deals`: the one seeded deal stream of every command;
- :mod:`~bridgebot.laws.scoring`: duplicate scores and IMPs;
- :mod:`~bridgebot.laws.event_scoring`: victory points, matchpoints, Butler;
- :mod:`~bridgebot.laws.notation`: the text of calls, cards, contracts and vulnerability in records.
"""
