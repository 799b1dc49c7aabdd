"""The rule-based bot: one compiled decision over the observation and the mask, for one game or a batch.

How it decides. Most scores share one yardstick, the *standing*: the expected worth of the own side minus a
blend of the leading opponent's and the average opponent's worth. A side is worth its Elder, its Protected Gubs
(a little under a point each, by how safe the Barricade is) and its Free Gubs (less, the more cards that can
take them are still unseen). Then, per kind of decision:

- **Draw** unless the top card is more likely to hurt than help, in chances of winning: the last Letter ends
  the game (welcome when ahead, fatal when behind) and Dangerous Alchemy wipes the own side; a player far ahead
  gains little from one more card and has much to lose.
- **Play** the use whose change in standing, plus follow-ups (a bared Gub the hand can then take, Gubs in a Ring
  the hand can free later), minus what the card is still worth kept (its *hold value*, shrinking with each Letter
  laid), is highest; "Go" scores 0, so plays that only help opponents are never made. A new Gub waits in hand
  when far ahead with a Super Lure unseen, or early on when many threats are unseen and the side already shows
  targets.
- **Answer a window** (cancel, flop, cure) when the harm prevented exceeds the answer card's cost, with a margin
  for plays aimed at someone else (the victim may answer) and the last Feather or Blindfold kept for a Super Lure
  still to come.
- **Ring picks** trap the Gub whose loss helps the own standing most (the leader's; the own only if forced);
  **Retreat** takes back Rings and Sud Spouts first; **Scout** orders the top cards for whoever draws them next;
  **Traveling Merchant** keeps the most valuable card; **discards** drop the least useful one.

Equal scores (within ``TIE_TOLERANCE``) are split by the player's own seeded generator. The numbers are in
:mod:`~agents.bots.heuristic.weights`; the observation is read in :mod:`~agents.bots.heuristic.view`, the scores are
:mod:`~agents.bots.heuristic.scoring`, the decision :mod:`~agents.bots.heuristic.decide`, all compiled by numba
(``NUMBA_DISABLE_JIT=1`` runs the same code as plain Python, for a debugger). ``python benchmarks/heuristic_speed.py``
times it.
"""

from agents.bots.heuristic.agent import HeuristicAgent

__all__ = ["HeuristicAgent"]
