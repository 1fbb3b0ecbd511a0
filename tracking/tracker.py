"""One object that tracks everything on the table: ball, figures and their contacts.

``Tracker(config, pitch).update(detections, t_s) -> Tracks`` once per frame; the three parts
stay usable on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.pitch import Pitch
from tracking.ball import BallTrack, BallTracker, BallTrackerConfig
from tracking.contacts import Contact, ContactConfig, ContactDetector
from tracking.figures import FigureTracker, FigureTrackerConfig, FigureTracks
from vision.detections import Detections


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """Tunables of all three trackers."""

    ball: BallTrackerConfig = field(default_factory=BallTrackerConfig)
    figures: FigureTrackerConfig = field(default_factory=FigureTrackerConfig)
    contacts: ContactConfig = field(default_factory=ContactConfig)

    @classmethod
    def for_pitch(cls, pitch: Pitch) -> TrackerConfig:
        """Defaults with the ball and base sizes of the table profile."""
        p = pitch.profile
        return cls(contacts=ContactConfig(p.ball_radius_mm, p.base_radius_mm))


@dataclass(frozen=True, slots=True)
class Tracks:
    """Everything tracked after one frame."""

    ball: BallTrack
    figures: FigureTracks
    contacts: tuple[Contact, ...]


class Tracker:
    """Ball, figures and contacts, updated together."""

    def __init__(self, config: TrackerConfig | None = None, pitch: Pitch | None = None) -> None:
        if config is None:
            config = TrackerConfig.for_pitch(pitch) if pitch is not None else TrackerConfig()
        self.config = config
        self.ball = BallTracker(config.ball)
        self.figures = FigureTracker(config.figures, pitch)
        self.contacts = ContactDetector(config.contacts)

    def update(self, detections: Detections, t_s: float) -> Tracks:
        ball = self.ball.update(detections, t_s)
        figures = self.figures.update(detections, t_s)
        return Tracks(ball, figures, self.contacts.update(ball, figures))
