"""The live match's rules as the driver's ``Referee``: observations from the game's rules stage
(``FistfRules``, ``ButtonRules``: which pieces are keepers, which kit is home), the match state
in the hub.

The hub keeps the one match state (``web.match.LiveMatch``), which the referee's controls change
too and which outlives a recalibration; each frame's observation goes through it, and its calls
are logged before they reach the page (with their evidence, ``tablevar.live_media``).
"""

from __future__ import annotations

from calibration.calibration_file import Calibration
from rules.calls import Call
from rules.pitch import Pitch
from tablevar.button_stage import ButtonRules
from tablevar.rules_stage import FistfRules
from tablevar.tracked import TrackedFrame
from web.hub import MatchHub


class LiveReferee:
    """Judges frames into the hub's live match, on the calibrated pitch."""

    def __init__(self, hub: MatchHub, pitch: Pitch, calibration: Calibration | None) -> None:
        cal = calibration
        pitch = cal.called_pitch(pitch) if cal else pitch
        sigma = cal.line_sigma_mm if cal else 0.0
        parallax = cal and cal.parallax_sigma_mm
        if pitch.profile.game == "button-football":
            self._rules = ButtonRules(pitch, line_sigma_mm=sigma, parallax=parallax)
        else:
            scale = cal and cal.camera.mm_per_px
            self._rules = FistfRules(pitch, line_sigma_mm=sigma, parallax=parallax, mm_per_px=scale)
        self._hub = hub
        hub.use_pitch(pitch)

    def judge(self, frame: TrackedFrame) -> tuple[TrackedFrame, list[Call]]:
        """The frame through the live match: logged now, shown with their evidence."""
        return frame, self._hub.observe(self._rules.observation(frame), publish=False)
