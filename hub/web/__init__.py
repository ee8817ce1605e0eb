"""The web interface: static files the hub serves at ``/`` and ``/ui/...``."""
