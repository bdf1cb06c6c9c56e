"""League training: a learner that meets opponents who punish, plus the exploiters that find its holes.

Self-play against itself and its bfg-grown ancestor taught the shipped policy to sacrifice
recklessly, because none of those opponents doubles for penalty. The remedy of population
training (Lockhart et al. 2020 and Qiu et al. 2024 give the base): the learner meets, deal by deal,
a mixture of

- ``self``: its current self (greedy); ``selfx``: the same with the penalty-double layer
  (``engine.doubles``, the rule every ``doubles=on`` agent uses);
- ``init``: the model it started from; ``initx``: that model with the layer;
- ``snap``: a past generation's snapshot;
- ``oracle``: its current self with a doubler that sees all four hands and doubles whenever the
  contract goes down double-dummy (training only: an upper bound on punishment, never alone);
- ``exploit``: an exploiter of an earlier generation;
- ``bfg``, ``bfgx``: the bfg rule bidder, plain and with the layer. Every network above grew from
  bfg's imitation and sacrifices like our policy; without a sound bidder in the mix the learner
  learns to double everything (measured: the first generation trained without bfg lost to bfg).
  bfg runs in Python (about a millisecond a call), so it costs a few seconds per iteration.
- ``field``: EPBot with one of the ``--field`` cards per deal (:mod:`models.field`; the 16
  training cards by default, never the report cards WBridge5-Sayc and WBridge5-21GF), a bidder
  that plays a natural system well (issue 43). Not in the default mix, which runs without EPBot:
  ``FIELD_MIX`` (docs/evaluation.md) is the recommended one; a mix that asks for it without
  ``$BRIDGEBOT_EPBOT`` fails in one line. The cards are drawn per deal from
  (seed, generation, iteration), so a resumed run draws the same.

Each generation first trains an exploiter of the current learner (RL with a fixed budget against
the frozen learner, starting from its weights; its only aim is to beat it), then trains the
learner for a fixed number of iterations against the mixture, then freezes a snapshot. Doubles and
redoubles stay explored: the learner samples from its policy mixed with a floor ``explore`` on the
legal X/XX calls, decaying to zero over ``explore_gens`` generations (PPO's ratio is taken
against that behaviour distribution). Rewards are duplicate IMPs of DD-scored contracts, doubled
and redoubled ones scored by ``laws.scoring.score_array``. Per iteration the log records how
often the learner's contracts were doubled and what the failed ones cost.

With ``--convention SPEC`` the learner's pair, and every frozen copy of the network, plays the
slam layer and asking convention of that agent on top of the network; with ``--estimators-lr``
the layers' estimators learn in the loop too (:mod:`models.convention`).

Each generation's snapshot is read greedily on the validation deals (``eval`` in the log and in
``OUT/gen{g}.pt``): against its start (``vs_init``, ``vs_initx``), the last exploiter and, with
the field in the mix, against the field (``vs_field``, and ``field_gain``: minus its start on the
same deals and cards). Only the last two read what a model is chosen by, and at 1,000 deals
only coarsely: run 27 (docs/evaluation.md) saw ``vs_init`` climb by +0.10 to +0.38 while the
field read the learner 0.1 to 0.25 lower on validation, and ``field_gain`` sit 0.10 to 0.16
above validation; a generation is chosen there (``benchmarks/bench_field.py``).

``OUT/ckpt.pt`` holds everything (phase, weights, optimisers, pool, history) and is rewritten every
``save_minutes``; rerunning the same command resumes. ``OUT/gen{g}.pt`` and ``OUT/exploiter{g}.pt``
are loadable by ``bridgebot export``.

The modules, by job: :mod:`.mix` (the mixture's kinds and ``--mix``, the field's cards, the
league's error), :mod:`.choosers` (the learner, frozen networks with their layers, the penalty
doubles or the oracle, bfg), :mod:`.rl` (one PPO iteration and its doubled-contract accounting),
:mod:`.exploiters` (``train exploit`` and each generation's exploiter), :mod:`.data` (the deals,
the curriculum), :mod:`.evaluation` (greedy reads on fixed deals) and :mod:`.run` (the run, its
phases and checkpoints: ``train league``). This package's ``__init__`` imports none of them.
"""
