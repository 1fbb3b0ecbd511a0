"""``tablevar live --source SPEC``: referee a table live and serve the live page.

Opens the source (``sim``, ``sim:SCENE``, ``file:PATH``, ``opencv:N`` or ``pi``), calibrates from
its first second of frames unless ``--calibration`` gives a ``calibration.json``, and runs the
pipeline in a worker thread (``tablevar.live.LiveRunner``) that feeds the live page. The
calibration page's recalibrate control calibrates again from the next frames. A source that
cannot be opened at start is an error; one that drops out later is reopened with back-off while
the page says so.

``--config FILE`` (TOML) sets the Raspberry Pi camera (``[camera]``) and the signals at the
table (``[signals]``: clock LED, buzzer, pause and shot buttons on the GPIO header);
``tablevar.live_options.read_live_config`` lists its keys. The Pi camera locks its exposure,
white balance and focus once they have settled; the settings are saved with the calibration,
and a camera opened again (after a drop-out, or with ``--calibration``) starts with them.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from calibration.calibration_file import CameraControls, read_calibration
from calibration.tables import load_pitch
from hardware.recording import check_writable
from hardware.sources import SPEC_HELP, FrameSource, open_source
from rules.clock import CLOCK_MODES
from rules.games import GAMES
from simulator.sim_source import is_sim_spec, open_sim
from tablevar.commands.serve import add_server_options, check_server_options, start_server
from tablevar.live import LiveOptions, LiveRunner
from tablevar.live_options import LiveConfig, PiCameraOptions, read_live_config
from tablevar.live_signals import LiveSignals
from tablevar.rules_stage import refereed_live
from web.app import create_app, hub_of, set_ball_colour, set_recalibrate

DEFAULT_OUT = Path("out/live")
DEFAULT_RECORDINGS = Path("recordings")
SIM_SIZE_PX = (800, 600)
SIM_FPS = 30.0
SIM_LEAD_S = 2.0  # the simulated table stands still this long before play: time to calibrate


class LiveCommandError(ValueError):
    """A ``tablevar live`` option that cannot work."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "live",
        help="referee a table live from a camera (or the simulator) and serve the live page",
        description="Calibrate, track and referee frames from a camera, a video or the "
        "simulator as they come, and serve the live page: score, match clock, calls with "
        "evidence, radar. Prints the URL and the PIN for the controls.",
    )
    parser.add_argument(
        "--source",
        required=True,
        metavar="SPEC",
        help=f"sim, sim:SCENE or sim:SCENE@START_S (a simulated match), {SPEC_HELP}",
    )
    parser.add_argument(
        "--sim-fast",
        action="store_true",
        help="simulated source: frames as fast as they are refereed, none dropped "
        "(default: in real time, as a camera delivers them)",
    )
    parser.add_argument("--table", default="fistf", help="table profile name or .toml path")
    parser.add_argument(
        "--game",
        choices=list(GAMES),
        default=None,
        help="the game to referee (default: the one the table profile names)",
    )
    parser.add_argument(
        "--clock-mode",
        choices=CLOCK_MODES,
        default="ball-moving",
        help="a new match's clock: runs while the ball rolls, or runs on with added time "
        "(FISTF 3.1/3.2); a resumed match keeps its own (default: %(default)s)",
    )
    parser.add_argument(
        "--calibration", type=Path, metavar="FILE", help="calibration.json (default: calibrate)"
    )
    parser.add_argument(
        "--record", type=Path, metavar="DIR", help="also record every frame into this folder"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"evidence pictures, calibration and match log (default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="TOML file: [camera] (the Raspberry Pi camera) and [signals] (GPIO pins of the "
        "clock LED, buzzer, pause and shot buttons); see docs/raspberry-pi.md",
    )
    add_server_options(parser)
    parser.set_defaults(run=run)


class PiOpener:
    """Opens the Pi camera, each time with the settings the first one locked (or saved ones)."""

    def __init__(self, options: PiCameraOptions, controls: CameraControls | None = None):
        self.options, self.controls = options, controls
        self._last = None

    def __call__(self) -> FrameSource:
        from hardware.picamera_source import PiCameraSource  # picamera2: on a Pi only

        if self._last is not None and self._last.controls is not None:
            self.controls = self._last.controls
        o = self.options
        self._last = PiCameraSource(
            camera=o.camera,
            size_px=o.size_px,
            fps=o.fps,
            fmt=o.fmt,
            mains_hz=o.mains_hz,
            settle_s=o.settle_s,
            controls=self.controls,
        )
        return self._last


def opener(
    spec: str,
    table: str = "fistf",
    sim_fast: bool = False,
    pi: PiCameraOptions | None = None,
    controls: CameraControls | None = None,
):
    """A function that opens the source named by ``spec`` (again after a drop-out)."""
    if spec == "pi":
        return PiOpener(pi or PiCameraOptions(), controls)
    if is_sim_spec(spec):
        return lambda: open_sim(
            spec,
            size_px=SIM_SIZE_PX,
            fps=SIM_FPS,
            table=table,
            lead_s=SIM_LEAD_S,
            realtime=not sim_fast,
        )
    return lambda: open_source(spec)


def _first_then(source: FrameSource, reopen):
    """Hand out the source opened at start once, then open anew on each call."""
    pending = [source]
    return lambda: pending.pop() if pending else reopen()


def run(args: argparse.Namespace) -> int:
    check_server_options(args)
    # A wrong profile, an unknown game or a game the table has no pieces for fails here, in
    # one line.
    pitch = refereed_live(load_pitch(args.table, args.game))
    if is_sim_spec(args.source) and pitch.profile.game != "fistf":
        raise LiveCommandError(
            f"the simulated live match plays FISTF scenes, not {GAMES[pitch.profile.game].title}: "
            "play a recording of it instead, e.g. --source recordings/demo-button-football"
        )
    calibration = read_calibration(args.calibration) if args.calibration else None
    if args.record is not None:
        check_writable(args.record)  # a folder that cannot be written fails now, in one line
    if args.sim_fast and not is_sim_spec(args.source):
        raise LiveCommandError("--sim-fast is for the simulated source (--source sim...)")
    config = read_live_config(args.config) if args.config else LiveConfig()
    controls = calibration.camera_controls if calibration is not None else None
    reopen = opener(args.source, args.table, args.sim_fast, config.camera, controls)
    source = reopen()  # a source that cannot be opened at all is an error, not a wait
    if calibration is not None and tuple(calibration.image_size_px) != tuple(source.size_px):
        source.close()
        w, h = source.size_px
        raise LiveCommandError(
            f"the source gives {w}x{h} frames but {args.calibration} is for "
            f"{calibration.image_size_px[0]}x{calibration.image_size_px[1]}: calibrate again"
        )
    logging.basicConfig(level=logging.WARNING, format="tablevar: %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    app = create_app(
        {
            "OUTPUT_DIR": args.out,
            "RECORDINGS_DIR": DEFAULT_RECORDINGS if DEFAULT_RECORDINGS.is_dir() else None,
            "PIN": args.pin,
            "TABLE": args.table,
            "GAME": args.game,
            "CLOCK_MODE": args.clock_mode,
        }
    )
    hub = hub_of(app)
    signals = LiveSignals(hub, config.signals) if config.signals is not None else None
    runner = LiveRunner(
        _first_then(source, reopen),
        hub,
        args.out,
        calibration=calibration,
        options=LiveOptions(table=args.table, game=args.game),
        record_dir=args.record,
        signals=signals,
    )
    set_recalibrate(app, runner.recalibrate)
    set_ball_colour(app, runner.set_ball_colour)
    runner.start()
    return start_server(app, args, before_stop=runner.stop)
