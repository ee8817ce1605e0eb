"""The HTTP API: :func:`hub.api.app.create_app` builds it."""
