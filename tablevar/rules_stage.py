"""The FISTF rules engine as a pipeline stage (``tablevar.pipeline.RulesStage``).

Each final per-frame record becomes a ``rules.observation.Observation``; the reducer
``rules.fistf.step`` keeps the match state, and ``clock_s`` / ``score`` read it.

The ball's uncertainty handed to the rules (``Observation.ball_uncertainty_mm``, the bound a
margin must exceed to be a confident call) is an expanded uncertainty::

    U = COVERAGE * sqrt(sigma_track ** 2 + sigma_line ** 2 + sigma_camera ** 2)

``sigma_track`` is the tracker's standard uncertainty of this record's ball position
(``tracking.ball.BallTrack.sigma_mm``: the standard error of a rest point, the Kalman
covariance of a rolling ball); ``sigma_line`` is the calibration's uncertainty of a line's
edge where a call reads it (``Calibration.line_sigma_mm``: how far the measured edges stray
from the model over a stretch of line about two balls long), an error of the mapping that no
averaging of frames removes; ``sigma_camera`` is the error of the parallax correction at the
ball's place (``Calibration.parallax_sigma_mm``): the ball's centre stands r above the cloth,
so where the camera's height is loose (a view nearly straight down pins the focal length, and
the height with it, only to its prior) the ground point is off by ``r * d / H * sigma_H / H``
at d from the nadir, plus ``r / H`` times the nadir's own error; averaging frames does not
remove it either. ``COVERAGE`` = 2 makes ``U`` cover about 95 % of normal errors along a
line's normal. Without a sigma the rules' default applies.

While motion has not settled which candidate is the ball (``TrackedFrame.ball_doubt_mm``: a
clip picked up with a ball of a kit's colour, say), the tracked one may be the wrong object
however precisely it is placed: ``U`` then grows by the distance to the farthest rival, and a
call on that ball is left to the referee. The doubt is a bound on a possible mix-up, not a
spread of errors, so it is added, not combined in quadrature; to the rules' default too,
where a frame has no sigma.

Which figures are the rod goalkeepers is the rules' word (``rules.keepers``). The frames go
in and out typed (``tablevar.tracked.TrackedFrame`` -> ``rules.observation.Observation`` ->
``rules.calls.Call``): no record is turned back into arrays here.

The figures' uncertainty (``Observation.figure_uncertainty_mm``, offside and the kick-off's
line-up) is the rules' default with, in quadrature, the expanded parallax error of a base's
rim (at the base's height) and the expanded error of a base's fit (``BASE_SIGMA_PX`` pixels
of the frame), each at the figure where it is largest.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules.calls import Call
from rules.fistf import MatchConfig, MatchState, close, step
from rules.fistf_ends import named
from rules.games import GameError, game
from rules.keepers import rod_goalkeepers
from rules.observation import Figures, Observation
from rules.pitch import Pitch
from tablevar.tracked import TrackedFrame

COVERAGE = 2.0  # expanded uncertainty = 2 standard uncertainties (about 95 %)
FIGURE_UNCERTAINTY_MM = 1.0  # the rules' own bound of a base's position (Observation's)
BALL_UNCERTAINTY_MM = 0.5  # ... and of the ball's

# Standard uncertainty of a base's fitted centre, pixels: a base's rim is read in the frame's
# pixels, so its error grows with the millimetres a pixel covers (a wide lens, a low
# resolution). Half the 95th percentile (0.56 px) of standing figures' errors over the stress
# benchmark's single-factor clips (``benchmarks/stress.py``).
BASE_SIGMA_PX = 0.3

# ``parallax(xy_mm (n, 2), z_mm) -> (n,)``: standard uncertainty, mm, of ground points of
# objects seen z_mm above the cloth, from the camera alone (``Calibration.parallax_sigma_mm``).
Parallax = Callable[[NDArray[np.float64], float], NDArray[np.float64]]
# ``mm_per_px(xy_mm (n, 2)) -> (n,)``: millimetres of cloth a pixel covers there
# (``CameraModel.mm_per_px``).
Scale = Callable[[NDArray[np.float64]], NDArray[np.float64]]


LIVE_GAMES = ("fistf", "button-football")  # games the live match referees (web.hub)


def refereed_live(pitch: Pitch) -> Pitch:
    """``pitch``, when the live match can referee its game (``LIVE_GAMES``; ``analyze``
    referees every game).

    Raises:
        rules.games.GameError: the table is for another game (one line).
    """
    if pitch.profile.game not in LIVE_GAMES:
        title = game(pitch.profile.game).title
        raise GameError(
            f"table {pitch.profile.name!r} is for {title}, which the live page does not "
            "referee yet (analyze a recording of it instead)"
        )
    return pitch


def ball_uncertainty_mm(
    sigma_mm: float, line_sigma_mm: float, camera_sigma_mm: float = 0.0, doubt_mm: float = 0.0
) -> float:
    """The expanded uncertainty of a ball's margin to a line, with the identity doubt (see the
    module docstring), mm."""
    return COVERAGE * math.sqrt(sigma_mm**2 + line_sigma_mm**2 + camera_sigma_mm**2) + doubt_mm


def frame_ball_uncertainty_mm(
    frame: TrackedFrame, pitch: Pitch, line_sigma_mm: float, parallax: Parallax | None
) -> float | None:
    """``ball_uncertainty_mm`` of a frame's ball at its place, with its identity doubt, mm;
    None without the tracker's sigma (the rules' default applies), or that default with the
    doubt: a frame placed afterwards where the tracker took a candidate up, which it had not
    measured there yet, is in the same doubt as the ball."""
    ball, camera = frame.ball, 0.0
    doubt = frame.ball_doubt_mm if ball is not None else 0.0
    if frame.ball_sigma_mm is None:
        return None if doubt == 0.0 else BALL_UNCERTAINTY_MM + doubt
    if ball is not None and parallax is not None:
        xy = np.array([[ball.x_mm, ball.y_mm]])
        camera = float(parallax(xy, pitch.profile.ball_radius_mm)[0])
    return ball_uncertainty_mm(frame.ball_sigma_mm, line_sigma_mm, camera, doubt)


class FistfRules:
    """The FISTF reducer (``rules.fistf.step``) as a pipeline stage.

    ``judge`` turns each final tracked frame into a ``rules.observation.Observation``, steps
    the match state it keeps and returns the frame with the teams the rules name and the calls;
    ``observation`` alone serves a match state kept elsewhere (the live match's). ``clock_s``
    and ``score`` read the state.
    """

    def __init__(
        self,
        pitch: Pitch,
        *,
        home_end: str = "left",
        line_sigma_mm: float = 0.0,
        start: str = "open_play",
        home_kit: int | None = None,
        parallax: Parallax | None = None,
        mm_per_px: Scale | None = None,
    ) -> None:
        """A new match on ``pitch``.

        Args:
            pitch: the pitch, with the measured line edges when calibrated.
            home_end: the end home defends in the first half.
            line_sigma_mm: the calibration's standard uncertainty of a line's edge
                (``Calibration.line_sigma_mm``), combined with each ball's own uncertainty.
            start: ``open_play`` (a recording may start anywhere: the rules start in open play
                and take a kick-off only when they see one set up) or ``kick_off`` (the referee
                starts the match from its kick-off); see ``rules.fistf_state.MatchConfig``.
            home_kit: vision's team index of the home team when it is known (configured);
                None: the rules learn which end each kit defends (``rules.fistf_ends``).
            parallax: the calibration's error of the parallax correction at a place
                (``Calibration.parallax_sigma_mm``); None: none (a camera of known height).
            mm_per_px: the camera's scale on the cloth at a place (``CameraModel.mm_per_px``),
                which a base's fit error grows with; None: the rules' own bound alone.
        """
        if pitch.profile.game != "fistf":
            raise GameError(
                f"table {pitch.profile.name!r} is for {game(pitch.profile.game).title}, "
                "not FISTF: use its own rules stage"
            )
        if not line_sigma_mm >= 0:
            raise ValueError(f"line_sigma_mm must be >= 0 mm, got {line_sigma_mm}")
        config = MatchConfig(
            pitch,
            home_end=home_end,
            start=start,  # type: ignore[arg-type]
            home_kit=home_kit,
        )
        self._state = MatchState.new(config)
        self._pitch = pitch
        self._line_sigma_mm = float(line_sigma_mm)
        self._parallax = parallax
        self._mm_per_px = mm_per_px
        self._last_figures: tuple | None = None  # (frame's Figures, with keepers, ids, unc)
        self._last_named: tuple | None = None  # (key, frame's Figures, named Figures)
        # (first frame, home kit) of each kit belief held so far: one entry per change
        self._kit_since: list[tuple[int, int]] = []

    def ball_uncertainty(self, frame: TrackedFrame) -> float | None:
        """The expanded uncertainty ``U`` (module docstring) of a frame's ball, mm, as the
        rules are told it; None without the tracker's sigma (the rules' default applies)."""
        return frame_ball_uncertainty_mm(frame, self._pitch, self._line_sigma_mm, self._parallax)

    def judge(self, frame: TrackedFrame) -> tuple[TrackedFrame, list[Call]]:
        """Step the match with one final frame: the frame with the rules' team names and
        the calls it made."""
        obs = self.observation(frame)
        self._state, calls = step(self._state, obs)
        kit = self._state.ends.home_kit
        if not self._kit_since or self._kit_since[-1][1] != kit:
            self._kit_since.append((frame.frame, kit))
        return replace(frame, figures=self._named(frame.figures, obs)), calls

    def finish(self) -> list[Call]:
        """The end of the recording: the notices the match still holds back, given now."""
        self._state, calls = close(self._state)
        return calls

    @property
    def names_changed(self) -> bool:
        """The belief about which kit is home changed after the first frame."""
        return len(self._kit_since) > 1

    def in_hindsight(self, record: dict[str, Any]) -> dict[str, Any]:
        """A written tracks.jsonl record, with its outfield figures named by the belief the
        match holds now instead of the one held at the time (a goalkeeper keeps its goal's
        name).

        A recording analysed as a whole is named by all its evidence: in a clip picked up in
        play the kits' places say little (``rules.fistf_ends``, 4), and names that change when
        a play on goal settles the ends would call one figure home, then away. Calls keep the
        names they were made with.
        """
        then = next((k for f, k in reversed(self._kit_since) if f <= record["frame"]), None)
        figs = record["figures"]
        if then is None or then == self._state.ends.home_kit or not figs:
            return record
        xy = [(f["x_mm"], f["y_mm"]) for f in figs]
        keeper = rod_goalkeepers(self._pitch, xy).tolist()
        swap = {"home": "away", "away": "home"}
        named = [
            f if k else dict(f, team=swap[f["team"]]) for f, k in zip(figs, keeper, strict=True)
        ]
        return dict(record, figures=named)

    def observation(self, frame: TrackedFrame) -> Observation:
        """The ``rules.observation.Observation`` of a final frame (for a match state kept
        elsewhere, such as the live match's)."""
        p = self._pitch.profile
        figures, ids, figure_unc = self._figures(frame.figures)
        ball = frame.ball
        unc = {}
        u = self.ball_uncertainty(frame)
        if u is not None:
            unc["ball_uncertainty_mm"] = u
            if ball is not None:
                unc["ball_doubt_mm"] = frame.ball_doubt_mm
        if figure_unc is not None:
            unc["figure_uncertainty_mm"] = figure_unc
        return Observation(
            t_s=frame.t_s,
            frame=frame.frame,
            ball_xy_mm=None if ball is None else (ball.x_mm, ball.y_mm),
            ball_radius_mm=p.ball_radius_mm,
            ball_moving=bool(ball and ball.moving),
            ball_switch_before_s=frame.ball_switch_before_s,
            **unc,
            figures=figures,
            contacts=tuple(c for c in frame.contacts if c.figure_id in ids),
        )

    def _named(self, figures: Figures, obs: Observation) -> Figures:
        """The frame's figures with the teams the rules give them (DESIGN.md section 4: the
        names in tracks.jsonl and in calls are the same): an outfield figure's kit named by
        the rules' belief about which kit defends which end, a goalkeeper by the goal it keeps
        (``rules.fistf_ends.named``), at the time of this frame. Built again only for new
        figures or a new belief."""
        key = (self._state.ends.home_kit, self._state.home_end)
        last = self._last_named
        if last is not None and last[0] == key and last[1] is figures:
            return last[2]
        out = replace(figures, team=named(self._state, obs).figures.team)
        self._last_named = (key, figures, out)
        return out

    def _figures(self, figures: Figures):
        """The observation's figures (with the rod goalkeepers marked), their ids and their
        uncertainty (None: the rules' default). The pipeline hands on the same ``Figures``
        while no figure moves: the work is done again only for new ones."""
        last = self._last_figures
        if last is not None and last[0] is figures:
            return last[1:]
        keepers = replace(figures, goalkeeper=rod_goalkeepers(self._pitch, figures.xy_mm))
        ids = set(figures.id.tolist())
        unc = None
        if len(figures) and (self._parallax is not None or self._mm_per_px is not None):
            xy, height = figures.xy_mm, self._pitch.profile.base_height_mm
            camera = 0.0 if self._parallax is None else float(np.max(self._parallax(xy, height)))
            fit = 0.0 if self._mm_per_px is None else float(np.max(self._mm_per_px(xy)))
            unc = math.hypot(
                FIGURE_UNCERTAINTY_MM, COVERAGE * camera, COVERAGE * BASE_SIGMA_PX * fit
            )
        self._last_figures = (figures, keepers, ids, unc)
        return keepers, ids, unc

    @property
    def state(self) -> MatchState:
        """The match state after the last frame (``rules.fistf_state.MatchState``)."""
        return self._state

    @property
    def clock_s(self) -> float:
        return self._state.clock.match_s(self._state.config.half_length_s)

    @property
    def score(self) -> tuple[int, int]:
        return self._state.score
