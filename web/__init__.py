"""The web layer: live page, review page, calibration page, JSON API and server-sent events.

``create_app`` builds the Flask app; ``web.serving.serve`` runs it with waitress; the live
pipeline pushes into the ``MatchHub`` found with ``web.app.hub_of(app)``.
"""

from web.app import create_app

__all__ = ["create_app"]
