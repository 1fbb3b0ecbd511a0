"""The pure core of tablevar: the pitch model in millimetres and the rules of each game.

Nothing here touches pixels, files or the wall clock; only the standard library and numpy.

Public API (see docs/rules.md for the laws and how each is decided):

- ``rules.profile.TableProfile`` and ``rules.pitch.Pitch``: the table in mm.
- ``rules.observation``: ``Observation`` (one frame: ball, ``Figures``, ``Contact``\\ s),
  ``HOME``/``AWAY``.
- ``rules.fistf``: ``MatchConfig``, ``MatchState.new(config)``,
  ``step(state, observation) -> (state, calls)``, ``add_time``, ``referee_decision``. A match
  starts in open play (``MatchConfig.start``) unless a kick-off is seen set up
  (``rules.fistf_kickoff``) or the referee starts it from its kick-off.
- ``rules.fistf_ends``: which end each kit defends, a belief with evidence; calls name the teams
  by the ends (``home`` defends ``MatchConfig.home_end``).
- ``rules.calls.Call``: one decision; ``Call.to_record()`` is a ``calls.jsonl`` line.
- ``rules.clock``: the match clock (``ball-moving`` or ``running``).
- ``rules.geometry``: predicates (fully crossed margins, goals, shooting zone, offside
  distances).
- ``rules.offside``: the offside comparisons of every figure (13.1), for the reducer and for
  questions about any frame; ``rules.keepers``: which figures are the rod goalkeepers.
- ``rules.referee``: ``apply(state, action)``, the referee's word; ``awaiting_decision(state)``:
  the too-close calls the referee may uphold or reject now.
- ``rules.notation``: ``parse_observation`` / ``format_observation``, one frame as one line.
- ``rules.games``: the games as plug-ins (profile sections, objects, reducer, clock, labels);
  ``game(name)``.
- ``rules.button_football``: button football (docs/button-football.md), ``ButtonState``,
  ``ShotCall``, ``step(state, input) -> (state, calls)``.
"""
